import { Effect } from "effect"
import type { Network } from "../../domain/networks/network.js"
import { settingText, settingWords } from "../../domain/networks/settingLimits.js"
import { settingsProblems } from "../../domain/posts/rules.js"
import { PublishAnswer } from "./adapter.js"

/**
 * Reading the settings of blog and newsletter posts (dev.to, Hashnode, Listmonk), and the
 * catalog's rules on them checked again before anything is sent (a post saved before a rule
 * existed is refused here rather than by the network).
 */

/** A text setting, trimmed; undefined when absent or blank. */
export const textSetting = (settings: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const text = settingText(settings[key])
  return text === "" ? undefined : text
}

/** A list setting as words, without blanks or repeats, in the order given. */
export const listSetting = (settings: Readonly<Record<string, unknown>>, key: string): ReadonlyArray<string> => settingWords(settings[key])

/** The text's first line without Markdown heading marks, as a subject when none is set. */
export const firstLineOf = (content: string, max: number): string =>
  (content.split("\n").find((line) => line.trim() !== "") ?? "")
    .replace(/^\s*#+\s*/, "")
    .trim()
    .slice(0, max)

/** The network's setting rules (required settings, limits) on the post's settings; a refusal names every problem. */
export const checkSettings = (network: Network, settings: Readonly<Record<string, unknown>>): Effect.Effect<void, PublishAnswer> => {
  const problems = settingsProblems(network.name, network, settings)
  return problems.length === 0
    ? Effect.void
    : Effect.fail(PublishAnswer.Rejected({ message: problems.join(" "), fix: "Change the post's settings as the message says, then retry." }))
}
