import { Config } from "effect"
import { ATTEMPT_TIMEOUT_MS, RETRY_BASE_MS } from "../../domain/webhooks.js"

/**
 * The dispatcher's settings (docs/webhooks.md, "Configuration"). The spec's figures are the
 * defaults; tests shorten the waits and the timeout to run in seconds.
 */
export const webhookSettings = Config.all({
  /** Attempts in flight at once in this process. */
  concurrency: Config.integer("WEBHOOK_CONCURRENCY").pipe(Config.withDefault(64)),
  /** Attempts in flight at once for one webhook, across every dispatcher: a slow receiver cannot take every slot. */
  perWebhook: Config.integer("WEBHOOK_PER_RECEIVER").pipe(Config.withDefault(8)),
  timeoutMs: Config.integer("WEBHOOK_TIMEOUT_MS").pipe(Config.withDefault(ATTEMPT_TIMEOUT_MS)),
  retryBaseMs: Config.integer("WEBHOOK_RETRY_BASE_MS").pipe(Config.withDefault(RETRY_BASE_MS)),
  /** How often due retries (and deliveries a dead dispatcher left) are looked for. */
  pollMs: Config.integer("WEBHOOK_POLL_MS").pipe(Config.withDefault(1000)),
  /** A claim lasts this long past the timeout; then another dispatcher may take the delivery over. */
  leaseMarginMs: Config.integer("WEBHOOK_LEASE_MARGIN_MS").pipe(Config.withDefault(15_000)),
  /** Events fanned out at once. */
  fanoutConcurrency: Config.integer("WEBHOOK_FANOUT_CONCURRENCY").pipe(Config.withDefault(16))
})
export type WebhookSettings = Config.Config.Success<typeof webhookSettings>

export const leaseMsOf = (s: WebhookSettings) => s.timeoutMs + s.leaseMarginMs
