import { SqlClient } from "@effect/sql"
import { Clock, type Duration, Effect, Layer, Schedule } from "effect"
import { IDEMPOTENCY_TTL_MS } from "../../domain/idempotency.js"
import { claimDueItems, enqueueUnacknowledgedJobs, requeueLostJobs } from "./dueItems.js"
import { relayOutbox } from "./outboxRelay.js"

const every = <A, E, R>(interval: Duration.DurationInput, name: string, task: Effect.Effect<A, E, R>) =>
  task.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed`, cause)),
    Effect.repeat(Schedule.spaced(interval)),
    Effect.forkScoped
  )

/** Idempotency-Keys are remembered for IDEMPOTENCY_TTL_MS (24 h), then forgotten. */
const expireIdempotencyKeys = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const cutoff = new Date((yield* Clock.currentTimeMillis) - IDEMPOTENCY_TTL_MS)
  yield* sql`DELETE FROM idempotency_keys WHERE created_at < ${cutoff}`
})

/**
 * The scheduler: claims due items onto PUBLISH, repairs publish jobs from their state in
 * Postgres (enqueues never acknowledged, messages that left the stream without settling
 * their item), relays the outbox to EVENTS and expires what the spec keeps for a limited
 * time (Idempotency-Keys 24 h).
 */
export const SchedulerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    yield* every("250 millis", "outbox relay", relayOutbox())
    yield* every("500 millis", "due items", claimDueItems())
    yield* every("2 seconds", "unacknowledged publish jobs", enqueueUnacknowledgedJobs())
    yield* every("15 seconds", "lost publish jobs", requeueLostJobs())
    yield* every("1 minute", "idempotency expiry", expireIdempotencyKeys)
    yield* Effect.logInfo("scheduler started")
  })
)
