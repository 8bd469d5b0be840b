import { EVENT_LOG_DAYS } from "./eventLog.js"
import { IDEMPOTENCY_TTL_MS } from "./idempotency.js"
import { LOG_RETENTION_DAYS } from "./webhooks.js"

/**
 * How long each table that grows with traffic keeps a row (docs/operations.md, "Retention"),
 * in seconds. The spec fixes three windows (the event log and the webhook log 30 days,
 * Idempotency-Keys 24 hours); the others are ours, each as long as its rows still serve
 * anyone, and can be set (RETENTION_* in services/scheduler/retentionSettings.ts).
 */
const MINUTE = 60
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const RetentionDefaults = {
  /** Published events: GET /public/v1/events reads them for 30 days. */
  outboxSeconds: EVENT_LOG_DAYS * DAY,
  /** Webhook attempts and finished deliveries: the delivery log's 30 days. */
  webhookLogSeconds: LOG_RETENTION_DAYS * DAY,
  /** Idempotency-Keys: remembered 24 hours (spec). */
  idempotencySeconds: IDEMPOTENCY_TTL_MS / 1000,
  /**
   * Command records: a copy of a command comes from the gateway's retries, which give up
   * within a minute (services/sharding/actorClient.ts); an hour leaves room for a mailbox
   * that was long behind.
   */
  commandLogSeconds: HOUR,
  /** Payloads passed by reference: read once while their command runs; what nobody came for goes after an hour. */
  actorPayloadSeconds: HOUR,
  /** Publish attempts of a settled item (published or failed): the attempt timeline shows them 90 days. */
  publishAttemptSeconds: 90 * DAY,
  /**
   * Publish jobs (one per claim of an item): the sweepers need one only while it is not
   * acknowledged or its item still publishes under its claim; a day after that is ample.
   */
  publishJobSeconds: DAY,
  /** Notifications: GET /notifications pages back 90 days. */
  notificationSeconds: 90 * DAY,
  /** Short-link click batches: a batch is added once, then dropped from Redis at the next flush (seconds); a week is ample. */
  clickBatchSeconds: 7 * DAY
} as const

export type RetentionWindows = { readonly [K in keyof typeof RetentionDefaults]: number }
