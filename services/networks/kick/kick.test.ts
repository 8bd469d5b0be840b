import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeKickAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { kickModule, seedKickAccount } from "./simulator.js"

/** The Kick adapter against the simulator's Kick (id.kick.com and the public API). */

let sim: Simulator
let adapter: NetworkAdapter

beforeAll(async () => {
  sim = await startSimulatorCore([kickModule])
  adapter = await buildAdapter(
    makeKickAdapterWith({
      apiUrl: `${sim.baseOf("kick")}/public/v1`,
      authUrl: sim.baseOf("kick"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(sim)
  )
})
afterAll(() => sim.close())

const account = (expiresInMs?: number) =>
  seedKickAccount(sim, { name: `k${Math.random().toString(36).slice(2, 8)}`, ...(expiresInMs === undefined ? {} : { expiresInMs }) })
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`

describe("Kick: connecting", () => {
  it("signs in with OAuth 2.1 and PKCE S256; the code and its verifier give the broadcaster's tokens", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Kick connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/kick"
    const verifier = "v".repeat(50)
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: verifier, instance: null })))
    expect(url.pathname).toBe("/kick/oauth/authorize")
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("scope")).toContain("chat:write")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st")
    const code = back.searchParams.get("code") ?? ""
    // another verifier than the challenge's is refused
    const wrong = await Effect.runPromise(
      Effect.either(adapter.connect.exchange({ code, redirectUri, codeVerifier: "w".repeat(50), instance: null, query: {} }))
    )
    expect(Either.isLeft(wrong)).toBe(true)
    const connected = await run(adapter.connect.exchange({ code, redirectUri, codeVerifier: verifier, instance: null, query: {} }))
    expect(connected.credentials).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresAt: expect.any(String),
      broadcasterUserId: expect.stringMatching(/^\d+$/)
    })
    expect(connected.profile.accountId).toBe(connected.credentials["broadcasterUserId"])
  })

  it("verify with the CLI's fields (the id as a number or a string); another user's token and a missing field are refused", async () => {
    const given = account()
    const connected = await run(adapter.verify(given))
    expect(connected.credentials["broadcasterUserId"]).toBe(String(given.broadcasterUserId))
    expect((await run(adapter.verify({ ...given, broadcasterUserId: String(given.broadcasterUserId) }))).profile.accountId).toBe(
      String(given.broadcasterUserId)
    )
    const other = await Effect.runPromise(Effect.either(adapter.verify({ ...given, broadcasterUserId: 1 })))
    expect(Either.isLeft(other) && other.left.message).toMatch(/not to the broadcaster 1/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "a", refreshToken: "b", expiresAt: given.expiresAt })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/broadcasterUserId/)
  })
})

describe("Kick: token refresh", () => {
  it("unchanged while the token lasts; refreshed ten minutes ahead with a new refresh token; refused → Failed; down → Unavailable", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account(60_000)
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials["refreshToken"]).not.toBe(expiring.refreshToken)
    expect(refreshed.credentials["broadcasterUserId"]).toBe(String(expiring.broadcasterUserId))
    // the spent refresh token is refused: the channel must be reconnected
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Failed")
    sim.fail({ network: "kick", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account(60_000)))))._tag).toBe("Unavailable")
  })
})

describe("Kick: publishing", () => {
  it("a chat message in the broadcaster's channel, and a follow-up as a reply to it", async () => {
    const c = (await run(adapter.verify(account()))).credentials
    const text = unique("Live now")
    const root = published(await run(adapter.publish(requestFor(c, { content: text }))))
    const reply = published(
      await run(adapter.publishFollowUp(requestFor(c, { content: "and more", position: 1, previousReleaseId: root.releaseId })))
    )
    const held = sim.postsOf("kick").filter((p) => p.account === String(c.broadcasterUserId))
    expect(held).toHaveLength(2)
    expect(held[0]).toMatchObject({ id: root.releaseId, text, extra: { type: "user" } })
    expect(held[1]).toMatchObject({ id: reply.releaseId, replyTo: root.releaseId })
    expect(root.releaseUrl).toMatch(/^https:\/\/kick\.com\/k/)
  })

  it("Kick's own refusal (over 500 characters) is rejected with its message and a fix", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "x".repeat(501) })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("500 characters"), fix: expect.stringContaining("Shorten") })
  })

  it("files are refused before anything is sent (chat is text only)", async () => {
    const before = sim.requests.length
    const answer = await run(adapter.publish(requestFor(account(), { content: "pic", media: [imageMedia()] })))
    expect(answer._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
  })

  it("a message Kick took but did not send is rejected, not published", () => {
    const answer = adapter.classify({
      _tag: "Response",
      response: {
        url: "https://api.kick.com/public/v1/chat",
        status: 200,
        headers: {},
        body: Buffer.from('{"data":{"is_sent":false,"message_id":""},"message":"OK"}')
      }
    })
    expect(answer._tag).toBe("Rejected")
  })

  it("chat cannot be searched: a lost answer cannot be told (unconfirmed); no statistics, no tools", async () => {
    const c = account()
    expect((await run(adapter.search(requestFor(c, { content: "x" }))))._tag).toBe("CannotTell")
    expect((await run(adapter.statistics.channel(Redacted.make(c), 7)))._tag).toBe("Missing")
    const tool = await Effect.runPromise(
      Effect.either(adapter.runTool({ channel: channelRow("kick"), credentials: Redacted.make(c), methodName: "channels", data: {} }))
    )
    expect(Either.isLeft(tool)).toBe(true)
  })
})

describe("Kick: faults", () => {
  const c = { value: undefined as ReturnType<typeof account> | undefined }
  faultMatrix({
    network: "kick",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => {
      c.value ??= account()
      return requestFor(c.value, { content })
    }
  })
})
