import { mediaRulesNetworks } from "./mediaRules.js"
import type { Network } from "./network.js"

/**
 * A network that publishes nowhere, so the API can be tried end to end without
 * any network's keys. Nothing in it is required, so a bare text post passes.
 */
export const testNetwork: Network = {
  identifier: "test",
  name: "Test network",
  maxLength: 500,
  counting: "characters",
  needs: null,
  maxMedia: 4,
  comments: true,
  connect: "link",
  serverKeys: [],
  settings: [
    {
      key: "audience",
      label: "Audience",
      type: "select",
      options: ["everyone", "followers"],
      help: "Who would see the post; only recorded, since nothing is published."
    },
    {
      key: "outcome",
      label: "Outcome",
      type: "select",
      options: ["accept", "reject", "timeout", "lose-answer", "slow", "process"],
      help:
        "How the test network answers, to rehearse error handling: accept (default) publishes; reject refuses " +
        "(the channel ends failed with a message and fix, post.failed); timeout never answers (no answer: the " +
        "search finds nothing, the channel ends unconfirmed, post.unconfirmed); lose-answer takes the post but " +
        "the answer is lost (the search finds it: published); slow answers after slowMs; process takes it in " +
        "steps like a network with containers (the item is held processing between steps, then published)."
    },
    {
      key: "slowMs",
      label: "Slow answer (ms)",
      type: "number",
      options: [],
      help: "With outcome slow: how long the answer takes, in milliseconds (default 3000)."
    },
    {
      key: "processSteps",
      label: "Processing steps",
      type: "number",
      options: [],
      help: "With outcome process: how many times the network answers that it is still processing (default 2)."
    },
    {
      key: "processMs",
      label: "Processing step (ms)",
      type: "number",
      options: [],
      help: "With outcome process: how long each processing step takes, in milliseconds (default 500)."
    },
    {
      key: "media_rules",
      label: "Media rules",
      type: "select",
      options: mediaRulesNetworks,
      help:
        "Check and prepare the post's photos and videos as this network would (sizes, formats, durations), " +
        "to rehearse its media rules; default test: the test network's own, generous rules."
    }
  ],
  tools: [
    {
      methodName: "echo",
      description: "Answers the text it is given, to try POST /integration-trigger.",
      dataSchema: [{ key: "text", type: "string", description: "Text to answer back" }]
    },
    {
      methodName: "stats",
      description: "Answers how many posts of the channel are in each status.",
      dataSchema: []
    }
  ],
  rules:
    "A built-in test network that publishes nowhere: use it to try the API without any network's keys. " +
    "Up to 500 characters. Up to 4 photos or videos. Follow-up comments work. " +
    "The outcome setting makes it accept, reject, time out, lose its answer, answer slowly or process in steps, " +
    "to rehearse every outcome of publishing."
}
