import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { signedMediaUrl, signMediaToken, verifyMediaToken } from "../../../services/platform/storage/signedMediaUrls.js"

const secretKey = Redacted.make("unit-secret")
const key = "ws/renditions/abc-image-jpeg-1080x1080.jpg"

describe("signed media tokens", () => {
  it("name one file and open it until, not at, the expiry", () => {
    const token = signMediaToken(secretKey, { key, expiresAt: 1_000 })
    expect(verifyMediaToken(secretKey, token, 999)).toEqual(Either.right({ key, expiresAt: 1_000 }))
    expect(verifyMediaToken(secretKey, token, 1_000)).toEqual(Either.left("expired"))
  })

  it("do not open under another secret", () => {
    const token = signMediaToken(secretKey, { key, expiresAt: 1_000 })
    expect(verifyMediaToken(Redacted.make("other"), token, 0)).toEqual(Either.left("tampered"))
  })

  it("refuse every other spelling of the signature's last character", () => {
    const token = signMediaToken(secretKey, { key, expiresAt: 1_000 })
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for (const c of alphabet) {
      const other = token.slice(0, -1) + c
      if (other !== token) expect(verifyMediaToken(secretKey, other, 0), c).toEqual(Either.left("tampered"))
    }
  })

  it("make an address under PUBLIC_URL that expires after the time given", () => {
    const { url, expiresAt } = signedMediaUrl({ secretKey, publicUrl: "https://sched.example" }, key, 3600, 1_700_000_000_000)
    expect(url).toMatch(/^https:\/\/sched\.example\/media-files\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    expect(expiresAt.getTime()).toBe(1_700_003_600_000)
    const token = url.split("/").pop()!
    expect(Either.isRight(verifyMediaToken(secretKey, token, 1_700_003_599))).toBe(true)
    expect(verifyMediaToken(secretKey, token, 1_700_003_600)).toEqual(Either.left("expired"))
  })
})
