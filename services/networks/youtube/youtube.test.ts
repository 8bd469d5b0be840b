import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter, PublishAnswer, PublishRequest } from "../adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { makeYouTubeAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { openYouTubeSession, seedYouTubeAccount, type YouTubeSeed, youtubeChannelOf, youtubeModule } from "./simulator.js"

/** The YouTube adapter against the simulator's Data API v3 and Google OAuth. */

let sim: Simulator
let adapter: NetworkAdapter

const videoMedia = (url: string, size: number): StoredMedia => ({
  id: crypto.randomUUID(),
  alt: "",
  url,
  mime: "video/mp4",
  name: "clip.mp4",
  size,
  type: "video",
  width: 1080,
  height: 1920
})

const SMALL = Buffer.alloc(200_000, 5)
const BIG = Buffer.alloc(20 * 1024 * 1024, 9)
const small = videoMedia("http://files.test/yt-small.mp4", SMALL.length)
const big = videoMedia("http://files.test/yt-big.mp4", BIG.length)
const thumb = "http://files.test/thumb.png"

beforeAll(async () => {
  sim = await startSimulatorCore([youtubeModule])
  const base = sim.baseOf("youtube")
  adapter = await buildAdapter(
    makeYouTubeAdapterWith({
      apiUrl: base,
      uploadUrl: base,
      authorizeUrl: `${base}/o/oauth2/v2/auth`,
      tokenUrl: `${base}/token`,
      clientId: Option.some("cid.apps.googleusercontent.com"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(
      sim,
      new Map([
        [small.url, SMALL],
        [big.url, BIG],
        [thumb, PNG]
      ])
    )
  )
})
afterAll(() => sim.close())

const account = (input: YouTubeSeed = {}) => seedYouTubeAccount(sim, { title: `Chan ${Math.random().toString(36).slice(2, 8)}`, ...input })
const settings = { title: "My video", type: "unlisted", tags: ["cats", "fun"], made_for_kids: false }

const steps = async (request: PublishRequest, max = 10) => {
  const seen: Array<PublishAnswer> = []
  let progress = request.progress
  for (let i = 0; i < max; i++) {
    const answer = await run(adapter.publish({ ...request, progress }))
    seen.push(answer)
    if (answer._tag !== "Pending") return seen
    progress = answer.progress
    if (answer.retryAfterMs > 0) await new Promise((r) => setTimeout(r, 50))
  }
  return seen
}

describe("YouTube: connecting", () => {
  it("Google sign-in asks for offline access with PKCE; the callback's code gives the channel", async () => {
    if (adapter.connect.kind !== "link") throw new Error("YouTube connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/youtube"
    const verifier = "q".repeat(50)
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: verifier, instance: null })))
    expect(url.searchParams.get("access_type")).toBe("offline")
    expect(url.searchParams.get("scope")).toContain("youtube.upload")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: verifier, instance: null, query: {} })
    )
    expect(connected.credentials).toMatchObject({
      refreshToken: expect.any(String),
      channelId: expect.stringMatching(/^UC/),
      uploadsPlaylist: expect.stringMatching(/^UU/)
    })
  })

  it("verify with the CLI's fields; a missing one is named", async () => {
    const connected = await run(adapter.verify(account({ title: "Cooking" })))
    expect(connected.profile).toMatchObject({ name: "Cooking", profile: "@cooking" })
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "x" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/refreshToken/)
  })

  it("refresh keeps Google's refresh token; invalid_grant is Failed; Google down is Unavailable", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account({ expiresInMs: 60_000 })
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    expect(refreshed._tag === "Refreshed" && refreshed.credentials["refreshToken"]).toBe(expiring.refreshToken)
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "1//revoked" }))))._tag).toBe("Failed")
    sim.fail({ network: "youtube", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account({ expiresInMs: 60_000 })))))._tag).toBe("Unavailable")
  })
})

describe("YouTube: publishing", () => {
  it("the session address is kept (Pending) before any byte; then the upload, the thumbnail, and Published once processed", async () => {
    const c = (await run(adapter.verify(account()))).credentials
    const request = requestFor(c, { content: "All about cats", media: [small], settings: { ...settings, thumbnail: thumb } })
    const seen = await steps(request)
    expect(seen[0]).toMatchObject({
      _tag: "Pending",
      retryAfterMs: 0,
      progress: { sessionUrl: expect.stringContaining("upload_id="), size: SMALL.length }
    })
    const done = published(seen.at(-1)!)
    expect(done.releaseUrl).toBe(`https://www.youtube.com/watch?v=${done.releaseId}`)
    const held = sim.postsOf("youtube").filter((p) => p.text === "All about cats")
    expect(held).toHaveLength(1)
    expect(held[0]?.extra).toMatchObject({
      title: "My video",
      tags: ["cats", "fun"],
      privacyStatus: "unlisted",
      selfDeclaredMadeForKids: false,
      thumbnailBytes: PNG.length
    })
  })

  it("a 20 MB video goes in 8 MiB chunks, each answered 308 with Range until the last", async () => {
    const c = account()
    const before = sim.requests.length
    published((await steps(requestFor(c, { content: "big video", media: [big], settings }))).at(-1)!)
    expect(sim.requests.slice(before).filter((r) => r.method === "PUT")).toHaveLength(3)
  })

  it("while YouTube processes, the item waits (Pending processing with the video id); then Published", async () => {
    const c = account()
    sim.setProcessingDelay(300)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: "slow video", media: [small], settings })))
      if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
      const second = await run(adapter.publish(requestFor(c, { content: "slow video", media: [small], settings, progress: first.progress })))
      expect(second).toMatchObject({
        _tag: "Pending",
        kind: "processing",
        waitingFor: "YouTube to process the video",
        progress: { videoId: expect.any(String) }
      })
      if (second._tag !== "Pending") return
      await new Promise((r) => setTimeout(r, 400))
      published(await run(adapter.publish(requestFor(c, { content: "slow video", media: [small], settings, progress: second.progress }))))
      expect(sim.postsOf("youtube").filter((p) => p.text === "slow video")).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("a post without a video is Rejected; the daily quota holds the item (network-limit)", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "no video", media: [imageMedia()], settings })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: "YouTube needs a video." })
    const c = account({ dailyUploads: 0 })
    expect(await run(adapter.publish(requestFor(c, { content: "over quota", media: [small], settings })))).toMatchObject({
      _tag: "Pending",
      kind: "network-limit",
      waitingFor: expect.stringContaining("quotaExceeded")
    })
  })

  it("follow-up comments are not supported", async () => {
    expect((await run(adapter.publishFollowUp(requestFor(account(), { content: "c", position: 1, previousReleaseId: "v" }))))._tag).toBe("Rejected")
  })
})

describe("YouTube: a lost answer is settled by the session, never by a second upload", () => {
  it("the session says how far it got (Unfinished with the offset), the publish goes on from there; a finished one is Found", async () => {
    const c = account()
    const first = await run(adapter.publish(requestFor(c, { content: "crashed upload", media: [big], settings })))
    if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
    // one chunk went before the crash
    const session = String(first.progress["sessionUrl"])
    const chunk = await fetch(session, {
      method: "PUT",
      headers: { "content-range": `bytes 0-${8 * 1024 * 1024 - 1}/${BIG.length}` },
      body: BIG.subarray(0, 8 * 1024 * 1024)
    })
    expect(chunk.status).toBe(308)
    const asked = await run(adapter.search(requestFor(c, { content: "crashed upload", media: [big], settings, progress: first.progress })))
    expect(asked).toEqual({ _tag: "Unfinished", progress: { ...first.progress, offset: 8 * 1024 * 1024 } })
    if (asked._tag !== "Unfinished") return
    const before = sim.requests.length
    const done = published((await steps(requestFor(c, { content: "crashed upload", media: [big], settings, progress: asked.progress }))).at(-1)!)
    // only the two chunks left were sent
    expect(sim.requests.slice(before).filter((r) => r.method === "PUT")).toHaveLength(2)
    const found = await run(adapter.search(requestFor(c, { content: "crashed upload", media: [big], settings, progress: asked.progress })))
    expect(found).toMatchObject({ _tag: "Found", releaseId: done.releaseId })
    expect(sim.postsOf("youtube").filter((p) => p.text === "crashed upload")).toHaveLength(1)
  })

  it("without a session: the channel's recent uploads with the same title and description", async () => {
    const c = (await run(adapter.verify(account()))).credentials
    const done = published((await steps(requestFor(c, { content: "listed one", media: [small], settings }))).at(-1)!)
    expect(await run(adapter.search(requestFor(c, { content: "listed one", media: [small], settings })))).toMatchObject({
      _tag: "Found",
      releaseId: done.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "never uploaded", media: [small], settings }))))._tag).toBe("NotFound")
  })
})

describe("YouTube: statistics", () => {
  it("a video's views, likes and comments; the channel's subscribers", async () => {
    const c = account()
    const done = published((await steps(requestFor(c, { content: "measured video", media: [small], settings }))).at(-1)!)
    const post = await run(adapter.statistics.post(Redacted.make(c), done.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Views", 1200],
      ["Likes", 88],
      ["Comments", 9]
    ])
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 7))
    expect(channel._tag === "Metrics" && channel.metrics[0]).toMatchObject({ label: "Subscribers", data: [{ total: 310 }] })
  })
})

describe("YouTube: faults on the upload that makes the video", () => {
  faultMatrix({
    network: "youtube",
    sim: () => sim,
    adapter: () => adapter,
    // the session is open: this call sends the bytes (the last chunk makes the video)
    request: (content) => {
      const c = account()
      const sessionUrl = openYouTubeSession(sim, youtubeChannelOf(sim, c.accessToken)!, {
        title: "My video",
        description: content,
        size: SMALL.length
      })
      return requestFor(c, { content, media: [small], settings, progress: { sessionUrl, size: SMALL.length } })
    }
  })
})
