import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeXAdapterWith, pkceChallenge } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedXAccount, xModule } from "./simulator.js"

/** The X adapter against the simulator's X API v2. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/x.png")

beforeAll(async () => {
  sim = await startSimulatorCore([xModule])
  adapter = await buildAdapter(
    makeXAdapterWith({
      apiUrl: sim.baseOf("x"),
      authorizeUrl: `${sim.baseOf("x")}/i/oauth2/authorize`,
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(sim, new Map([[image.url, PNG]]))
  )
})
afterAll(() => sim.close())

const account = (expiresInMs?: number) =>
  seedXAccount(sim, { username: `x${Math.random().toString(36).slice(2, 8)}`, ...(expiresInMs === undefined ? {} : { expiresInMs }) })

describe("X: connecting", () => {
  it("signs in with OAuth 2.0 and PKCE (S256)", async () => {
    if (adapter.connect.kind !== "link") throw new Error("X connects with a link")
    const verifier = "a".repeat(50)
    const redirectUri = "https://scheduler.example/integrations/social/x"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: verifier, instance: null })))
    expect(url.searchParams.get("code_challenge")).toBe(pkceChallenge(verifier))
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("scope")).toContain("offline.access")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: verifier, instance: null, query: {} })
    )
    expect(connected.credentials).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), userId: expect.any(String) })
    // a wrong verifier is refused by the network
    const again = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const wrong = await Effect.runPromise(
      Effect.either(
        adapter.connect.exchange({ code: again.searchParams.get("code") ?? "", redirectUri, codeVerifier: "b".repeat(50), instance: null, query: {} })
      )
    )
    expect(Either.isLeft(wrong)).toBe(true)
  })

  it("verify with the CLI's fields; an expired access token is refreshed first", async () => {
    const given = account(1000)
    const connected = await run(adapter.verify(given))
    expect(connected.credentials["accessToken"]).not.toBe(given.accessToken)
    expect(connected.credentials["refreshToken"]).not.toBe(given.refreshToken)
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "x" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/refreshToken/)
  })
})

describe("X: token refresh", () => {
  it("unchanged while the token lasts; refreshed (rotated) when it expires within 5 minutes; a spent refresh token fails", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account(60_000)
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    expect(refreshed._tag).toBe("Refreshed")
    // X rotates refresh tokens: the old one is spent
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Failed")
    sim.fail({ network: "x", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account(60_000)))))._tag).toBe("Unavailable")
  })
})

describe("X: publishing", () => {
  it("a post with an image, reply settings, then a thread reply", async () => {
    // as stored after connecting: with the username, for the post's address
    const c = (await run(adapter.verify(account()))).credentials
    const root = published(
      await run(adapter.publish(requestFor(c, { content: "Hello X", media: [image], settings: { who_can_reply_post: "following" } })))
    )
    expect(root.releaseUrl).toMatch(/^https:\/\/x\.com\/x\w+\/status\/\d+$/)
    const reply = published(await run(adapter.publishFollowUp(requestFor(c, { content: "thread", position: 1, previousReleaseId: root.releaseId }))))
    const held = sim.postsOf("x")
    expect(held.find((p) => p.id === root.releaseId)).toMatchObject({
      text: "Hello X",
      media: [expect.objectContaining({ mime: "image/png" })],
      extra: expect.objectContaining({ reply_settings: "following" })
    })
    expect(held.find((p) => p.id === reply.releaseId)?.replyTo).toBe(root.releaseId)
  })

  it("a duplicate is rejected with X's reason and a fix that says it may be live", async () => {
    const c = account()
    published(await run(adapter.publish(requestFor(c, { content: "same text" }))))
    const answer = await run(adapter.publish(requestFor(c, { content: "same text" })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("duplicate"), fix: expect.stringContaining("already be live") })
  })

  it("search finds the account's post, links compared loosely (X shortens them)", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "see https://example.com/x" }))))
    expect(await run(adapter.search(requestFor(c, { content: "see https://example.com/x" })))).toMatchObject({
      _tag: "Found",
      releaseId: root.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "nothing" }))))._tag).toBe("NotFound")
  })

  it("whoami and statistics", async () => {
    const c = account()
    const who = await run(adapter.runTool({ channel: channelRow("x"), credentials: Redacted.make(c), methodName: "whoami", data: {} }))
    expect(who).toMatchObject({ id: expect.any(String), username: expect.stringMatching(/^x/) })
    const root = published(await run(adapter.publish(requestFor(c, { content: "measured" }))))
    const post = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(post._tag === "Metrics" && post.metrics[0]).toMatchObject({ label: "Impressions", data: [{ total: 250 }] })
  })
})

describe("X: faults", () => {
  faultMatrix({ network: "x", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(account(), { content }) })
})
