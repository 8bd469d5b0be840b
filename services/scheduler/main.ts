import { SqlClient } from "@effect/sql"
import { type Duration, Effect, Layer, Schedule } from "effect"
import * as Outbox from "../platform/outbox.js"
import { claimDueItems, requeueLostJobs } from "./dueItems.js"

const every = <A, E, R>(interval: Duration.DurationInput, name: string, task: Effect.Effect<A, E, R>) =>
  task.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed`, cause)),
    Effect.repeat(Schedule.spaced(interval)),
    Effect.forkScoped
  )

/**
 * The scheduler: claims due items onto PUBLISH, re-enqueues lost jobs, sweeps outbox
 * rows left unpublished onto EVENTS and expires what the spec keeps for a limited time (Idempotency-Keys 24 h).
 */
export const SchedulerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // events go to EVENTS right after their commit; this only repairs what was left behind
    yield* every("2 seconds", "outbox sweeper", Outbox.sweep({ olderThanSeconds: 3 }))
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
