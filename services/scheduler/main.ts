import { SqlClient } from "@effect/sql"
import { type Duration, Effect, Layer, Schedule } from "effect"
import { claimDueItems, requeueLostJobs } from "./dueItems.js"
import { relayOutbox } from "./outboxRelay.js"

const every = <A, E, R>(interval: Duration.DurationInput, name: string, task: Effect.Effect<A, E, R>) =>
  task.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed`, cause)),
    Effect.repeat(Schedule.spaced(interval)),
    Effect.forkScoped
  )

/**
 * The scheduler: claims due items onto PUBLISH, re-enqueues lost jobs, relays the
 * outbox to EVENTS and expires what the spec keeps for a limited time (Idempotency-Keys 24 h).
 */
export const SchedulerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* every("250 millis", "outbox relay", relayOutbox())
    yield* every("500 millis", "due items", claimDueItems())
    yield* every("30 seconds", "lost publish jobs", requeueLostJobs)
    yield* every(
      "1 minute",
      "idempotency expiry",
      sql`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`
    )
    yield* Effect.logInfo("scheduler started")
  })
)
