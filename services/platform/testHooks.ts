import { Config, Effect } from "effect"

/**
 * Test hook for fault tests, a no-op unless set: `TEST_PAUSE_AT=<point>` makes the process
 * stop for good when it reaches that named point, after logging `paused at <point>`, so a
 * test can kill -9 it at exactly that place (instead of guessing with timers). The process
 * keeps its connections and heartbeats meanwhile, as a process that is about to crash
 * would. Never set it in production. Points:
 * - `scheduler.claimed`: due items claimed and their jobs committed, not yet put on PUBLISH;
 * - `publisher.attemptRecorded`: the attempt row committed, the network not called yet;
 * - `publisher.answered`: the network answered (it has the post), the outcome not recorded.
 */
export const pausePoint = (point: "scheduler.claimed" | "publisher.attemptRecorded" | "publisher.answered"): Effect.Effect<void> =>
  Effect.flatMap(pauseAt, (at) =>
    at === point ? Effect.logWarning(`paused at ${point} (TEST_PAUSE_AT)`).pipe(Effect.zipRight(Effect.never)) : Effect.void
  )

/**
 * TEST_PAUSE_AT, read once per process (a test sets it in the environment of the process it
 * starts): a configuration read costs a failed lookup and its error when the variable is not
 * set, and every publish passes two points.
 */
let configured: string | undefined
const pauseAt: Effect.Effect<string> = Effect.suspend(() =>
  configured !== undefined
    ? Effect.succeed(configured)
    : Config.string("TEST_PAUSE_AT").pipe(
        Config.withDefault(""),
        Effect.orElseSucceed(() => ""),
        Effect.tap((at) =>
          Effect.sync(() => {
            configured = at
          })
        )
      )
)
