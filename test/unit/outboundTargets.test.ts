import { Effect, Layer } from "effect"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { OutboundError } from "../../services/platform/outbound/errors.js"
import { OutboundHttp, OutboundHttpLive, outboundHttpWithResolver } from "../../services/platform/outbound/outboundHttp.js"
import type { Resolver } from "../../services/platform/outbound/resolver.js"
import { safeFetch } from "../../services/platform/outbound/safeFetch.js"
import {
  makeOutboundHttpForTests,
  OutboundHttpTest,
  startLoopbackServer,
  watchClientSockets,
  type LoopbackServer
} from "../../services/platform/outbound/testing.js"

// Every target below is refused before a socket exists; the loopback server (127.0.0.1 only)
// and the socket counter prove it. Names are answered by injected resolvers, never real DNS.

const refusedV4 = [
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
  "１２７.０.０.１"
]
const refusedV6 = [
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
  "[100::1]"
]

const failure = (effect: Effect.Effect<unknown, OutboundError>) => Effect.runPromise(Effect.flip(effect))

/** A resolver from a fixed table that records what it was asked. */
const tableResolver = (table: Readonly<Record<string, ReadonlyArray<string>>>) => {
  const asked: Array<string> = []
  const resolver: Resolver = async (hostname) => {
    asked.push(hostname)
    const answers = table[hostname]
    if (answers === undefined) throw new Error(`ENOTFOUND ${hostname}`)
    return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  return { asked, resolver }
}

let server: LoopbackServer
let sockets: ReturnType<typeof watchClientSockets>
let connectionsBefore = 0
beforeAll(async () => {
  server = await startLoopbackServer()
})
afterAll(() => server.close())
beforeEach(() => {
  sockets = watchClientSockets()
  connectionsBefore = server.connections()
})
afterEach(() => sockets.stop())

const expectNoConnection = () => {
  expect(sockets.count()).toBe(0)
  expect(server.connections()).toBe(connectionsBefore)
}

describe("IP literals are classified after WHATWG parsing", () => {
  const never = tableResolver({})

  it.each([...refusedV4, ...refusedV6])("refuses http://%s", async (host) => {
    const port = server.origin.port
    const error = await failure(safeFetch({ url: `http://${host}:${port}/` }, { resolver: never.resolver }))
    expect(error._tag).toBe("ForbiddenAddress")
    expectNoConnection()
    expect(never.asked).toEqual([])
  })

  it.each(["https://127.0.0.1/", "https://[::1]:8443/", "http://[::ffff:7f00:1]/", "http://0x7f000001/"])("refuses %s", async (url) => {
    expect((await failure(safeFetch({ url }, { resolver: never.resolver })))._tag).toBe("ForbiddenAddress")
    expectNoConnection()
  })
})

describe("URL tricks", () => {
  const { asked, resolver } = tableResolver({ "a.test": ["127.0.0.1"] })

  it.each([
    ["userinfo", `http://user@127.0.0.1:1/`],
    ["user and password", "http://user:pass@a.test/"],
    ["empty password", "http://user:@a.test/"],
    ["backslash authority", "http:\\\\127.0.0.1\\"],
    ["backslash before @", "http://a.test\\@127.0.0.1/"],
    ["backslash after host", "http://127.0.0.1\\@a.test/"],
    ["file:", "file:///etc/passwd"],
    ["gopher:", "gopher://127.0.0.1:6379/_INFO"],
    ["ftp:", "ftp://127.0.0.1/"],
    ["data:", "data:text/plain,hello"],
    ["javascript:", "javascript:alert(1)"],
    ["ws:", "ws://127.0.0.1/"],
    ["wss:", "wss://a.test/"],
    ["not a URL", "not a url"],
    ["relative", "/admin"]
  ])("refuses %s", async (_case, url) => {
    expect((await failure(safeFetch({ url }, { resolver })))._tag).toBe("BadUrl")
    expectNoConnection()
    expect(asked).toEqual([])
  })

  it("http://a.test#@127.0.0.1/ checks a.test (the host), not what follows the #", async () => {
    const error = await failure(safeFetch({ url: `http://a.test#@127.0.0.1:${server.origin.port}/` }, { resolver }))
    expect(error).toMatchObject({ _tag: "ForbiddenAddress", address: "127.0.0.1" })
    expect(asked).toEqual(["a.test"])
    expectNoConnection()
  })
})

describe("names, with an injected resolver", () => {
  it.each([
    "localhost",
    "localhost.",
    "LOCALHOST",
    "a.localhost",
    "a.b.localhost.",
    "metadata.google.internal",
    "metadata.google.internal.",
    "metadata",
    "intranet"
  ])("refuses %s before resolving it", async (name) => {
    const { asked, resolver } = tableResolver({ [name.toLowerCase()]: ["8.8.8.8"] })
    const error = await failure(safeFetch({ url: `http://${name}:${server.origin.port}/` }, { resolver }))
    expect(error._tag).toBe("ForbiddenAddress")
    expect(asked).toEqual([])
    expectNoConnection()
  })

  it("refuses a name that resolves to loopback", async () => {
    const { resolver } = tableResolver({ "loop.test": ["127.0.0.1"] })
    const error = await failure(safeFetch({ url: `http://loop.test:${server.origin.port}/` }, { resolver }))
    expect(error).toMatchObject({ _tag: "ForbiddenAddress", address: "127.0.0.1" })
    expectNoConnection()
  })

  // Here the origin server stands in for a public address, so nothing can leave loopback.
  const clientFor = (table: Readonly<Record<string, ReadonlyArray<string>>>) => {
    const recorded = tableResolver(table)
    return { ...recorded, client: makeOutboundHttpForTests({ resolver: recorded.resolver, allow: [server.origin] }) }
  }

  it.each([
    ["public A and private AAAA", ["127.0.0.1", "::1"], "::1"],
    ["public A and link-local AAAA", ["127.0.0.1", "fe80::1"], "fe80::1"],
    ["several A, one private", ["127.0.0.1", "127.0.0.1", "10.0.0.1"], "10.0.0.1"],
    ["several A, one loopback elsewhere", ["127.0.0.1", "127.0.0.2"], "127.0.0.2"],
    ["private first", ["169.254.169.254", "127.0.0.1"], "169.254.169.254"],
    ["an answer that is not an IP", ["127.0.0.1", "example.com"], "example.com"]
  ])("refuses a name with %s", async (_case, answers, refused) => {
    const { client } = clientFor({ "mixed.test": answers })
    const error = await failure(client.fetch({ url: `http://mixed.test:${server.origin.port}/` }))
    expect(error).toMatchObject({ _tag: "ForbiddenAddress", address: refused })
    expectNoConnection()
  })

  it("fails with ConnectionFailed when the name does not resolve", async () => {
    const { client } = clientFor({ "empty.test": [] })
    expect((await failure(client.fetch({ url: "http://empty.test/" })))._tag).toBe("ConnectionFailed")
    expect((await failure(client.fetch({ url: "http://unknown.test/" })))._tag).toBe("ConnectionFailed")
    expectNoConnection()
  })

  it("connects to the checked address of a name allowed by policy, with its Host header", async () => {
    const { client } = clientFor({ "a.test": ["127.0.0.1"] })
    const before = server.requests.length
    const response = await Effect.runPromise(client.fetch({ url: `http://a.test:${server.origin.port}/x?y=1#@10.0.0.1/` }))
    expect(response.status).toBe(200)
    expect(response.body.toString()).toBe("ok")
    expect(server.requests.slice(before)).toMatchObject([{ path: "/x?y=1", headers: { host: `a.test:${server.origin.port}` } }])
  })

  it("DNS rebinding: resolves once and connects only to the address it checked", async () => {
    let calls = 0
    // Public (the allowed origin) first, then loopback elsewhere: a second lookup would land on ::1.
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "::1", family: 6 }])
    const client = makeOutboundHttpForTests({ resolver: rebinding, allow: [server.origin] })
    const response = await Effect.runPromise(client.fetch({ url: `http://rebind.test:${server.origin.port}/rebind` }))
    expect(response.status).toBe(200)
    expect(calls).toBe(1)
    expect(sockets.count()).toBe(1) // the counter does see real connections
    expect(server.connections()).toBe(connectionsBefore + 1)
    expect(server.requests.at(-1)).toMatchObject({ path: "/rebind", headers: { host: `rebind.test:${server.origin.port}` } })
  })

  it("DNS rebinding the other way: a private first answer is refused", async () => {
    let calls = 0
    const rebinding: Resolver = async () => (calls++ === 0 ? [{ address: "10.0.0.1", family: 4 }] : [{ address: "127.0.0.1", family: 4 }])
    const client = makeOutboundHttpForTests({ resolver: rebinding, allow: [server.origin] })
    const error = await failure(client.fetch({ url: `http://rebind.test:${server.origin.port}/` }))
    expect(error).toMatchObject({ _tag: "ForbiddenAddress", address: "10.0.0.1" })
    expect(calls).toBe(1)
    expectNoConnection()
  })
})

describe("OutboundHttp service", () => {
  const fetchThrough = (layer: Layer.Layer<OutboundHttp, never>, url: string) =>
    failure(Effect.flatMap(OutboundHttp, (http) => http.fetch({ url })).pipe(Effect.provide(layer)))

  it("the Live layer refuses loopback", async () => {
    expect((await fetchThrough(Layer.orDie(OutboundHttpLive), `http://127.0.0.1:${server.origin.port}/`))._tag).toBe("ForbiddenAddress")
    expectNoConnection()
  })

  it("a layer with an injected resolver still classifies every answer", async () => {
    const layer = outboundHttpWithResolver(async () => [{ address: "127.0.0.1", family: 4 }])
    expect(await fetchThrough(layer, `http://a.test:${server.origin.port}/`)).toMatchObject({ _tag: "ForbiddenAddress", address: "127.0.0.1" })
    expectNoConnection()
  })

  it("the test layer reaches only the loopback origins it lists", async () => {
    const layer = OutboundHttpTest({ resolver: async () => [{ address: "127.0.0.1", family: 4 }], allow: [server.origin] })
    const response = await Effect.runPromise(
      Effect.flatMap(OutboundHttp, (http) => http.fetch({ url: `http://a.test:${server.origin.port}/` })).pipe(Effect.provide(layer))
    )
    expect(response.status).toBe(200)
    expect((await fetchThrough(layer, "http://a.test:1/"))._tag).toBe("ForbiddenAddress")
  })
})
