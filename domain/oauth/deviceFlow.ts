import { Either } from "effect"
import { OAuthErrors, type OAuthProblem } from "./errors.js"

/**
 * The device flow (spec: Device authorization; RFC 8628): a device code is pending until
 * the person approves or denies it on the verification page, expires after 600 seconds,
 * and gives its token once. The poll answers of the spec's table, as one function.
 */

/** What a poll found (read and changed atomically in Redis: services/oauth/shortLivedState.ts). */
export type DevicePoll =
  | { readonly _tag: "Unknown" }
  | { readonly _tag: "Expired" }
  | { readonly _tag: "Pending" }
  | { readonly _tag: "TooFast" }
  | { readonly _tag: "Denied" }
  | { readonly _tag: "Approved"; readonly workspaceId: string; readonly userId: string }

export const pollAnswer = (poll: DevicePoll): Either.Either<{ readonly workspaceId: string; readonly userId: string }, OAuthProblem> => {
  switch (poll._tag) {
    case "Unknown":
      return Either.left(OAuthErrors.unknownDeviceCode())
    case "Expired":
      return Either.left(OAuthErrors.expiredToken())
    case "Pending":
      return Either.left(OAuthErrors.authorizationPending())
    case "TooFast":
      return Either.left(OAuthErrors.slowDown())
    case "Denied":
      return Either.left(OAuthErrors.accessDenied())
    case "Approved":
      return Either.right({ workspaceId: poll.workspaceId, userId: poll.userId })
  }
}

/**
 * User codes: 8 consonants shown as XXXX-XXXX (RFC 8628 6.1: no vowels, so no words;
 * case and dashes do not matter when typed). 20^8 codes, tried at most 30 an hour per address.
 */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"

/** A user code from 8 random bytes. */
export const userCodeFrom = (random: Uint8Array): string => {
  const letters = Array.from(random.slice(0, 8), (b) => USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length] ?? "B").join("")
  return `${letters.slice(0, 4)}-${letters.slice(4)}`
}

/** What the person typed, as the stored form (XXXX-XXXX), or null when it cannot be a code. */
export const normalizeUserCode = (typed: string): string | null => {
  const letters = typed.toUpperCase().replace(/[\s-]/g, "")
  if (letters.length !== 8 || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) return null
  return `${letters.slice(0, 4)}-${letters.slice(4)}`
}
