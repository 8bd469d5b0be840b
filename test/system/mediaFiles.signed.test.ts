import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signedMediaUrl, signMediaToken } from "../../services/platform/storage/signedMediaUrls.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

let world: TestWorld
let sys: RunningServices
let dataDir: string

/** The world's SECRET_KEY (test/support/system.ts): what the gateway verifies with. */
const secretKey = Redacted.make("test-secret-key")
const key = "6f1c1f0e-8a4e-4d7e-9a55-0d7b8f3f2a11/renditions/0b8e3f5c-video-h264-1280x720.mp4"
const otherKey = "6f1c1f0e-8a4e-4d7e-9a55-0d7b8f3f2a11/0b8e3f5c-2d4a-4c1b-8e9f-7a6b5c4d3e2f.jpg"
const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7) % 256))

beforeAll(async () => {
  world = await createWorld("mediafiles")
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "media-files-test-"))
  for (const [k, content] of [
    [key, bytes],
    [otherKey, Buffer.from("another file")]
  ] as const) {
    const file = path.join(dataDir, "media", ...k.split("/"))
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, content)
  }
  sys = await startServices(world, ["gateway"], { DATA_DIR: dataDir })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await fs.rm(dataDir, { recursive: true, force: true })
})

/** The signed address on this gateway's real port. */
const addressOf = (k: string, ttlSeconds = 600, nowMs = Date.now()) => {
  const { url } = signedMediaUrl({ secretKey, publicUrl: "http://127.0.0.1" }, k, ttlSeconds, nowMs)
  expect(url.startsWith("http://127.0.0.1/media-files/")).toBe(true)
  return `${sys.url}${new URL(url).pathname}`
}

describe("GET /media-files/<token>: the signed file, with ranges", () => {
  it("sends the whole file with its type and length", async () => {
    const res = await fetch(addressOf(key))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("video/mp4")
    expect(res.headers.get("content-length")).toBe(String(bytes.length))
    expect(res.headers.get("accept-ranges")).toBe("bytes")
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true)
  })

  it("answers byte ranges with 206 and Content-Range, and 416 past the end", async () => {
    const url = addressOf(key)
    const part = await fetch(url, { headers: { range: "bytes=100-199" } })
    expect(part.status).toBe(206)
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${bytes.length}`)
    expect(part.headers.get("content-length")).toBe("100")
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true)

    const tail = await fetch(url, { headers: { range: "bytes=-500" } })
    expect(tail.status).toBe(206)
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 500))).toBe(true)

    const open = await fetch(url, { headers: { range: "bytes=9000-" } })
    expect(open.headers.get("content-range")).toBe(`bytes 9000-9999/${bytes.length}`)
    expect((await open.arrayBuffer()).byteLength).toBe(1000)

    const beyond = await fetch(url, { headers: { range: `bytes=${bytes.length}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get("content-range")).toBe(`bytes */${bytes.length}`)

    const head = await fetch(url, { method: "HEAD" })
    expect([head.status, head.headers.get("content-length")]).toEqual([200, String(bytes.length)])
  })

  it("fails once the address has expired", async () => {
    const expired = await fetch(addressOf(key, 60, Date.now() - 61_000))
    expect(expired.status).toBe(410)
    expect(await expired.text()).toContain("expired")
  })

  it("fails when the token is changed: another file, a later expiry, any byte", async () => {
    const good = new URL(addressOf(key)).pathname.split("/").pop()!
    const [payload, signature] = good.split(".") as [string, string]
    // the same signature on a payload naming another file, or a later expiry
    const forged = (text: string) => `${Buffer.from(text).toString("base64url")}.${signature}`
    const expiresAt = Number(Buffer.from(payload, "base64url").toString().split(":")[0])
    for (const token of [
      forged(`${expiresAt}:${otherKey}`),
      forged(`${expiresAt + 3600}:${key}`),
      forged(`${expiresAt}:../../etc/passwd`),
      `${payload}.${signature.slice(0, -1)}${signature.endsWith("A") ? "B" : "A"}`,
      `${payload}x.${signature}`,
      "not-a-token",
      // signed with another secret
      signMediaToken(Redacted.make("another-secret"), { key, expiresAt })
    ]) {
      const res = await fetch(`${sys.url}/media-files/${token}`)
      expect(res.status, token).toBe(403)
    }
    // the file the token names, and no other
    const other = await fetch(addressOf(otherKey))
    expect(await other.text()).toBe("another file")
  })

  it("cannot sign an address for a path outside storage", () => {
    for (const bad of ["../secret", "a/../../b", "/etc/passwd", "a//b", ""]) {
      expect(() => signMediaToken(secretKey, { key: bad, expiresAt: 2e9 }), bad).toThrow()
    }
  })

  it("answers 404 for a signed key that is not stored", async () => {
    expect((await fetch(addressOf("6f1c1f0e/missing.mp4"))).status).toBe(404)
  })
})
