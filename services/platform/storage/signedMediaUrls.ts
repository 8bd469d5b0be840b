import { createHmac, timingSafeEqual } from "node:crypto"
import { Either, Redacted } from "effect"

/**
 * Signed, expiring addresses for the files networks fetch themselves (a rendition, its
 * cover): `PUBLIC_URL/media-files/<token>`, served by the gateway with ranges
 * (services/gateway/pages/signedMediaFilesRoute.ts). The token carries one storage key and
 * an expiry, signed with HMAC-SHA256 under a key derived from SECRET_KEY, so it opens that
 * file until then and nothing else: another key, a later expiry or any changed byte fails
 * the signature.
 */

export const MEDIA_FILES_PATH = "/media-files/"

/** Why a token does not open a file. */
export type MediaTokenRefusal = "malformed" | "tampered" | "expired"

export interface SignedMediaFile {
  readonly key: string
  /** Unix seconds. */
  readonly expiresAt: number
}

/** A storage key: slash-separated names of letters, digits, `.`, `_`, `-`; no empty, `.` or `..` segment. */
export const isSignableKey = (key: string): boolean =>
  key.length > 0 && key.length <= 512 && key.split("/").every((segment) => /^[A-Za-z0-9._-]+$/.test(segment) && segment !== "." && segment !== "..")

/** Its own key, so a token's signature can never be confused with another use of SECRET_KEY. */
const signingKey = (secretKey: Redacted.Redacted) => createHmac("sha256", Redacted.value(secretKey)).update("post-scheduler media-files v1").digest()

const mac = (secretKey: Redacted.Redacted, payload: string) => createHmac("sha256", signingKey(secretKey)).update(payload).digest()

/** `<base64url(expiresAt:key)>.<base64url(hmac)>`. */
export const signMediaToken = (secretKey: Redacted.Redacted, file: SignedMediaFile): string => {
  if (!isSignableKey(file.key)) throw new Error(`not a storage key: ${file.key}`)
  const payload = Buffer.from(`${Math.floor(file.expiresAt)}:${file.key}`, "utf8").toString("base64url")
  return `${payload}.${mac(secretKey, payload).toString("base64url")}`
}

export const verifyMediaToken = (
  secretKey: Redacted.Redacted,
  token: string,
  nowSeconds: number
): Either.Either<SignedMediaFile, MediaTokenRefusal> => {
  const match = /^([A-Za-z0-9_-]{1,1024})\.([A-Za-z0-9_-]{43})$/.exec(token)
  if (match === null) return Either.left("malformed")
  const [, payload = "", signature = ""] = match
  // compared as text: decoding first would accept other spellings of the last character (its unused low bits)
  const given = Buffer.from(signature, "latin1")
  const expected = Buffer.from(mac(secretKey, payload).toString("base64url"), "latin1")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return Either.left("tampered")
  const text = Buffer.from(payload, "base64url").toString("utf8")
  const colon = text.indexOf(":")
  const expiresAt = Number(text.slice(0, colon))
  const key = text.slice(colon + 1)
  if (colon < 1 || !Number.isSafeInteger(expiresAt) || !isSignableKey(key)) return Either.left("malformed")
  if (nowSeconds >= expiresAt) return Either.left("expired")
  return Either.right({ key, expiresAt })
}

/** The address a network fetches `key` at, valid for `ttlSeconds` from `nowMs`. */
export const signedMediaUrl = (
  options: { readonly secretKey: Redacted.Redacted; readonly publicUrl: string },
  key: string,
  ttlSeconds: number,
  nowMs: number = Date.now()
): { readonly url: string; readonly expiresAt: Date } => {
  const expiresAt = Math.floor(nowMs / 1000) + Math.max(1, Math.floor(ttlSeconds))
  const token = signMediaToken(options.secretKey, { key, expiresAt })
  return { url: `${options.publicUrl}${MEDIA_FILES_PATH}${token}`, expiresAt: new Date(expiresAt * 1000) }
}
