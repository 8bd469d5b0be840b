/**
 * Channel health (docs/networks.md, "Channel health and expiry warnings"): what the stored
 * credentials say about the token's expiry, and when that expiry is warned about with
 * `channel.expiring`. Credentials are read generically: every adapter of an expiring
 * network stores `expiresAt` (ISO 8601) and, when the network gave one, `refreshToken`.
 */

export const DAY_MS = 86_400_000

/** The default of CHANNEL_EXPIRY_WARNING_DAYS. */
export const DEFAULT_EXPIRY_WARNING_DAYS = 3

/** The token's expiry, when the credentials carry a readable `expiresAt`. */
export const expiresAtOf = (credentials: Readonly<Record<string, unknown>>): Date | null => {
  const value = credentials["expiresAt"]
  const ms = typeof value === "string" ? Date.parse(value) : typeof value === "number" ? value : Number.NaN
  return Number.isFinite(ms) ? new Date(ms) : null
}

/** Whether the network gave a refresh token (LinkedIn apps without partner refresh get none). */
export const holdsRefreshToken = (credentials: Readonly<Record<string, unknown>>): boolean => {
  const value = credentials["refreshToken"]
  return typeof value === "string" && value !== ""
}

/**
 * Whether a connected channel's expiry is within the warning window. A network whose
 * access tokens live hours (`shortLivedTokens`) renews them routinely: no warning while a
 * refresh token is held. Once per expiry is the statement's that records the warning.
 */
export const expiryToWarnOf = (input: {
  readonly credentials: Readonly<Record<string, unknown>>
  readonly now: Date
  readonly warningDays: number
  readonly shortLivedTokens: boolean
}): Date | null => {
  const expiresAt = expiresAtOf(input.credentials)
  if (expiresAt === null) return null
  if (input.shortLivedTokens && holdsRefreshToken(input.credentials)) return null
  return expiresAt.getTime() - input.now.getTime() <= input.warningDays * DAY_MS ? expiresAt : null
}
