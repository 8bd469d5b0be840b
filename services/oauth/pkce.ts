import { createHash } from "node:crypto"

/**
 * PKCE (RFC 7636) with S256, the only method (spec: `plain` refused). A challenge is the
 * base64url SHA-256 of a verifier of 43 to 128 unreserved characters, so always 43 characters.
 */
export const isS256Challenge = (challenge: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(challenge)

export const pkceMatches = (verifier: string, challenge: string): boolean =>
  /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier) && createHash("sha256").update(verifier, "ascii").digest("base64url") === challenge
