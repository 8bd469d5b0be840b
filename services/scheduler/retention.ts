import { Effect } from "effect"
import { makeNotificationsRepo } from "../repos/notificationsRepo.js"
import { makeActorPayloadsRepo } from "../sharding/actorPayloadsRepo.js"
import { makeCommandLogRepo } from "../sharding/commandLogRepo.js"
import { pruneInBatches } from "../platform/pruning.js"
import { makeIdempotencyRepo } from "../posts/idempotencyRepo.js"
import { makeAttemptsRepo } from "../publisher/attemptsRepo.js"
import { makeShortLinksRepo } from "../shortLinks/shortLinksRepo.js"
import { makeDeliveriesRepo } from "../webhooks/deliveriesRepo.js"
import { makeEventLogRepo } from "../webhooks/eventLogRepo.js"
import { makeDueItemsRepo } from "./dueItemsRepo.js"
import type { RetentionSettings } from "./retentionSettings.js"

/**
 * The retention jobs (docs/operations.md, "Retention"): one per table that grows with
 * traffic, each removing only what its rule lets go, in batches (services/platform/pruning.ts).
 * Webhook deliveries go after their attempts, so a delivery's cascade finds little left.
 * Answers the rows removed per table.
 */
export const makeRetentionJobs = Effect.gen(function* () {
  const events = yield* makeEventLogRepo
  const commands = yield* makeCommandLogRepo
  const payloads = yield* makeActorPayloadsRepo
  const idempotency = yield* makeIdempotencyRepo
  const attempts = yield* makeAttemptsRepo
  const publishJobs = yield* makeDueItemsRepo
  const notifications = yield* makeNotificationsRepo
  const webhookLog = yield* makeDeliveriesRepo
  const clicks = yield* makeShortLinksRepo

  return (settings: RetentionSettings) => {
    const w = settings.windows
    const all = [
      { table: "outbox", removeBatch: (n: number) => events.pruneBatch(w.outboxSeconds, n) },
      { table: "command_log", removeBatch: (n: number) => commands.pruneBatch(w.commandLogSeconds, n) },
      { table: "actor_payloads", removeBatch: (n: number) => payloads.pruneBatch(w.actorPayloadSeconds, n) },
      { table: "idempotency_keys", removeBatch: (n: number) => idempotency.pruneBatch(w.idempotencySeconds, n) },
      { table: "publish_attempts", removeBatch: (n: number) => attempts.pruneSettledBatch(w.publishAttemptSeconds, n) },
      { table: "publish_jobs", removeBatch: (n: number) => publishJobs.pruneSettledJobsBatch(w.publishJobSeconds, n) },
      { table: "notifications", removeBatch: (n: number) => notifications.pruneBatch(w.notificationSeconds, n) },
      { table: "webhook_attempts", removeBatch: (n: number) => webhookLog.pruneAttempts(w.webhookLogSeconds, n) },
      { table: "webhook_deliveries", removeBatch: (n: number) => webhookLog.pruneDeliveries(w.webhookLogSeconds, n) },
      { table: "short_link_flushes", removeBatch: (n: number) => clicks.pruneBatch(w.clickBatchSeconds, n) }
    ]
    // one job failing (a statement timeout, say) leaves the others to run; it is tried again next time
    const runOne = (job: (typeof all)[number]) =>
      pruneInBatches(job, settings).pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`retention of ${job.table} failed; the next run tries again`, cause).pipe(Effect.as(0))),
        Effect.map((removed) => [job.table, removed] as const)
      )
    return Effect.forEach(all, runOne).pipe(
      Effect.map((counts) => Object.fromEntries(counts)),
      Effect.tap((removed) => (Object.values(removed).some((n) => n > 0) ? Effect.logInfo("retention: rows removed", removed) : Effect.void))
    )
  }
})
