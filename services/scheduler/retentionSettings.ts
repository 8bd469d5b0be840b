import { Config } from "effect"
import { RetentionDefaults } from "../../domain/retention.js"

/**
 * The retention jobs' settings (docs/operations.md, "Retention"). The windows the spec fixes
 * (the event log and the webhook log 30 days, Idempotency-Keys 24 hours) are not settings:
 * a shorter one would break a promise of the API, a longer one keeps what nobody reads.
 */
const seconds = (name: string, fallback: number) => Config.integer(name).pipe(Config.withDefault(fallback))

export const retentionSettings = Config.all({
  /** How often every job runs (each replica of the scheduler runs them; they share the rows). */
  intervalMs: Config.integer("RETENTION_INTERVAL_MS").pipe(Config.withDefault(300_000)),
  /** Rows per statement. */
  batchSize: Config.integer("RETENTION_BATCH_SIZE").pipe(Config.withDefault(1000)),
  /** Statements per table and run; a larger backlog is cleared over the next runs. */
  maxBatches: Config.integer("RETENTION_MAX_BATCHES").pipe(Config.withDefault(100)),
  /** A pause between two statements of a job. */
  pauseMs: Config.integer("RETENTION_PAUSE_MS").pipe(Config.withDefault(20)),
  windows: Config.all({
    outboxSeconds: Config.succeed(RetentionDefaults.outboxSeconds),
    webhookLogSeconds: Config.succeed(RetentionDefaults.webhookLogSeconds),
    idempotencySeconds: Config.succeed(RetentionDefaults.idempotencySeconds),
    commandLogSeconds: seconds("RETENTION_COMMAND_LOG_SECONDS", RetentionDefaults.commandLogSeconds),
    actorPayloadSeconds: seconds("RETENTION_ACTOR_PAYLOAD_SECONDS", RetentionDefaults.actorPayloadSeconds),
    publishAttemptSeconds: seconds("RETENTION_PUBLISH_ATTEMPT_SECONDS", RetentionDefaults.publishAttemptSeconds),
    publishJobSeconds: seconds("RETENTION_PUBLISH_JOB_SECONDS", RetentionDefaults.publishJobSeconds),
    notificationSeconds: seconds("RETENTION_NOTIFICATION_SECONDS", RetentionDefaults.notificationSeconds),
    clickBatchSeconds: seconds("RETENTION_CLICK_BATCH_SECONDS", RetentionDefaults.clickBatchSeconds)
  })
})
export type RetentionSettings = Config.Config.Success<typeof retentionSettings>
