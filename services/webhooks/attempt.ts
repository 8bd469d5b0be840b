import { Effect } from "effect"
import { MAX_REDIRECTS, pausedReason, waitAfterAttempt } from "../../domain/webhooks.js"
import { webhookDeliveries } from "../platform/metrics.js"
import type { OutboundError } from "../platform/outbound/errors.js"
import type { OutboundHttpShape } from "../platform/outbound/outboundHttp.js"
import { decryptSecret } from "../platform/secrets.js"
import type { Redacted } from "effect"
import type { AttemptResult, ClaimedDelivery, DeliveriesRepo } from "./deliveriesRepo.js"
import { deliveryHeaders } from "./signatures.js"
import { withSpan } from "../platform/tracing.js"

/** How attempts are made (docs/webhooks.md, "Configuration"). */
export interface AttemptSettings {
  /** WEBHOOK_TIMEOUT_MS: the receiver must answer within this (spec: 15 s). */
  readonly timeoutMs: number
  /** WEBHOOK_RETRY_BASE_MS: the wait before attempt 2; later waits double (spec: about 15 s). */
  readonly retryBaseMs: number
}

export interface AttemptDeps {
  readonly store: DeliveriesRepo
  readonly outbound: OutboundHttpShape
  readonly secretKey: Redacted.Redacted
  readonly settings: AttemptSettings
  /** Run once the receiver has answered (or failed), before the outcome is written: frees the dispatcher's slot. */
  readonly sent?: Effect.Effect<void>
}

export const INTERRUPTED = "The dispatcher stopped during this attempt; it was tried again."

/** The plain-language error of a failed attempt (null when it worked). */
const errorOf = (e: OutboundError, timeoutMs: number): string => {
  switch (e._tag) {
    case "OutboundTimeout":
      return `No answer within ${Math.round(timeoutMs / 1000)} seconds.`
    case "ConnectionFailed":
      return `Could not reach the receiver: ${e.reason}.`
    case "ForbiddenAddress":
      return `The address ${e.url} is not public (${e.reason}); webhooks are only sent to public addresses.`
    case "TooManyRedirects":
      return `More than ${e.maxRedirects} redirects.`
    case "BadUrl":
      return `The address cannot be used: ${e.reason}.`
    case "ResponseTooLarge":
      return `The answer was larger than ${e.maxBytes} bytes.`
    case "UnexpectedContentType":
      return `Unexpected answer of type ${e.contentType}.`
  }
}

/**
 * The body, with the event's data spliced in as stored (the outbox's encoding), so every
 * attempt carries exactly the same data; createdAt is when this attempt is sent.
 */
export const deliveryBody = (event: string, sentAt: Date, data: string) =>
  `{"event":${JSON.stringify(event)},"createdAt":${JSON.stringify(sentAt.toISOString())},"data":${data}}`

/** POSTs one attempt, signed with the webhook's secret as it is now; never fails. */
const send = (d: ClaimedDelivery, deps: AttemptDeps): Effect.Effect<AttemptResult> =>
  Effect.gen(function* () {
    const sentAt = new Date()
    const secret = decryptSecret(deps.secretKey, d.secret)
    const body = deliveryBody(d.event, sentAt, d.data)
    const headers = deliveryHeaders({ secret, deliveryId: d.id, event: d.event, body, sentAt, sequence: d.sequence })
    return yield* deps.outbound
      .fetch({ url: d.url, method: "POST", headers, body, timeoutMs: deps.settings.timeoutMs, maxRedirects: MAX_REDIRECTS, maxBytes: 64 * 1024 })
      .pipe(
        Effect.map((res): AttemptResult => {
          const ok = res.status >= 200 && res.status < 300
          return { status: res.status, ok, sentAt, error: ok ? null : `The receiver answered ${res.status}.` }
        }),
        Effect.catchAll((e) => Effect.succeed<AttemptResult>({ status: null, ok: false, sentAt, error: errorOf(e, deps.settings.timeoutMs) }))
      )
  })

/**
 * One claimed delivery: an attempt cut off earlier is logged first; a webhook switched
 * off or paused by its plan gets no attempt; else it is sent and the outcome recorded,
 * with the next attempt's time after a failure (doubling waits) until the last one.
 * Answers the logged result of the attempt made (undefined when none was made).
 */
export const runAttempt = (d: ClaimedDelivery, deps: AttemptDeps) =>
  Effect.gen(function* () {
    let attempt = d.attempt
    if (d.interruptedAt !== null) {
      yield* deps.store.closeInterrupted(d, d.interruptedAt, INTERRUPTED)
      attempt += 1
      if (attempt > d.maxAttempts) {
        yield* deps.store.finish(d, "failed")
        return undefined
      }
    }
    if (!d.active || pausedReason(d.plan, d.rank) !== null) {
      yield* deps.store.finish(d, "stopped")
      return undefined
    }
    const result = yield* send(d, deps)
    if (deps.sent !== undefined) yield* deps.sent
    const nextAt =
      result.ok || attempt >= d.maxAttempts ? null : new Date(result.sentAt.getTime() + waitAfterAttempt(attempt, deps.settings.retryBaseMs))
    const logId = crypto.randomUUID()
    yield* deps.store.recordAttempt(d, logId, attempt, result, { nextAt })
    webhookDeliveries.inc({ outcome: result.ok ? "delivered" : nextAt === null ? "gave_up" : "failed" })
    return { id: logId, attempt, ...result }
  }).pipe(withSpan("webhooks.attempt", { attributes: { deliveryId: d.id, event: d.event } }))
