import { type Duration, Effect, Layer, Schedule } from "effect"
import * as Outbox from "../platform/outbox.js"
import { RepeatsRepo } from "../posts/repeatsRepo.js"
import { BacklogMetricsLive } from "./backlogMetrics.js"
import { claimAllDueItems, createMissingRepeats, enqueueUnacknowledgedJobs, requeueLostJobs } from "./dueItems.js"
import { DueItemsRepo } from "./dueItemsRepo.js"
import { makeRetentionJobs } from "./retention.js"
import { retentionSettings } from "./retentionSettings.js"

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
 * (linked by hand), sweeps outbox rows left unpublished onto EVENTS, and runs the retention
 * jobs: every table that grows with traffic keeps rows only as long as its rule says
 * (docs/operations.md, "Retention"; ./retention.ts).
 */
export const SchedulerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const retention = yield* retentionSettings
    const runRetention = yield* makeRetentionJobs
    // events go to EVENTS right after their commit; this only repairs what was left behind
    yield* every("2 seconds", "outbox sweeper", Outbox.sweep({ olderThanSeconds: 3 }))
    yield* every("500 millis", "due items", claimAllDueItems())
    yield* every("2 seconds", "unacknowledged publish jobs", enqueueUnacknowledgedJobs())
    yield* every("15 seconds", "lost publish jobs", requeueLostJobs())
    yield* every("30 seconds", "repeat occurrences", createMissingRepeats())
    // replicas may all run it: each batch skips the rows another one holds (services/platform/pruning.ts)
    yield* every(`${retention.intervalMs} millis`, "retention", runRetention(retention))
    yield* Effect.logInfo("scheduler started")
  })
).pipe(Layer.provide(Layer.merge(DueItemsRepo.Live, RepeatsRepo.Live)), Layer.merge(BacklogMetricsLive))
