import { Either } from "effect"

/**
 * The replayable event log (docs/webhooks.md, "The event log"): every event of a workspace
 * numbered 1, 2, 3 … with no gaps, listed after a cursor, kept as long as the webhook log.
 */

/** How long events are kept: the webhook delivery log's window. */
export const EVENT_LOG_DAYS = 30

export const EVENTS_DEFAULT_LIMIT = 100
export const EVENTS_MAX_LIMIT = 1000

/** The most events one replay sends again. */
export const REPLAY_MAX_EVENTS = 10_000

export const EventLogMessages = {
  badAfter: {
    message: "after must be a sequence number: a whole number, 0 or more.",
    fix: "Pass the sequence of the last event you have (X-Service-Sequence of a delivery, or cursor of the last page), or 0 for the oldest kept."
  },
  badLimit: {
    message: `limit must be a whole number from 1 to ${EVENTS_MAX_LIMIT}.`,
    fix: `Leave it out for ${EVENTS_DEFAULT_LIMIT}, or pass 1 to ${EVENTS_MAX_LIMIT}.`
  }
} as const

const wholeNumber = /^(0|[1-9][0-9]{0,15})$/

/** `after` as given in a query or a body: absent is 0 (from the oldest kept). */
export const parseAfter = (raw: string | number | undefined): Either.Either<number, typeof EventLogMessages.badAfter> => {
  if (raw === undefined) return Either.right(0)
  const text = typeof raw === "number" ? String(raw) : raw
  return wholeNumber.test(text) && Number.isSafeInteger(Number(text)) ? Either.right(Number(text)) : Either.left(EventLogMessages.badAfter)
}

export const parseLimit = (raw: string | undefined): Either.Either<number, typeof EventLogMessages.badLimit> => {
  if (raw === undefined) return Either.right(EVENTS_DEFAULT_LIMIT)
  const n = wholeNumber.test(raw) ? Number(raw) : Number.NaN
  return n >= 1 && n <= EVENTS_MAX_LIMIT ? Either.right(n) : Either.left(EventLogMessages.badLimit)
}
