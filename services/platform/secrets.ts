import { createCipheriv, createDecipheriv, createHash, hash, randomBytes } from "node:crypto"
import { Redacted } from "effect"

/** SHA-256 of a token: what the database stores instead of the token itself (one-shot: it runs on every request). */
export const tokenHash = (token: string): Buffer => hash("sha256", token, "buffer")

/** A new random token with the given prefix, e.g. `svc_live_…` (32 bytes, base64url). */
export const newToken = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`

/** The AES key of a SECRET_KEY, derived once per key (every publish opens its channel's credentials). */
const keys = new WeakMap<Redacted.Redacted, Buffer>()
const keyOf = (secretKey: Redacted.Redacted): Buffer => {
  const known = keys.get(secretKey)
  if (known !== undefined) return known
  const key = createHash("sha256").update(Redacted.value(secretKey)).digest()
  keys.set(secretKey, key)
  return key
}

/** AES-256-GCM: iv(12) | tag(16) | ciphertext. Used for network credentials and webhook secrets. */
export const encryptSecret = (secretKey: Redacted.Redacted, plain: string): Buffer => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", keyOf(secretKey), iv)
  const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()])
  return Buffer.concat([iv, cipher.getAuthTag(), body])
}

export const decryptSecret = (secretKey: Redacted.Redacted, sealed: Buffer): string => {
  const decipher = createDecipheriv("aes-256-gcm", keyOf(secretKey), sealed.subarray(0, 12))
  decipher.setAuthTag(sealed.subarray(12, 28))
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString("utf8")
}
