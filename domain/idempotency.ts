import { Errors, type InvalidRequest } from "./errors.js"

/**
 * Idempotency-Key (spec: POST /posts rule 4; Limits rule 4): up to 255 characters,
 * remembered 24 hours per workspace; same key and same body (key order irrelevant)
 * replays the first answer; another body is 409 idempotency_key_reused; while the
 * first still runs, 409 still running; only successful answers are kept.
 */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000

/** A refusal of the key itself (too long or blank), else null. */
export const checkIdempotencyKey = (key: string): InvalidRequest | null => {
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return Errors.badRequest(`The Idempotency-Key is longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`)
  }
  if (key.trim() === "") return Errors.badRequest("The Idempotency-Key is empty.")
  return null
}

/** JSON with object keys sorted at every level, so key order does not change the text. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** What a stored record says about a new request with the same key. */
export type StoredAnswer = { readonly requestHash: string; readonly statusCode: number; readonly response: unknown }

export type IdempotencyOutcome = { readonly _tag: "Replay"; readonly statusCode: number; readonly response: unknown } | { readonly _tag: "Reused" }

export const decideWithStored = (stored: StoredAnswer, requestHash: string): IdempotencyOutcome =>
  stored.requestHash === requestHash ? { _tag: "Replay", statusCode: stored.statusCode, response: stored.response } : { _tag: "Reused" }
