import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OutboundError } from "../../services/platform/outbound/errors.js"
import { exchange } from "../../services/platform/outbound/internal/exchange.js"
import { collectBody, limitBody } from "../../services/platform/outbound/internal/body.js"
import { makeConnectionPool } from "../../services/platform/outbound/internal/pool.js"
import type { Resolver } from "../../services/platform/outbound/resolver.js"
import { checkUrl } from "../../services/platform/outbound/targetUrl.js"
import { makeOutboundHttpForTests, startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"

// The client keeps connections alive, but a socket is reused only for the same scheme, host
// and port whose addresses were checked again for this very request, and its peer is
// checked again before the request is written.

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopbackServer()
})
afterAll(() => server.close())

const fixed =
  (table: Readonly<Record<string, ReadonlyArray<string>>>): Resolver =>
  async (hostname) =>
    (table[hostname] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))

const failure = (effect: Effect.Effect<unknown, OutboundError>) => Effect.runPromise(Effect.flip(effect))

describe("keep-alive connection reuse", () => {
  it("sends one request after another over one connection to the same origin", async () => {
    const client = makeOutboundHttpForTests({ resolver: fixed({ "a.test": ["127.0.0.1"] }), allow: [server.origin], keepAlive: true })
    const before = server.connections()
    for (let i = 0; i < 3; i++) {
      const response = await Effect.runPromise(client.fetch({ url: `http://a.test:${server.origin.port}/n${i}`, method: "POST", body: `${i}` }))
      expect(response.status).toBe(200)
    }
    expect(server.connections()).toBe(before + 1)
    expect(server.requests.slice(-3).map((r) => [r.path, r.headers.host, r.body])).toEqual(
      [0, 1, 2].map((i) => [`/n${i}`, `a.test:${server.origin.port}`, `${i}`])
    )
  })

  it("never shares a connection between host names, even on the same address", async () => {
    const client = makeOutboundHttpForTests({
      resolver: fixed({ "a.test": ["127.0.0.1"], "b.test": ["127.0.0.1"] }),
      allow: [server.origin],
      keepAlive: true
    })
    const before = server.connections()
    await Effect.runPromise(client.fetch({ url: `http://a.test:${server.origin.port}/a` }))
    await Effect.runPromise(client.fetch({ url: `http://b.test:${server.origin.port}/b` }))
    expect(server.connections()).toBe(before + 2)
    expect(server.requests.slice(-2).map((r) => r.headers.host)).toEqual([`a.test:${server.origin.port}`, `b.test:${server.origin.port}`])
  })

  it("resolves and checks the name again for every request: a warm connection does not let a private answer through", async () => {
    let calls = 0
    const rebinding: Resolver = async () => [{ address: calls++ === 0 ? "127.0.0.1" : "10.0.0.1", family: 4 }]
    const client = makeOutboundHttpForTests({ resolver: rebinding, allow: [server.origin], keepAlive: true })
    const url = `http://rebind.test:${server.origin.port}/once`
    expect((await Effect.runPromise(client.fetch({ url }))).status).toBe(200)
    const requestsBefore = server.requests.length
    expect(await failure(client.fetch({ url }))).toMatchObject({ _tag: "ForbiddenAddress", address: "10.0.0.1" })
    expect(calls).toBe(2)
    expect(server.requests.length).toBe(requestsBefore)
  })

  it("checks the peer of a reused socket again before a byte of the request is written", async () => {
    const checked = checkUrl(`http://guard.test:${server.origin.port}/pooled`)
    if (Either.isLeft(checked)) throw checked.left
    const addresses = [{ address: "127.0.0.1", family: 4 }] as const
    const pool = makeConnectionPool()
    let allow = true
    const policy = () => (allow ? ({ public: true } as const) : ({ public: false, reason: "refused now" } as const))
    const hop = { method: "POST", headers: {}, body: Buffer.from("x") } as const
    const send = Effect.scoped(
      Effect.flatMap(exchange(checked.right, addresses, hop, policy, pool.agentFor(checked.right, addresses)), (response) =>
        Effect.map(collectBody(limitBody(response, checked.right.url.href, 1024), checked.right.url.href), () => response.statusCode)
      )
    )
    const connectionsBefore = server.connections()
    expect(await Effect.runPromise(send)).toBe(200)
    const requestsBefore = server.requests.length
    allow = false
    expect(await failure(send)).toMatchObject({ _tag: "ForbiddenAddress", address: "127.0.0.1", reason: "refused now" })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(server.requests.length).toBe(requestsBefore)
    expect(server.connections()).toBe(connectionsBefore + 1) // the second request did reuse the socket
    pool.destroy()
  })
})
