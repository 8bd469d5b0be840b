import { Clock, Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import { ToolMessages } from "../../domain/posts/messages.js"
import { type Credentials, type NetworkAdapter, PublishAnswer, type PublishRequest, Refresh, SearchAnswer } from "./adapter.js"
import { TEST_NETWORK_KEEPS_DAYS, testChannelStatistics, testPostStatistics } from "./testNetworkStatistics.js"
import { TestNetworkRepo } from "./TestNetworkRepo.js"

const EchoData = Schema.Struct({ text: Schema.String })

/** Where a test-network post can be looked at (it exists only in this service's database). */
const releaseUrl = (id: string) => `test-network://posts/${id}`

/**
 * How the test network answers, from the post's settings, so tests (and people trying the
 * API) can see every outcome of the publishing path:
 * - `accept` (default): takes the post and answers at once;
 * - `reject`: refuses it;
 * - `timeout`: never answers and never takes it (the publisher's time limit ends the wait);
 * - `lose-answer`: takes the post, then the answer is lost (a search finds it);
 * - `slow`: takes it and answers after `settings.slowMs` (default 3000) milliseconds;
 * - `process`: a publish in steps, as a network with containers takes it: answers
 *   `Pending` `settings.processSteps` times (default 2), `settings.processMs` apart
 *   (default 500), then takes it.
 */
const Behaviour = Schema.Struct({
  outcome: Schema.optionalWith(Schema.Literal("accept", "reject", "timeout", "lose-answer", "slow", "process"), { default: () => "accept" as const }),
  slowMs: Schema.optionalWith(Schema.Number, { default: () => 3000 }),
  processSteps: Schema.optionalWith(Schema.Number, { default: () => 2 }),
  processMs: Schema.optionalWith(Schema.Number, { default: () => 500 })
})
const behaviourOf = (request: PublishRequest) =>
  Schema.decodeUnknownOption(Behaviour)(request.channel.settings).pipe(
    Option.getOrElse(() => ({ outcome: "accept" as const, slowMs: 3000, processSteps: 2, processMs: 500 }))
  )

/** The step a `process` publish has reached (its progress), 0 before the first. */
const Step = Schema.Struct({ step: Schema.Number })
const stepOf = (request: PublishRequest) =>
  Option.match(Schema.decodeUnknownOption(Step)(request.progress), { onNone: () => 0, onSome: (p) => p.step })

/** Whose numbers: the account id a connection stored, else one shared test account. */
const accountOf = (credentials: Redacted.Redacted<Credentials>): string => {
  const id = Redacted.value(credentials)["accountId"]
  return typeof id === "string" ? id : "test-account"
}

/**
 * The built-in test network: a simulated network whose posts live in its table (TestNetworkRepo.ts), so the
 * whole publishing path (attempts, outcomes, search) runs without any network's keys.
 */
export const makeTestNetworkAdapter = Effect.gen(function* () {
  const repo = yield* TestNetworkRepo
  const take = (request: PublishRequest) => repo.add({ channelId: request.channel.id, itemId: request.item.id, content: request.item.content })
  const publish = (request: PublishRequest) => {
    const behaviour = behaviourOf(request)
    const published = (id: string) => PublishAnswer.Published({ releaseId: id, releaseUrl: releaseUrl(id) })
    const answer: Effect.Effect<PublishAnswer, unknown> = (() => {
      switch (behaviour.outcome) {
        case "accept":
          return take(request).pipe(Effect.map(published))
        case "reject":
          return Effect.succeed(
            PublishAnswer.Rejected({
              message: "The test network refused the post, as its settings asked (outcome: reject).",
              fix: "Remove the outcome setting of the post, then retry it."
            })
          )
        case "timeout":
          return Effect.never
        case "lose-answer":
          return take(request).pipe(Effect.as(PublishAnswer.NoAnswer({ reason: "the test network lost its answer (outcome: lose-answer)" })))
        case "slow":
          return Effect.sleep(behaviour.slowMs).pipe(Effect.zipRight(take(request)), Effect.map(published))
        case "process": {
          const step = stepOf(request) + 1
          return step <= behaviour.processSteps
            ? Effect.succeed(
                PublishAnswer.Pending({
                  progress: { step },
                  kind: "processing",
                  waitingFor: `the test network is processing the post (step ${step} of ${behaviour.processSteps})`,
                  retryAfterMs: behaviour.processMs
                })
              )
            : take(request).pipe(Effect.map(published))
        }
      }
    })()
    // a write that fails midway may or may not hold the post: like a lost answer
    return answer.pipe(Effect.catchAll((e) => Effect.succeed(PublishAnswer.NoAnswer({ reason: String(e) }))))
  }
  const adapter: NetworkAdapter = {
    identifier: "test",
    // created by the admin CLI (no credentials): there is nobody to sign in to
    connect: { kind: "form" },
    verify: () =>
      Effect.succeed({ credentials: {}, profile: { accountId: crypto.randomUUID(), name: "Test network", profile: "test", picture: null } }),
    tokensNeverExpire: true,
    refresh: () => Effect.succeed(Refresh.Unchanged()),
    publish,
    publishFollowUp: publish,
    // deterministic numbers per account and post (testNetworkStatistics.ts)
    statistics: {
      longestRangeDays: TEST_NETWORK_KEEPS_DAYS,
      channel: (credentials, days) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => testChannelStatistics(accountOf(credentials), days, new Date(now))),
      post: (_credentials, releaseId) => Effect.flatMap(Clock.currentTimeMillis, (now) => testPostStatistics(releaseId, new Date(now)))
    },
    // the test network answers in-process, never over HTTP
    classify: () => PublishAnswer.NoAnswer({ reason: "the test network does not answer over HTTP" }),
    search: (request) =>
      repo.findByItem(request.item.id).pipe(
        Effect.map(
          Option.match({
            // a publish in steps not yet taken: the network knows it is not live, so it goes on from its step
            onNone: () => (request.progress === null ? SearchAnswer.NotFound() : SearchAnswer.Unfinished({ progress: request.progress })),
            onSome: (id) => SearchAnswer.Found({ releaseId: id, releaseUrl: releaseUrl(id) })
          })
        ),
        Effect.catchAll((e) => Effect.succeed(SearchAnswer.CannotTell({ reason: String(e) })))
      ),
    runTool: ({ channel, data, methodName }) => {
      switch (methodName) {
        case "echo":
          return Schema.decodeUnknown(EchoData)(data).pipe(
            Effect.map(({ text }) => ({ text })),
            Effect.mapError(() => Errors.badRequest(ToolMessages.echoNeedsText))
          )
        case "stats":
          return repo.postCountsByStatus(channel.id).pipe(
            Effect.map((posts) => ({ channelId: channel.id, posts })),
            Effect.orDie
          )
        default:
          return Effect.fail(Errors.badRequest(ToolMessages.unknownTool(methodName, "Test network", ["echo", "stats"])))
      }
    }
  }
  return adapter
})
