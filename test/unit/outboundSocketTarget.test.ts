import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { makeOutboundHttp } from "../../services/platform/outbound/outboundHttp.js"

/** WebSocket addresses (Nostr relays) under the outbound rules: checked like any other address. */

const names: Readonly<Record<string, ReadonlyArray<string>>> = {
  "relay.example": ["93.184.216.34"],
  "inside.example": ["10.1.2.3"],
  "mixed.example": ["93.184.216.34", "192.168.0.9"]
}
const resolver = (name: string) => Promise.resolve((names[name] ?? []).map((address) => ({ address, family: 4 })))

const client = makeOutboundHttp({ resolver, allow: [{ address: "127.0.0.1", port: 7777 }] })
const target = (url: string) => Effect.runPromise(Effect.either(client.socketTarget(url)))

describe("outbound socketTarget", () => {
  it("a public wss:// relay: its checked address is the only one the lookup answers", async () => {
    const result = await target("wss://relay.example/path")
    if (Either.isLeft(result)) throw new Error(result.left._tag)
    expect(result.right.url.href).toBe("wss://relay.example/path")
    const looked = await new Promise<string>((resolve, reject) =>
      result.right.lookup("relay.example", {}, (error, address) => (error ? reject(error) : resolve(String(address))))
    )
    expect(looked).toBe("93.184.216.34")
    expect(result.right.peerAllowed("93.184.216.34", 443)).toBe(true)
    expect(result.right.peerAllowed("10.0.0.1", 443)).toBe(false)
  })

  it.each([
    ["ws://127.0.0.1:4000", "ForbiddenAddress"],
    ["ws://10.0.0.5", "ForbiddenAddress"],
    ["wss://inside.example", "ForbiddenAddress"],
    ["wss://mixed.example", "ForbiddenAddress"],
    ["ws://localhost:7777", "ForbiddenAddress"],
    ["https://relay.example", "BadUrl"],
    ["wss://user:pw@relay.example", "BadUrl"],
    ["relay.example", "BadUrl"]
  ])("%s is refused (%s) before any connection", async (url, tag) => {
    const result = await target(url)
    expect(Either.isLeft(result) && result.left._tag).toBe(tag)
  })

  it("a private relay listed in OUTBOUND_ALLOW (address and port) is allowed, its other ports are not", async () => {
    expect(Either.isRight(await target("ws://127.0.0.1:7777/relay"))).toBe(true)
    expect(Either.isLeft(await target("ws://127.0.0.1:7778/relay"))).toBe(true)
  })
})
