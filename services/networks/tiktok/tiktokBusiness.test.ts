import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter, PublishAnswer, PublishRequest } from "../adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { makeTikTokBusinessAdapterWith } from "./businessAdapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, JPEG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedTikTokBusinessAccount, type TikTokBusinessSeed, tiktokBusinessModule } from "./businessSimulator.js"

/** The TikTok Business adapter against the simulator's API for Business (Accounts API). */

let sim: Simulator
let adapter: NetworkAdapter

const CLIP = Buffer.alloc(200_000, 5)
const clip: StoredMedia = {
  id: crypto.randomUUID(),
  alt: "",
  url: "http://files.test/clip.mp4",
  mime: "video/mp4",
  name: "clip.mp4",
  size: CLIP.length,
  type: "video",
  width: 1080,
  height: 1920
}
const photo = { ...imageMedia("http://files.test/shot.jpg"), mime: "image/jpeg", name: "shot.jpg" }

beforeAll(async () => {
  sim = await startSimulatorCore([tiktokBusinessModule])
  const files = new Map([
    [clip.url, CLIP],
    [photo.url, JPEG]
  ])
  adapter = await buildAdapter(
    makeTikTokBusinessAdapterWith({
      apiUrl: sim.baseOf("tiktok-business"),
      authUrl: sim.baseOf("tiktok-business"),
      clientId: Option.some("bizapp"),
      clientSecret: Option.some(Redacted.make("bizsecret"))
    }),
    adapterDeps(sim, files)
  )
})
afterAll(() => sim.close())

const account = (input: TikTokBusinessSeed = {}) =>
  seedTikTokBusinessAccount(sim, { username: `tb${Math.random().toString(36).slice(2, 8)}`, ...input })

/** Publishes as the publisher does: each Pending's progress comes back with the next call, until an end. */
const steps = async (request: PublishRequest, max = 10) => {
  const seen: Array<PublishAnswer> = []
  let progress = request.progress
  for (let i = 0; i < max; i++) {
    const answer = await run(adapter.publish({ ...request, progress }))
    seen.push(answer)
    if (answer._tag !== "Pending") return seen
    progress = answer.progress
    await new Promise((r) => setTimeout(r, 50))
  }
  return seen
}

describe("TikTok Business: connecting", () => {
  it("signs in on TikTok's page with the app's id, exchanges the auth_code and keeps open_id as business_id", async () => {
    if (adapter.connect.kind !== "link") throw new Error("TikTok Business connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/tiktok-business"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "v".repeat(50), instance: null })))
    expect(url.pathname).toBe("/tiktok-business/v2/auth/authorize/")
    expect(url.searchParams.get("client_key")).toBe("bizapp")
    expect(url.searchParams.get("scope")).toContain("video.publish")
    url.searchParams.set("account", "brandco")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} })
    )
    expect(connected.credentials).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      businessId: connected.profile.accountId,
      username: "brandco"
    })
    expect(connected.profile).toMatchObject({ name: "BRANDCO", profile: "brandco" })
  })

  it("a code TikTok does not know fails the connection with TikTok's words", async () => {
    if (adapter.connect.kind !== "link") throw new Error("link")
    const failed = await Effect.runPromise(
      Effect.either(adapter.connect.exchange({ code: "nope", redirectUri: "https://x.example/cb", codeVerifier: "", instance: null, query: {} }))
    )
    expect(Either.isLeft(failed) && failed.left.message).toMatch(/auth_code is invalid/)
  })

  it("verify takes the CLI's fields (businessId named when missing)", async () => {
    const connected = await run(adapter.verify(account({ username: "acme" })))
    expect(connected.profile.profile).toBe("acme")
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "x", refreshToken: "y", expiresAt: new Date().toISOString() })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/businessId/)
  })

  it("refresh: unchanged while the token lasts, refreshed near expiry, Failed when TikTok refuses the refresh token", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account({ expiresInMs: 60_000 })
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    expect(refreshed._tag).toBe("Refreshed")
    if (refreshed._tag === "Refreshed") expect(refreshed.credentials["accessToken"]).not.toBe(expiring.accessToken)
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "revoked" }))))._tag).toBe("Failed")
  })

  it("TikTok busy (5xx, or too many requests) keeps the channel: the refresh is Unavailable, tried again later", async () => {
    const expiring = account({ expiresInMs: 60_000 })
    sim.fail({ network: "tiktok-business", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Unavailable")
    sim.fail({ network: "tiktok-business", op: "token", mode: "rate-limit", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Unavailable")
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Refreshed")
  })
})

describe("TikTok Business: publishing", () => {
  it("a video: TikTok fetches it from its public address, the status gives the post's id → Published once", async () => {
    const c = (await run(adapter.verify(account()))).credentials
    const seen = await steps(requestFor(c, { content: "New drop #brand", media: [clip], settings: { comment: true, duet: false, stitch: true } }))
    const done = published(seen.at(-1)!)
    expect(done.releaseUrl).toMatch(/^https:\/\/www\.tiktok\.com\/@tb\w+\/video\/\d+$/)
    const held = sim.postsOf("tiktok-business").filter((p) => p.text === "New drop #brand")
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({
      id: done.releaseId,
      media: [{ size: CLIP.length }],
      extra: { disable_comment: false, disable_duet: true, disable_stitch: false }
    })
  })

  it("photos go with /business/photo/publish/, the first line as the title", async () => {
    const c = account()
    const done = published((await steps(requestFor(c, { content: "Two looks\nspring line", media: [photo, photo] }))).at(-1)!)
    expect(done.releaseUrl).toMatch(/\/photo\/\d+$/)
    expect(sim.postsOf("tiktok-business").find((p) => p.id === done.releaseId)).toMatchObject({ extra: { kind: "photo" }, media: [{}, {}] })
  })

  it("while TikTok fetches and checks, the item waits (Pending with the task id); then it is published once", async () => {
    const c = account()
    sim.setProcessingDelay(300)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: "slow one", media: [clip] })))
      expect(first).toMatchObject({ _tag: "Pending", kind: "processing", progress: { shareId: expect.stringMatching(/^v_pub_url/), kind: "video" } })
      if (first._tag !== "Pending") return
      await new Promise((r) => setTimeout(r, 400))
      published(await run(adapter.publish(requestFor(c, { content: "slow one", media: [clip], progress: first.progress }))))
      expect(sim.postsOf("tiktok-business").filter((p) => p.text === "slow one")).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("PUBLISH_COMPLETE without post_ids waits for them (up to 3 minutes), then the task id and the profile stand for the post", async () => {
    const c = (await run(adapter.verify(account({ postIdsAfterMs: 60_000 })))).credentials
    const first = await run(adapter.publish(requestFor(c, { content: "no id yet", media: [clip] })))
    expect(first).toMatchObject({
      _tag: "Pending",
      waitingFor: "TikTok to make the post public",
      retryAfterMs: 30_000,
      progress: { completeAt: expect.any(Number) }
    })
    if (first._tag !== "Pending") return
    const later = { ...first.progress, completeAt: Date.now() - 4 * 60_000 }
    const done = published(await run(adapter.publish(requestFor(c, { content: "no id yet", media: [clip], progress: later }))))
    expect(done.releaseId).toBe(first.progress["shareId"])
    expect(done.releaseUrl).toMatch(/^https:\/\/www\.tiktok\.com\/@tb\w+$/)
    expect(sim.postsOf("tiktok-business").filter((p) => p.text === "no id yet")).toHaveLength(1)
  })

  it("a file TikTok cannot fetch ends Rejected with TikTok's reason", async () => {
    const gone = { ...clip, url: "http://127.0.0.1:1/gone.mp4" }
    const last = (await steps(requestFor(account(), { content: "unfetchable", media: [gone] }))).at(-1)!
    expect(last).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("video_pull_failed") })
  })

  it("a post without media is refused before any call", async () => {
    expect((await run(adapter.publish(requestFor(account(), { content: "text only" }))))._tag).toBe("Rejected")
  })

  it("follow-ups are comments on the post (at most 150 characters)", async () => {
    const c = account()
    const post = published((await steps(requestFor(c, { content: "with comments", media: [clip] }))).at(-1)!)
    const comment = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "Link in bio", position: 1, previousReleaseId: post.releaseId, rootReleaseId: post.releaseId })
        )
      )
    )
    expect(sim.postsOf("tiktok-business").find((p) => p.id === comment.releaseId)).toMatchObject({ replyTo: post.releaseId, text: "Link in bio" })
    const long = await run(adapter.publishFollowUp(requestFor(c, { content: "x".repeat(151), position: 1, previousReleaseId: post.releaseId })))
    expect(long).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("150") })
  })
})

describe("TikTok Business: a lost answer", () => {
  it("with the task id: Found once TikTok published it, Unfinished while it works", async () => {
    const c = account()
    sim.setProcessingDelay(300)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: "lost task", media: [clip] })))
      if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
      const unfinished = await run(adapter.search(requestFor(c, { content: "lost task", media: [clip], progress: first.progress })))
      expect(unfinished).toEqual({ _tag: "Unfinished", progress: first.progress })
      await new Promise((r) => setTimeout(r, 400))
      const found = await run(adapter.search(requestFor(c, { content: "lost task", media: [clip], progress: first.progress })))
      expect(found).toMatchObject({ _tag: "Found", releaseId: expect.stringMatching(/^\d+$/) })
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("without it: the account's posts by caption (Found), else it cannot tell", async () => {
    const c = account()
    const done = published((await steps(requestFor(c, { content: "listed one", media: [clip] }))).at(-1)!)
    expect(await run(adapter.search(requestFor(c, { content: "listed one", media: [clip] })))).toMatchObject({
      _tag: "Found",
      releaseId: done.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "never sent", media: [clip] }))))._tag).toBe("CannotTell")
  })

  it("a comment: the account's own comments on the post", async () => {
    const c = account()
    const post = published((await steps(requestFor(c, { content: "commented", media: [clip] }))).at(-1)!)
    const comment = published(
      await run(adapter.publishFollowUp(requestFor(c, { content: "first!", position: 1, previousReleaseId: post.releaseId })))
    )
    const asked = (content: string) => run(adapter.search(requestFor(c, { content, position: 1, previousReleaseId: post.releaseId })))
    expect(await asked("first!")).toMatchObject({ _tag: "Found", releaseId: comment.releaseId })
    expect((await asked("second"))._tag).toBe("NotFound")
  })
})

describe("TikTok Business: statistics", () => {
  it("a post's views, likes, comments and shares; the account's followers", async () => {
    const c = account()
    const done = published((await steps(requestFor(c, { content: "counted", media: [clip] }))).at(-1)!)
    const post = await run(adapter.statistics.post(Redacted.make(c), done.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Views", 1500],
      ["Likes", 120],
      ["Comments", 9],
      ["Shares", 4]
    ])
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 7))
    expect(channel._tag === "Metrics" && channel.metrics[0]).toMatchObject({ label: "Followers", data: [{ total: 250 }] })
  })
})

describe("TikTok Business: faults on the publish call", () => {
  faultMatrix({
    network: "tiktok-business",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(account(), { content, media: [clip] })
  })
})
