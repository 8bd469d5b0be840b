import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter, PublishAnswer, PublishRequest } from "../adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { mediaRulesOf } from "../../../domain/networks/mediaRules.js"
import { makeTikTokAdapterWith, type TikTokOptions } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { openTikTokUpload, seedTikTokAccount, type TikTokSeed, tiktokModule } from "./simulator.js"

/** The TikTok adapter against the simulator's Content Posting API. */

let sim: Simulator
let adapter: NetworkAdapter
let audited: NetworkAdapter
let puller: NetworkAdapter

const videoMedia = (url: string, size: number, durationSeconds = 10): StoredMedia => ({
  id: crypto.randomUUID(),
  alt: "",
  url,
  mime: "video/mp4",
  name: "clip.mp4",
  size,
  type: "video",
  width: 1080,
  height: 1920,
  facts: {
    kind: "video",
    container: "mp4",
    videoCodec: "h264",
    audioCodec: "aac",
    durationSeconds,
    width: 1080,
    height: 1920,
    frameRate: 30,
    bitrateKbps: 2000,
    bytes: size
  }
})

const SMALL = Buffer.alloc(300_000, 7)
const BIG = Buffer.alloc(25 * 1024 * 1024, 3)
const small = videoMedia("http://files.test/small.mp4", SMALL.length)
const big = videoMedia("http://files.test/big.mp4", BIG.length)
const long = videoMedia("http://files.test/small.mp4", SMALL.length, 900)
const photo = imageMedia("http://files.test/tt.png")

beforeAll(async () => {
  sim = await startSimulatorCore([tiktokModule])
  const files = new Map([
    [small.url, SMALL],
    [big.url, BIG],
    [photo.url, PNG]
  ])
  const options = (o: Partial<TikTokOptions> = {}): TikTokOptions => ({
    apiUrl: sim.baseOf("tiktok"),
    authUrl: sim.baseOf("tiktok"),
    clientKey: Option.some("ckey"),
    clientSecret: Option.some(Redacted.make("csecret")),
    audited: false,
    pullFromUrl: false,
    ...o
  })
  adapter = await buildAdapter(makeTikTokAdapterWith(options()), adapterDeps(sim, files))
  audited = await buildAdapter(makeTikTokAdapterWith(options({ audited: true })), adapterDeps(sim, files))
  puller = await buildAdapter(makeTikTokAdapterWith(options({ pullFromUrl: true })), adapterDeps(sim, files))
})
afterAll(() => sim.close())

const account = (input: TikTokSeed = {}) => seedTikTokAccount(sim, { username: `tt${Math.random().toString(36).slice(2, 8)}`, ...input })

/** Publishes as the publisher does: each Pending's progress comes back with the next call, until an end. */
const steps = async (a: NetworkAdapter, request: PublishRequest, max = 10) => {
  const seen: Array<PublishAnswer> = []
  let progress = request.progress
  for (let i = 0; i < max; i++) {
    const answer = await run(a.publish({ ...request, progress }))
    seen.push(answer)
    if (answer._tag !== "Pending") return seen
    progress = answer.progress
    if (answer.retryAfterMs > 0) await new Promise((r) => setTimeout(r, 50))
  }
  return seen
}

const settings = { privacy_level: "PUBLIC_TO_EVERYONE", duet: true, stitch: true, comment: true }

describe("TikTok: connecting", () => {
  it("signs in with Login Kit (client_key), stores the open id and keeps the creator's longest video as a default", async () => {
    if (adapter.connect.kind !== "link") throw new Error("TikTok connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/tiktok"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "v".repeat(50), instance: null })))
    expect(url.pathname).toBe("/tiktok/v2/auth/authorize/")
    expect(url.searchParams.get("client_key")).toBe("ckey")
    expect(url.searchParams.get("scope")).toContain("video.publish")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} })
    )
    expect(connected.credentials).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), openId: expect.any(String) })
    expect(connected.defaultSettings).toEqual({ creator_max_video_seconds: 600 })
  })

  it("verify takes the CLI's fields; a missing one is named", async () => {
    const connected = await run(adapter.verify(account({ maxVideoSeconds: 180 })))
    expect(connected.profile.profile).toMatch(/^tt/)
    expect(connected.defaultSettings).toEqual({ creator_max_video_seconds: 180 })
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "x", refreshToken: "y", expiresAt: new Date().toISOString() })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/openId/)
  })

  it("refresh: unchanged while the token lasts, refreshed near expiry, Failed when TikTok refuses the refresh token", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account({ expiresInMs: 60_000 })
    expect((await run(adapter.refresh(Redacted.make(expiring))))._tag).toBe("Refreshed")
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "revoked" }))))._tag).toBe("Failed")
  })
})

describe("TikTok: publishing", () => {
  it("a video: init answers Pending with the publish id before any byte, then the chunks, then the status → Published once", async () => {
    const c = (await run(audited.verify(account({ audited: true })))).credentials
    const request = requestFor(c, { content: "Dance #fyp", media: [small], settings })
    const seen = await steps(audited, request)
    expect(seen[0]).toMatchObject({ _tag: "Pending", retryAfterMs: 0, progress: { publishId: expect.stringMatching(/^v_pub_file/), mode: "upload" } })
    const done = published(seen.at(-1)!)
    expect(done.releaseUrl).toMatch(/^https:\/\/www\.tiktok\.com\/@tt\w+\/video\/\d+$/)
    const held = sim.postsOf("tiktok").filter((p) => p.text === "Dance #fyp")
    expect(held).toHaveLength(1)
    // the creator turned stitches off: that stays off whatever the post asks
    expect(held[0]?.extra).toMatchObject({ privacy_level: "PUBLIC_TO_EVERYONE", disable_duet: false, disable_stitch: true, disable_comment: false })
  })

  it("a 25 MB video goes in 10 MB chunks (the last takes the rest), in order", async () => {
    const c = (await run(audited.verify(account({ audited: true })))).credentials
    const before = sim.requests.length
    published((await steps(audited, requestFor(c, { content: "big one", media: [big], settings }))).at(-1)!)
    const puts = sim.requests.slice(before).filter((r) => r.method === "PUT")
    expect(puts).toHaveLength(2)
    expect(sim.postsOf("tiktok").find((p) => p.text === "big one")?.media[0]?.size).toBe(BIG.length)
  })

  it("an app TikTok has not audited posts SELF_ONLY whatever the settings say: the publish id and profile stand for it", async () => {
    const c = (await run(adapter.verify(account()))).credentials
    const done = published((await steps(adapter, requestFor(c, { content: "private one", media: [small], settings }))).at(-1)!)
    expect(done.releaseId).toMatch(/^v_pub_file/)
    expect(done.releaseUrl).toMatch(/^https:\/\/www\.tiktok\.com\/@tt\w+$/)
    expect(sim.postsOf("tiktok").find((p) => p.text === "private one")?.extra["privacy_level"]).toBe("SELF_ONLY")
  })

  it("while TikTok processes, the item waits (Pending processing) and no worker polls; then it is published", async () => {
    const c = account({ audited: true })
    sim.setProcessingDelay(300)
    try {
      const first = await run(audited.publish(requestFor(c, { content: "slow", media: [small], settings })))
      if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
      const second = await run(audited.publish(requestFor(c, { content: "slow", media: [small], settings, progress: first.progress })))
      expect(second).toMatchObject({ _tag: "Pending", kind: "processing", waitingFor: expect.stringContaining("process"), retryAfterMs: 5000 })
      if (second._tag !== "Pending") return
      await new Promise((r) => setTimeout(r, 400))
      published(await run(audited.publish(requestFor(c, { content: "slow", media: [small], settings, progress: second.progress }))))
      expect(sim.postsOf("tiktok").filter((p) => p.text === "slow")).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("photos are posted with content/init, TikTok fetching them from their public addresses", async () => {
    const c = account({ audited: true })
    const done = published((await steps(audited, requestFor(c, { content: "Two cats\nmore words", media: [photo, photo], settings }))).at(-1)!)
    expect(done.releaseUrl).toMatch(/\/photo\/\d+$/)
    expect(sim.postsOf("tiktok").find((p) => p.id === done.releaseId)).toMatchObject({ text: "Two cats\nmore words", extra: { source: "photo" } })
  })

  it("PULL_FROM_URL when the operator verified the domain: TikTok fetches the video", async () => {
    const c = account()
    const done = published((await steps(puller, requestFor(c, { content: "pulled", media: [small], settings }))).at(-1)!)
    expect(sim.postsOf("tiktok").find((p) => p.id === done.releaseId)).toMatchObject({ extra: { source: "pull" }, media: [{ size: SMALL.length }] })
  })

  it("a file TikTok cannot fetch ends Rejected with fail_reason", async () => {
    const c = account()
    const gone = videoMedia("http://127.0.0.1:1/gone.mp4", 10)
    const last = (await steps(puller, requestFor(c, { content: "unfetchable", media: [gone], settings }))).at(-1)!
    expect(last).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("video_pull_failed") })
  })

  it("the creator's limits are checked: a video longer than the maximum and a privacy level not offered are Rejected before any upload", async () => {
    const c = account({ audited: true, maxVideoSeconds: 60 })
    const before = sim.requests.length
    const tooLong = await run(audited.publish(requestFor(c, { content: "too long", media: [long], settings })))
    expect(tooLong).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("at most 60 s") })
    const friends = account({ audited: true, privacyOptions: ["SELF_ONLY"] })
    const mismatch = await run(audited.publish(requestFor(friends, { content: "public?", media: [small], settings })))
    expect(mismatch).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("SELF_ONLY") })
    expect(sim.requests.slice(before).filter((r) => r.op === "init" || r.op === "publish")).toHaveLength(0)
  })

  it("the creator's daily cap holds the item (network-limit) instead of failing it", async () => {
    const c = account({ dailyCap: 1 })
    published((await steps(adapter, requestFor(c, { content: "first of the day", media: [small], settings }))).at(-1)!)
    const capped = await run(adapter.publish(requestFor(c, { content: "second of the day", media: [small], settings })))
    expect(capped).toMatchObject({ _tag: "Pending", kind: "network-limit", waitingFor: expect.stringContaining("daily cap") })
  })

  it("follow-ups are refused (TikTok has no comments API for posts)", async () => {
    const answer = await run(adapter.publishFollowUp(requestFor(account(), { content: "reply", position: 1, previousReleaseId: "1" })))
    expect(answer._tag).toBe("Rejected")
  })
})

describe("TikTok: search with the publish id", () => {
  it("Found when TikTok published it, Unfinished with the upload to go on, NotFound without a publish id for an upload", async () => {
    const c = account({ audited: true })
    const first = await run(audited.publish(requestFor(c, { content: "lost answer", media: [small], settings })))
    if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
    // the bytes never went: the search says go on from the same publish id
    const unfinished = await run(audited.search(requestFor(c, { content: "lost answer", media: [small], settings, progress: first.progress })))
    expect(unfinished).toEqual({ _tag: "Unfinished", progress: { ...first.progress, uploadedBytes: 0 } })
    const done = published(
      (await steps(audited, requestFor(c, { content: "lost answer", media: [small], settings, progress: first.progress }))).at(-1)!
    )
    const found = await run(audited.search(requestFor(c, { content: "lost answer", media: [small], settings, progress: first.progress })))
    expect(found).toMatchObject({ _tag: "Found", releaseId: done.releaseId })
    expect((await run(audited.search(requestFor(c, { content: "never", media: [small], settings }))))._tag).toBe("NotFound")
    expect(sim.postsOf("tiktok").filter((p) => p.text === "lost answer")).toHaveLength(1)
  })
})

describe("TikTok: an upload that died after a chunk", () => {
  it("status/fetch's uploaded_bytes says where it stands: only the chunks after them are sent, the post arrives once", async () => {
    const c = account({ audited: true })
    const first = await run(audited.publish(requestFor(c, { content: "half sent", media: [big], settings })))
    if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
    const tenMb = 10 * 1024 * 1024
    const chunk = await fetch(String(first.progress["uploadUrl"]), {
      method: "PUT",
      headers: { "content-type": "video/mp4", "content-range": `bytes 0-${tenMb - 1}/${BIG.length}` },
      body: BIG.subarray(0, tenMb)
    })
    expect(chunk.status).toBe(206)
    const asked = await run(audited.search(requestFor(c, { content: "half sent", media: [big], settings, progress: first.progress })))
    expect(asked).toEqual({ _tag: "Unfinished", progress: { ...first.progress, uploadedBytes: tenMb } })
    if (asked._tag !== "Unfinished") return
    const before = sim.requests.length
    published((await steps(audited, requestFor(c, { content: "half sent", media: [big], settings, progress: asked.progress }))).at(-1)!)
    expect(sim.requests.slice(before).filter((r) => r.method === "PUT")).toHaveLength(1)
    expect(sim.postsOf("tiktok").filter((p) => p.text === "half sent")).toHaveLength(1)
  })
})

describe("TikTok: statistics", () => {
  it("a public video's views, likes, comments and shares; the account's followers", async () => {
    const c = account({ audited: true })
    const done = published((await steps(audited, requestFor(c, { content: "counted", media: [small], settings }))).at(-1)!)
    const post = await run(audited.statistics.post(Redacted.make(c), done.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Views", 900],
      ["Likes", 77],
      ["Comments", 5],
      ["Shares", 3]
    ])
    const channel = await run(audited.statistics.channel(Redacted.make(c), 7))
    expect(channel._tag === "Metrics" && channel.metrics[0]).toMatchObject({ label: "Followers", data: [{ total: 120 }] })
  })
})

describe("TikTok: faults on the upload that makes the post live", () => {
  faultMatrix({
    network: "tiktok",
    sim: () => sim,
    adapter: () => adapter,
    // the init already answered: this call sends the bytes (the last chunk makes the post)
    request: (content) => {
      const c = account()
      const opened = openTikTokUpload(sim, c.openId, { title: content, size: SMALL.length })
      return requestFor(c, {
        content,
        media: [small],
        settings,
        progress: { publishId: opened.publishId, mode: "upload", uploadUrl: opened.uploadUrl }
      })
    }
  })
})

describe("TikTok: the creator's longest video is checked before saving", () => {
  it("the channel's creator_max_video_seconds (kept at connect) narrows TikTok's own 10 minutes", () => {
    expect(mediaRulesOf("tiktok", { creator_max_video_seconds: 60 })?.videos?.maxSeconds).toBe(60)
    expect(mediaRulesOf("tiktok", {})?.videos?.maxSeconds).toBe(600)
    expect(mediaRulesOf("tiktok", { creator_max_video_seconds: 3600 })?.videos?.maxSeconds).toBe(600)
  })
})
