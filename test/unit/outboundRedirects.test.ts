import type http from "node:http"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OutboundHttpShape } from "../../services/platform/outbound/outboundHttp.js"
import type { Resolver } from "../../services/platform/outbound/resolver.js"
import { makeOutboundHttpForTests, startLoopbackServer, watchClientSockets, type LoopbackServer } from "../../services/platform/outbound/testing.js"

// The origin (127.0.0.1:P) is allowed for tests; it redirects to forbidden targets aimed at a
// trap server (127.0.0.1:Q, not allowed) that must never see a connection.

const routes: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? "/", "http://origin")
  const hops = /^\/chain\/(\d+)$/.exec(url.pathname)?.[1]
  if (url.pathname === "/redirect") {
    res.writeHead(Number(url.searchParams.get("code")), { location: url.searchParams.get("to") ?? "" }).end()
  } else if (hops !== undefined) {
    const left = Number(hops)
    if (left === 0) res.end("end of chain")
    else res.writeHead(302, { location: `/chain/${left - 1}` }).end()
  } else if (url.pathname === "/no-location") {
    res.writeHead(302).end("moved, but where?")
  } else {
    res.end(`${req.method} ${url.pathname}`)
  }
}

const resolver: Resolver = async (hostname) => {
  const table: Record<string, ReadonlyArray<string>> = {
    "private.test": ["10.0.0.1"],
    "metadata.test": ["169.254.169.254"],
    "dual.test": ["127.0.0.1", "::1"]
  }
  return (table[hostname] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
}

let origin: LoopbackServer
let other: LoopbackServer
let trap: LoopbackServer
let client: OutboundHttpShape
beforeAll(async () => {
  origin = await startLoopbackServer(routes)
  other = await startLoopbackServer(routes)
  trap = await startLoopbackServer()
  client = makeOutboundHttpForTests({ resolver, allow: [origin.origin, other.origin] })
})
afterAll(async () => {
  await Promise.all([origin.close(), other.close(), trap.close()])
})

const forbiddenTargets = (q: number): ReadonlyArray<readonly [string, "ForbiddenAddress" | "BadUrl"]> => {
  const hosts = [
    "127.0.0.1",
    "127.1",
    "0x7f.1",
    "0177.0.0.1",
    "2130706433",
    "0",
    "0.0.0.0",
    "10.0.0.1",
    "172.16.0.1",
    "192.168.0.1",
    "169.254.169.254",
    "0xA9FEA9FE",
    "2852039166",
    "100.64.0.1",
    "192.0.0.8",
    "198.18.0.1",
    "224.0.0.1",
    "240.0.0.1",
    "255.255.255.255",
    "[::1]",
    "[::]",
    "[::ffff:127.0.0.1]",
    "[::ffff:a9fe:a9fe]",
    "[::127.0.0.1]",
    "[64:ff9b::a9fe:a9fe]",
    "[2002:7f00:1::]",
    "[2001:0:1::1]",
    "[fc00::1]",
    "[fd00::1]",
    "[fe80::1]",
    "[fec0::1]",
    "[ff02::1]",
    "[100::1]",
    "localhost",
    "localhost.",
    "a.localhost",
    "metadata.google.internal",
    "private.test",
    "metadata.test",
    "dual.test"
  ]
  return [
    ...hosts.map((host) => [`http://${host}:${q}/`, "ForbiddenAddress"] as const),
    [`https://127.0.0.1:${q}/`, "ForbiddenAddress"],
    [`//127.0.0.1:${q}/`, "ForbiddenAddress"],
    [`//2130706433:${q}/`, "ForbiddenAddress"],
    [`//[::1]:${q}/`, "ForbiddenAddress"],
    [`//private.test/`, "ForbiddenAddress"],
    [`http://user@127.0.0.1:${q}/`, "BadUrl"],
    [`http:\\\\127.0.0.1:${q}\\`, "BadUrl"],
    ["file:///etc/passwd", "BadUrl"],
    [`gopher://127.0.0.1:${q}/_x`, "BadUrl"],
    [`ftp://127.0.0.1:${q}/`, "BadUrl"],
    ["data:text/plain,x", "BadUrl"],
    ["javascript:alert(1)", "BadUrl"],
    [`ws://127.0.0.1:${q}/`, "BadUrl"]
  ]
}

const redirectUrl = (code: number, to: string) => origin.url(`/redirect?code=${code}&to=${encodeURIComponent(to)}`)

describe("redirects: every hop is checked again", () => {
  it.each([301, 302, 303, 307, 308])("a %i to any forbidden target is refused without connecting", async (code) => {
    for (const [target, tag] of forbiddenTargets(trap.origin.port)) {
      const sockets = watchClientSockets()
      const error = await Effect.runPromise(Effect.flip(client.fetch({ url: redirectUrl(code, target), method: "POST", body: "x" })))
      sockets.stop()
      expect({ target, tag: error._tag }).toEqual({ target, tag })
      expect({ target, sockets: sockets.count() }).toEqual({ target, sockets: 1 }) // the origin only
    }
    expect(trap.connections()).toBe(0)
  })

  it("resolves relative and protocol-relative Locations against the current URL", async () => {
    for (const to of ["/chain/0", "chain/0", `//127.0.0.1:${origin.origin.port}/chain/0`, other.url("/chain/0")]) {
      const response = await Effect.runPromise(client.fetch({ url: redirectUrl(302, to) }))
      expect(response.body.toString()).toBe("end of chain")
      expect(response.url).toMatch(/\/chain\/0$/)
    }
  })

  it("follows 5 hops and refuses a 6th", async () => {
    const five = await Effect.runPromise(client.fetch({ url: origin.url("/chain/5") }))
    expect([five.status, five.body.toString(), five.url]).toEqual([200, "end of chain", origin.url("/chain/0")])
    const before = origin.requests.length
    const error = await Effect.runPromise(Effect.flip(client.fetch({ url: origin.url("/chain/6") })))
    expect(error).toMatchObject({ _tag: "TooManyRedirects", maxRedirects: 5 })
    expect(origin.requests.slice(before).map((r) => r.path)).toEqual(["/chain/6", "/chain/5", "/chain/4", "/chain/3", "/chain/2", "/chain/1"])
  })

  it("honours maxRedirects", async () => {
    const error = await Effect.runPromise(Effect.flip(client.fetch({ url: origin.url("/chain/1"), maxRedirects: 0 })))
    expect(error._tag).toBe("TooManyRedirects")
    const two = await Effect.runPromise(client.fetch({ url: origin.url("/chain/2"), maxRedirects: 2 }))
    expect(two.status).toBe(200)
  })

  it("returns a redirect without Location as it is", async () => {
    const response = await Effect.runPromise(client.fetch({ url: origin.url("/no-location") }))
    expect([response.status, response.body.toString()]).toEqual([302, "moved, but where?"])
  })

  it.each([
    [301, "GET", ""],
    [302, "GET", ""],
    [303, "GET", ""],
    [307, "POST", "payload"],
    [308, "POST", "payload"]
  ])("after a %i a POST continues as %s", async (code, method, body) => {
    const headers = { "content-type": "text/plain" }
    const response = await Effect.runPromise(client.fetch({ url: redirectUrl(code, "/echo"), method: "POST", headers, body: "payload" }))
    expect(response.body.toString()).toBe(`${method} /echo`)
    expect(origin.requests.at(-1)).toMatchObject({ method, body })
  })

  it("drops credentials when a redirect changes origin", async () => {
    const headers = { authorization: "Bearer secret", "x-service-signature": "sha256=00" }
    await Effect.runPromise(client.fetch({ url: redirectUrl(307, other.url("/echo")), headers }))
    const seen = other.requests.at(-1)?.headers
    expect(seen?.["authorization"]).toBeUndefined()
    expect(seen?.["x-service-signature"]).toBe("sha256=00")
  })
})
