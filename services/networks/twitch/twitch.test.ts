import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeTwitchAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedTwitchAccount, twitchModule } from "./simulator.js"

/** The Twitch adapter against the simulator's Twitch (id.twitch.tv and Helix). */

let sim: Simulator
let adapter: NetworkAdapter

beforeAll(async () => {
  sim = await startSimulatorCore([twitchModule])
  adapter = await buildAdapter(
    makeTwitchAdapterWith({
      apiUrl: `${sim.baseOf("twitch")}/helix`,
      authUrl: sim.baseOf("twitch"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(sim)
  )
})
afterAll(() => sim.close())

const account = (expiresInMs?: number) =>
  seedTwitchAccount(sim, { login: `t${Math.random().toString(36).slice(2, 8)}`, ...(expiresInMs === undefined ? {} : { expiresInMs }) })
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`

describe("Twitch: connecting", () => {
  it("signs in on id.twitch.tv with chat scopes; the code gives the broadcaster's tokens and login", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Twitch connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/twitch"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "v", instance: null })))
    expect(url.pathname).toBe("/twitch/oauth2/authorize")
    expect(url.searchParams.get("scope")).toContain("user:write:chat")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st")
    const code = back.searchParams.get("code") ?? ""
    const connected = await run(adapter.connect.exchange({ code, redirectUri, codeVerifier: "v", instance: null, query: {} }))
    expect(connected.credentials).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      expiresAt: expect.any(String),
      broadcasterId: expect.stringMatching(/^\d+$/),
      login: expect.any(String)
    })
    const again = await Effect.runPromise(
      Effect.either(adapter.connect.exchange({ code, redirectUri, codeVerifier: "v", instance: null, query: {} }))
    )
    expect(Either.isLeft(again)).toBe(true)
  })

  it("verify with the CLI's fields; another user's token and a missing field are refused", async () => {
    const given = account()
    const connected = await run(adapter.verify(given))
    expect(connected.profile.accountId).toBe(given.broadcasterId)
    const other = await Effect.runPromise(Effect.either(adapter.verify({ ...given, broadcasterId: "1" })))
    expect(Either.isLeft(other) && other.left.message).toMatch(/not to the broadcaster 1/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "a", refreshToken: "b", expiresAt: given.expiresAt })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/broadcasterId/)
  })
})

describe("Twitch: token refresh", () => {
  it("unchanged while the token lasts; refreshed ten minutes ahead; refused → Failed; down → Unavailable", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account(60_000)
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials["accessToken"]).not.toBe(expiring.accessToken)
    expect(Date.parse(String(refreshed.credentials["expiresAt"]))).toBeGreaterThan(Date.now() + 3600_000)
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "revoked" }))))._tag).toBe("Failed")
    sim.fail({ network: "twitch", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account(60_000)))))._tag).toBe("Unavailable")
  })
})

describe("Twitch: publishing", () => {
  it("a chat message as the broadcaster, and a follow-up as a reply to it", async () => {
    const c = (await run(adapter.verify(account()))).credentials
    const text = unique("Going live")
    const root = published(await run(adapter.publish(requestFor(c, { content: text }))))
    const reply = published(
      await run(adapter.publishFollowUp(requestFor(c, { content: "link below", position: 1, previousReleaseId: root.releaseId })))
    )
    const held = sim.postsOf("twitch").filter((p) => p.account === c["broadcasterId"])
    expect(held).toHaveLength(2)
    expect(held[0]).toMatchObject({ id: root.releaseId, text, extra: { kind: "message", sender: c["broadcasterId"] } })
    expect(held[1]).toMatchObject({ id: reply.releaseId, replyTo: root.releaseId })
    expect(root.releaseUrl).toBe(`https://www.twitch.tv/${String(c["login"])}`)
  })

  it("with the announcement setting: an announcement in the chosen colour; its follow-up is a plain message", async () => {
    const c = account()
    const text = unique("Big news")
    const request = requestFor(c, { content: text, settings: { announcement: true, color: "purple" } })
    const root = published(await run(adapter.publish(request)))
    expect(root.releaseId).toBe(`announcement:${request.item.id}`)
    const reply = published(await run(adapter.publishFollowUp(requestFor(c, { content: "details", position: 1, previousReleaseId: root.releaseId }))))
    const held = sim.postsOf("twitch").filter((p) => p.account === c.broadcasterId)
    expect(held.map((p) => p.extra["kind"])).toEqual(["announcement", "message"])
    expect(held[0]).toMatchObject({ text, extra: { color: "purple" } })
    expect(held[1]).toMatchObject({ id: reply.releaseId, replyTo: null })
  })

  it("Twitch's own refusal (over 500 characters) is rejected with its message and a fix; files are refused before sending", async () => {
    const c = account()
    const long = await run(adapter.publish(requestFor(c, { content: "x".repeat(501) })))
    expect(long).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("500 characters"), fix: expect.stringContaining("Shorten") })
    const before = sim.requests.length
    expect((await run(adapter.publish(requestFor(c, { content: "pic", media: [imageMedia()] }))))._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
  })

  it("a message Twitch dropped (AutoMod) is rejected with its reason; Ratelimit-Reset names the wait", () => {
    const response = (status: number, body: string, headers: Record<string, string> = {}) => ({
      _tag: "Response" as const,
      response: { url: "https://api.twitch.tv/helix/chat/messages", status, headers, body: Buffer.from(body) }
    })
    const dropped = adapter.classify(
      response(
        200,
        '{"data":[{"message_id":"","is_sent":false,"drop_reason":{"code":"msg_rejected","message":"Your message is being checked by mods"}}]}'
      )
    )
    expect(dropped).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("checked by mods") })
    const limited = adapter.classify(
      response(429, '{"error":"Too Many Requests","status":429,"message":""}', { "ratelimit-reset": String(Math.floor(Date.now() / 1000) + 30) })
    )
    expect(limited._tag === "RateLimited" && limited.retryAfterMs).toBeGreaterThan(20_000)
  })

  it("chat cannot be searched: a lost answer cannot be told (unconfirmed); no statistics", async () => {
    const c = account()
    expect((await run(adapter.search(requestFor(c, { content: "x" }))))._tag).toBe("CannotTell")
    expect((await run(adapter.statistics.post(Redacted.make(c), "1")))._tag).toBe("Missing")
  })
})

describe("Twitch: faults", () => {
  const c = { value: undefined as ReturnType<typeof account> | undefined }
  faultMatrix({
    network: "twitch",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => {
      c.value ??= account()
      return requestFor(c.value, { content })
    }
  })
})
