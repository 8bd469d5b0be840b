import { describe, expect, it } from "vitest"
import { DAY_MS, expiresAtOf, expiryToWarnOf, holdsRefreshToken } from "../../domain/channelHealth.js"

/** When a channel's token expiry is warned about (docs/networks.md, "Channel health and expiry warnings"). */

const now = new Date("2030-01-01T00:00:00.000Z")
const inDays = (days: number) => new Date(now.getTime() + days * DAY_MS).toISOString()
const warn = (credentials: Record<string, unknown>, shortLivedTokens = false) =>
  expiryToWarnOf({ credentials, now, warningDays: 3, shortLivedTokens })

describe("channel health: the token's expiry and its warning", () => {
  it("reads expiresAt (ISO 8601, or milliseconds) and whether a refresh token is held", () => {
    expect(expiresAtOf({ expiresAt: inDays(2) })?.toISOString()).toBe(inDays(2))
    expect(expiresAtOf({ expiresAt: now.getTime() })?.toISOString()).toBe(now.toISOString())
    expect(expiresAtOf({ expiresAt: "soon" })).toBeNull()
    expect(expiresAtOf({})).toBeNull()
    expect(holdsRefreshToken({ refreshToken: "r" })).toBe(true)
    expect(holdsRefreshToken({ refreshToken: "" })).toBe(false)
    expect(holdsRefreshToken({})).toBe(false)
  })

  it("warns of an expiry within the window, not of one beyond it or of credentials without one", () => {
    expect(warn({ expiresAt: inDays(2), refreshToken: "r" })?.toISOString()).toBe(inDays(2))
    expect(warn({ expiresAt: inDays(3) })?.toISOString()).toBe(inDays(3))
    expect(warn({ expiresAt: inDays(3.01) })).toBeNull()
    expect(warn({ token: "t" })).toBeNull()
  })

  it("short-lived tokens are renewed routinely: no warning while a refresh token is held, a warning without one", () => {
    expect(warn({ expiresAt: inDays(0.05), refreshToken: "r" }, true)).toBeNull()
    expect(warn({ expiresAt: inDays(0.05) }, true)?.toISOString()).toBe(inDays(0.05))
  })
})
