import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isAllowedOrigin, parseOutboundAllow } from "../../services/platform/outbound/allowList.js"
import { makeOutboundHttp } from "../../services/platform/outbound/outboundHttp.js"
import { startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"

const fixedResolver = (table: Readonly<Record<string, ReadonlyArray<string>>>) => (name: string) =>
  Promise.resolve((table[name] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 })))

const parse = (text: string) =>
  Effect.runPromise(Effect.either(parseOutboundAllow(text, fixedResolver({ "sim.lan": ["10.0.0.7"], localhost: ["127.0.0.1", "::1"] }))))

describe("OUTBOUND_ALLOW: host:port origins that may be private", () => {
  it.each([
    ["", []],
    ["127.0.0.1:4000", [{ address: "127.0.0.1", port: 4000 }]],
    [
      " 127.0.0.1:4000 , [::1]:4001 ",
      [
        { address: "127.0.0.1", port: 4000 },
        { address: "::1", port: 4001 }
      ]
    ],
    ["sim.lan:8080", [{ address: "10.0.0.7", port: 8080 }]],
    [
      "localhost:9000",
      [
        { address: "127.0.0.1", port: 9000 },
        { address: "::1", port: 9000 }
      ]
    ]
  ])("%j is read as %j", async (text, expected) => {
    expect(await parse(text)).toEqual(Either.right(expected))
  })

  it.each(["127.0.0.1", "http://127.0.0.1:4000", "127.0.0.1:0", "127.0.0.1:70000", "[127.0.0.1]:80", "a b:1"])(
    "%j is refused at start",
    async (text) => {
      const result = await parse(text)
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left.message).toContain("OUTBOUND_ALLOW")
    }
  )

  it("allows the address AND port only; a v4-mapped v6 peer counts as its v4 address", () => {
    const origins = [{ address: "127.0.0.1", port: 4000 }]
    expect(isAllowedOrigin(origins, "127.0.0.1", 4000)).toBe(true)
    expect(isAllowedOrigin(origins, "::ffff:127.0.0.1", 4000)).toBe(true)
    expect(isAllowedOrigin(origins, "127.0.0.1", 4001)).toBe(false)
    expect(isAllowedOrigin(origins, "127.0.0.2", 4000)).toBe(false)
  })
})

describe("the production client with OUTBOUND_ALLOW", () => {
  let allowed: LoopbackServer
  let other: LoopbackServer
  beforeAll(async () => {
    allowed = await startLoopbackServer((_req, res) => res.end("allowed"))
    other = await startLoopbackServer((_req, res) => res.end("other"))
  })
  afterAll(async () => {
    await allowed.close()
    await other.close()
  })

  it("reaches the listed loopback origin, and still refuses another port of the same host", async () => {
    const client = makeOutboundHttp({ allow: [{ address: "127.0.0.1", port: allowed.origin.port }] })
    const ok = await Effect.runPromise(client.fetch({ url: allowed.url("/") }))
    expect(ok.body.toString()).toBe("allowed")
    const refused = await Effect.runPromise(Effect.flip(client.fetch({ url: other.url("/") })))
    expect(refused._tag).toBe("ForbiddenAddress")
    expect(other.connections()).toBe(0)
  })

  it("a redirect from the allowed origin to a private address is still refused", async () => {
    const redirecting = await startLoopbackServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${other.origin.port}/` })
      res.end()
    })
    try {
      const client = makeOutboundHttp({ allow: [{ address: "127.0.0.1", port: redirecting.origin.port }] })
      const refused = await Effect.runPromise(Effect.flip(client.fetch({ url: redirecting.url("/") })))
      expect(refused._tag).toBe("ForbiddenAddress")
      expect(other.connections()).toBe(0)
    } finally {
      await redirecting.close()
    }
  })
})
