import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { makeTumblrAdapterWith } from "./adapter.js"
import { textBlocks } from "./npf.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedTumblrAccount, tumblrModule } from "./simulator.js"

/** The Tumblr adapter against the simulator's Tumblr API v2. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/tumblr.png", "A fox")
const VIDEO = Buffer.from("00000018667479706d703432000000006d703432", "hex")
const video: StoredMedia = { ...imageMedia("http://files.test/clip.mp4", ""), mime: "video/mp4", name: "clip.mp4", type: "video", size: VIDEO.length }

beforeAll(async () => {
  sim = await startSimulatorCore([tumblrModule])
  adapter = await buildAdapter(
    makeTumblrAdapterWith({
      apiUrl: sim.baseOf("tumblr"),
      authUrl: sim.baseOf("tumblr"),
      clientId: Option.some("consumer-key"),
      clientSecret: Option.some(Redacted.make("consumer-secret"))
    }),
    adapterDeps(
      sim,
      new Map([
        [image.url, PNG],
        [video.url, VIDEO]
      ])
    )
  )
})
afterAll(() => sim.close())

const account = (input: { readonly expiresInMs?: number; readonly cap?: number } = {}) =>
  seedTumblrAccount(sim, { username: `t${Math.random().toString(36).slice(2, 8)}`, ...input })
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`

describe("Tumblr: connecting", () => {
  it("signs in with OAuth 2 (state, offline_access); the primary blog becomes the channel's blog", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Tumblr connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/tumblr"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st-1", redirectUri, codeVerifier: "v", instance: null })))
    expect(url.pathname).toBe("/tumblr/oauth2/authorize")
    expect(url.searchParams.get("scope")).toBe("basic write offline_access")
    expect(url.searchParams.get("client_id")).toBe("consumer-key")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st-1")
    const exchange = () =>
      adapter.connect.kind === "link"
        ? adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v", instance: null, query: {} })
        : Effect.die("not a link")
    const connected = await run(exchange())
    expect(connected.credentials).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), blog: expect.any(String) })
    expect(Date.parse(String(connected.credentials["expiresAt"])) - Date.now()).toBeGreaterThan(2400_000)
    expect(connected.defaultSettings).toEqual({ blog: connected.credentials["blog"] })
    // a spent code is refused
    expect(Either.isLeft(await Effect.runPromise(Effect.either(exchange())))).toBe(true)
  })

  it("verify with the CLI's fields: a blog of the account (a side blog too); another blog or a missing field is refused", async () => {
    const given = account()
    const connected = await run(adapter.verify({ ...given, blog: `${given.blog}-side1` }))
    expect(connected.credentials["blog"]).toBe(`${given.blog}-side1`)
    expect(connected.profile).toMatchObject({ profile: `${given.blog}-side1`, name: "Side blog 1" })
    const other = await Effect.runPromise(Effect.either(adapter.verify({ ...given, blog: "staff" })))
    expect(Either.isLeft(other) && other.left.message).toMatch(/not one this Tumblr account can post to/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "a", refreshToken: "b", expiresAt: given.expiresAt })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/blog/)
  })
})

describe("Tumblr: token refresh", () => {
  it("unchanged while the token lasts; refreshed five minutes ahead with a new refresh token; a refused refresh fails", async () => {
    expect(adapter.shortLivedTokens).toBe(true)
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account({ expiresInMs: 60_000 })
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials["refreshToken"]).not.toBe(expiring.refreshToken)
    expect(refreshed.credentials["blog"]).toBe(expiring.blog)
    // the old refresh token was replaced
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Failed")
    sim.fail({ network: "tumblr", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account({ expiresInMs: 60_000 })))))._tag).toBe("Unavailable")
  })
})

describe("Tumblr: publishing", () => {
  it("a text post in NPF, one text block per line, with its tags", async () => {
    const c = account()
    const content = `${unique("First line")}\n\nSecond line`
    const answer = published(await run(adapter.publish(requestFor(c, { content, settings: { tags: "cats, foxes" } }))))
    const post = sim.postsOf("tumblr").find((p) => p.id === answer.releaseId)
    expect(post?.text).toBe(content.replace("\n\n", "\n"))
    expect(post?.extra).toMatchObject({ blog: c.blog, state: "published", tags: ["cats", "foxes"], blocks: ["text", "text"] })
    expect(answer.releaseUrl).toBe(`https://www.tumblr.com/${c.blog}/${answer.releaseId}`)
  })

  it("photos and a video are uploaded with the post (multipart, each under its block's identifier), the alt text kept", async () => {
    const c = account()
    const answer = published(await run(adapter.publish(requestFor(c, { content: unique("with media"), media: [image, video] }))))
    const post = sim.postsOf("tumblr").find((p) => p.id === answer.releaseId)
    expect(post?.extra["blocks"]).toEqual(["image", "video", "text"])
    expect(post?.media).toEqual([
      { id: "media-0", mime: "image/png", size: PNG.length, alt: "A fox" },
      { id: "media-1", mime: "video/mp4", size: VIDEO.length }
    ])
  })

  it("the post's blog setting wins over the channel's; two videos are refused before anything is sent", async () => {
    const c = account()
    const side = `${c.blog}-side1`
    const answer = published(await run(adapter.publish(requestFor(c, { content: unique("side"), settings: { blog: side } }))))
    expect(sim.postsOf("tumblr").find((p) => p.id === answer.releaseId)?.extra["blog"]).toBe(side)
    expect(answer.releaseUrl).toContain(`/${side}/`)
    const before = sim.requests.length
    expect((await run(adapter.publish(requestFor(c, { content: "two", media: [video, video] }))))._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
  })

  it("a blog of someone else is refused with a fix naming the blogs tool", async () => {
    const other = account()
    const answer = await run(adapter.publish(requestFor(account(), { content: unique("not mine"), settings: { blog: other.blog } })))
    expect(answer).toMatchObject({
      _tag: "Rejected",
      message: expect.stringMatching(/cannot post to this blog/),
      fix: expect.stringMatching(/blogs tool/)
    })
    const unknown = await run(adapter.publish(requestFor(account(), { content: unique("nowhere"), settings: { blog: "no-such-blog" } })))
    expect(unknown).toMatchObject({ _tag: "Rejected", fix: expect.stringMatching(/blogs tool/) })
  })

  it("the daily posting limit (403.8023) holds the post network-limit for an hour, nothing posted", async () => {
    const c = account({ cap: 1 })
    published(await run(adapter.publish(requestFor(c, { content: unique("first") }))))
    const held = await run(adapter.publish(requestFor(c, { content: unique("second") })))
    expect(held).toMatchObject({ _tag: "Pending", kind: "network-limit", retryAfterMs: 3600_000 })
  })

  it("a line longer than an NPF text block (4096 code points) is cut into blocks", () => {
    const blocks = textBlocks("😻".repeat(5000))
    expect(blocks.map((b) => (b.type === "text" ? [...b.text].length : 0))).toEqual([4096, 904])
  })

  it("follow-ups are refused (Tumblr's API takes no replies from apps)", async () => {
    expect((await run(adapter.publishFollowUp(requestFor(account(), { content: "more", previousReleaseId: "1" }))))._tag).toBe("Rejected")
  })
})

describe("Tumblr: search, statistics and tools", () => {
  it("search finds the post among the blog's latest by its text blocks, else not found; an unreadable list cannot tell", async () => {
    const c = account()
    const content = `${unique("findable")}\nsecond line`
    const answer = published(await run(adapter.publish(requestFor(c, { content, media: [image] }))))
    expect(await run(adapter.search(requestFor(c, { content })))).toMatchObject({ _tag: "Found", releaseId: answer.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: unique("never") }))))._tag).toBe("NotFound")
    sim.fail({ network: "tumblr", op: "search", mode: "5xx", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content }))))._tag).toBe("CannotTell")
  })

  it("the blog's followers and a post's notes", async () => {
    const c = account()
    const answer = published(await run(adapter.publish(requestFor(c, { content: unique("noted") }))))
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 7))
    if (channel._tag !== "Metrics") throw new Error(channel.message)
    expect(channel.metrics[0]).toMatchObject({ label: "Followers", data: [{ total: 40 }] })
    const post = await run(adapter.statistics.post(Redacted.make(c), answer.releaseId))
    if (post._tag !== "Metrics") throw new Error(post.message)
    expect(post.metrics[0]).toMatchObject({ label: "Notes", data: [{ total: 7 }] })
    expect((await run(adapter.statistics.post(Redacted.make(c), "404")))._tag).toBe("Missing")
  })

  it("the blogs tool lists the account's blogs, the channel's marked; another tool is refused", async () => {
    const c = account()
    const answer = await run(adapter.runTool({ channel: channelRow("tumblr"), credentials: Redacted.make(c), methodName: "blogs", data: {} }))
    expect(answer["blogs"]).toEqual([
      { name: c.blog, title: `${c.blog}'s blog`, default: true },
      { name: `${c.blog}-side1`, title: "Side blog 1", default: false }
    ])
    const other = await Effect.runPromise(
      Effect.either(adapter.runTool({ channel: channelRow("tumblr"), credentials: Redacted.make(c), methodName: "posts", data: {} }))
    )
    expect(Either.isLeft(other)).toBe(true)
  })
})

describe("Tumblr: faults", () => {
  const refusal = (status: number, code: number, headers: Record<string, string> = {}) =>
    adapter.classify({
      _tag: "Response",
      response: {
        url: "https://api.tumblr.com/v2/blog/b/posts",
        status,
        headers,
        body: Buffer.from(JSON.stringify({ meta: { status, msg: "Forbidden" }, errors: [{ title: "Forbidden", code }] }))
      }
    })

  it("Tumblr's subcodes: a video still transcoding waits a minute, a full upload cap holds the post, a 429 its Retry-After", () => {
    expect(refusal(403, 8010)).toEqual({ _tag: "RateLimited", retryAfterMs: 60_000 })
    expect(refusal(403, 8011)).toMatchObject({ _tag: "Pending", kind: "network-limit" })
    expect(refusal(429, 0, { "retry-after": "30" })).toEqual({ _tag: "RateLimited", retryAfterMs: 30_000 })
    expect(refusal(400, 8005)).toMatchObject({ _tag: "Rejected", fix: expect.stringMatching(/JPEG, PNG, GIF or MP4/) })
  })

  const c = { value: undefined as ReturnType<typeof account> | undefined }
  faultMatrix({
    network: "tumblr",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => {
      c.value ??= account()
      return requestFor(c.value, { content, media: [image] })
    }
  })
})
