import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { exchange } from "../../services/platform/outbound/internal/exchange.js"
import { pinnedLookup } from "../../services/platform/outbound/internal/pin.js"
import { checkUrl } from "../../services/platform/outbound/targetUrl.js"
import { startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"

// The socket's real peer is checked again on connect, before the request is written:
// the last line of defence if resolution and pinning were ever bypassed.

let server: LoopbackServer
beforeAll(async () => {
  server = await startLoopbackServer()
})
afterAll(() => server.close())

describe("peer guard", () => {
  it("refuses a peer the policy refuses, before any byte of the request is sent", async () => {
    const checked = checkUrl(`http://guard.test:${server.origin.port}/secret`)
    if (Either.isLeft(checked)) throw checked.left
    const hop = { method: "POST", headers: {}, body: Buffer.from("must not arrive") } as const
    const requestsBefore = server.requests.length
    const refuseAtConnect = () => ({ public: false, reason: "refused at connect" }) as const
    const outcome = await Effect.runPromise(
      Effect.scoped(exchange(checked.right, [{ address: "127.0.0.1", family: 4 }], hop, refuseAtConnect)).pipe(
        Effect.match({ onFailure: (e) => ({ ...e }), onSuccess: (response) => ({ status: response.statusCode }) })
      )
    )
    expect(outcome).toEqual({ _tag: "ForbiddenAddress", url: checked.right.url.href, address: "127.0.0.1", reason: "refused at connect" })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(server.requests.length).toBe(requestsBefore)
  })
})

describe("pinned lookup", () => {
  const pinned = pinnedLookup([
    { address: "127.0.0.1", family: 4 },
    { address: "::1", family: 6 }
  ])
  const ask = (options: { family?: number; all?: boolean }) =>
    new Promise<unknown>((resolve, reject) =>
      pinned("anything.test", options, (err, address, family) => (err ? reject(err) : resolve({ address, family })))
    )

  it("answers only the checked addresses, whatever name is asked", async () => {
    expect(await ask({ all: true })).toEqual({
      address: [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 }
      ],
      family: undefined
    })
    expect(await ask({})).toEqual({ address: "127.0.0.1", family: 4 })
    expect(await ask({ family: 6 })).toEqual({ address: "::1", family: 6 })
  })

  it("fails rather than fall back to DNS when no checked address has the family", async () => {
    const v4only = pinnedLookup([{ address: "127.0.0.1", family: 4 }])
    await expect(
      new Promise((resolve, reject) => v4only("x.test", { family: 6 }, (err) => (err ? reject(err) : resolve(null))))
    ).rejects.toMatchObject({ code: "ENOTFOUND" })
  })
})
