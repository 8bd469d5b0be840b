import { type Duration, Effect, Layer, Schedule } from "effect"
import { makeFenceStore } from "../sharding/fencing.js"
import { makeActorPayloads } from "../sharding/actorPayloads.js"
import * as Outbox from "../platform/outbox.js"
import { makeIdempotencyRepo } from "../posts/idempotencyRepo.js"
import { RepeatsRepo } from "../posts/repeatsRepo.js"
import { BacklogMetricsLive } from "./backlogMetrics.js"
import { claimAllDueItems, createMissingRepeats, enqueueUnacknowledgedJobs, requeueLostJobs } from "./dueItems.js"
import { DueItemsRepo } from "./dueItemsRepo.js"

const every = <A, E, R>(interval: Duration.DurationInput, name: string, task: Effect.Effect<A, E, R>) =>
  task.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed`, cause)),
    Effect.repeat(Schedule.spaced(interval)),
    Effect.forkScoped
  )

/**
 * The scheduler: claims due items onto PUBLISH, repairs publish jobs from their state in
 * Postgres (enqueues never acknowledged, messages that left the stream without settling
 * their item), makes the next occurrence of repeating posts that went live without one
 * (linked by hand), sweeps outbox rows left unpublished onto EVENTS, and expires what the spec
 * keeps for a limited time (Idempotency-Keys 24 h, domain/idempotency.ts; command records
 * and large command payloads an hour).
 */
export const SchedulerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const idempotency = yield* makeIdempotencyRepo
    const commands = yield* makeFenceStore
    const payloads = yield* makeActorPayloads
    // a command is sent again within seconds; its record and any large payload go after an hour
    const anHourAgo = () => new Date(Date.now() - 3600_000)
    // events go to EVENTS right after their commit; this only repairs what was left behind
    yield* every("2 seconds", "outbox sweeper", Outbox.sweep({ olderThanSeconds: 3 }))
    yield* every("500 millis", "due items", claimAllDueItems())
    yield* every("2 seconds", "unacknowledged publish jobs", enqueueUnacknowledgedJobs())
    yield* every("15 seconds", "lost publish jobs", requeueLostJobs())
    yield* every("30 seconds", "repeat occurrences", createMissingRepeats())
    yield* every(
      "1 minute",
      "idempotency expiry",
      Effect.suspend(() => idempotency.expire(new Date()))
    )
    yield* every(
      "1 minute",
      "command log expiry",
      Effect.suspend(() => commands.expire(anHourAgo()))
    )
    yield* every(
      "1 minute",
      "actor payload expiry",
      Effect.suspend(() => payloads.expire(anHourAgo()))
    )
    yield* Effect.logInfo("scheduler started")
  })
).pipe(Layer.provide(Layer.merge(DueItemsRepo.Live, RepeatsRepo.Live)), Layer.merge(BacklogMetricsLive))
