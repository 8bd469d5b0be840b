import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter, PublishAnswer } from "../adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { makeThreadsAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { containersOf } from "../../../test/support/simulator/metaGraph.js"
import { seedThreadsAccount, threadsModule } from "./simulator.js"

/** Threads against the simulator's graph.threads.net. */

let sim: Simulator
let adapter: NetworkAdapter
const MP4 = Buffer.from("000000186674797069736f6d0000020069736f6d69736f32", "hex")
const clip: StoredMedia = { ...imageMedia("http://files.test/th.mp4"), mime: "video/mp4", name: "th.mp4", type: "video", size: MP4.length }
const images = Array.from({ length: 20 }, (_, i) => imageMedia(`http://files.test/th${i}.png`, `Photo ${i}`))

beforeAll(async () => {
  sim = await startSimulatorCore([threadsModule])
  adapter = await buildAdapter(
    makeThreadsAdapterWith({
      apiUrl: sim.baseOf("threads"),
      authUrl: sim.baseOf("threads"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("cs"))
    }),
    adapterDeps(sim, new Map<string, Buffer>([[clip.url, MP4], ...images.map((m): [string, Buffer] => [m.url, PNG])]))
  )
})
afterEach(() => sim.setProcessingDelay(0))
afterAll(() => sim.close())

const account = (input: { readonly expiresInMs?: number; readonly cap?: number } = {}) => seedThreadsAccount(sim, input)
const pendingOf = (answer: PublishAnswer) => {
  if (answer._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(answer)}`)
  return answer
}
const held = (id: string) => sim.postsOf("threads").find((p) => p.id === id)!

describe("Threads: connecting and tokens", () => {
  it("signs in on threads.net: a long-lived token and the user's id", async () => {
    const seeded = account()
    if (adapter.connect.kind !== "link") throw new Error("Threads connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/threads"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "", instance: null })))
    expect(url.searchParams.get("scope")).toContain("threads_content_publish")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} })
    )
    expect(connected.credentials["userId"]).toBe(seeded.userId)
    expect(Date.parse(String(connected.credentials["expiresAt"])) - Date.now()).toBeGreaterThan(59 * 86_400_000)
    expect(connected.profile.profile).toBe("threader")
  })

  it("verify names the fields; th_refresh_token ahead of the expiry; a refused refresh fails", async () => {
    const given = account()
    expect((await run(adapter.verify(given))).profile.accountId).toBe(given.userId)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: given.accessToken })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/accessToken, userId and expiresAt/)
    expect((await run(adapter.refresh(Redacted.make(given))))._tag).toBe("Unchanged")
    const refreshed = await run(adapter.refresh(Redacted.make(account({ expiresInMs: 3600_000 }))))
    expect(refreshed._tag).toBe("Refreshed")
    const expired = account({ expiresInMs: 1 })
    await new Promise((r) => setTimeout(r, 5))
    expect((await run(adapter.refresh(Redacted.make(expired))))._tag).toBe("Failed")
  })
})

describe("Threads: publishing", () => {
  it("text only, then a reply to it with reply_to_id, then a reply to the reply", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "just words" }))))
    expect(root.releaseUrl).toMatch(/^https:\/\/www\.threads\.net\/@threader\/post\//)
    const reply = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "reply one", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const second = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "reply two", position: 2, previousReleaseId: reply.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    expect(held(root.releaseId).extra["mediaType"]).toBe("TEXT")
    expect(held(reply.releaseId).replyTo).toBe(root.releaseId)
    expect(held(second.releaseId).replyTo).toBe(reply.releaseId)
  })

  it("a photo, a video, and a carousel of 20", async () => {
    const c = account()
    const photo = published(await run(adapter.publish(requestFor(c, { content: "a photo", media: [images[0]!] }))))
    const video = published(await run(adapter.publish(requestFor(c, { content: "a video", media: [clip] }))))
    const carousel = published(await run(adapter.publish(requestFor(c, { content: "twenty", media: images }))))
    expect(held(photo.releaseId).media[0]).toMatchObject({ mime: "image/png", alt: "Photo 0" })
    expect(held(video.releaseId).extra["mediaType"]).toBe("VIDEO")
    expect(held(carousel.releaseId).media).toHaveLength(20)
  })

  it("a video still processing answers Pending; the next step publishes the same container", async () => {
    const c = account()
    sim.setProcessingDelay(60_000)
    const first = pendingOf(await run(adapter.publish(requestFor(c, { content: "slow video", media: [clip] }))))
    const made = containersOf(sim).size
    sim.setProcessingDelay(0)
    published(await run(adapter.publish(requestFor(c, { content: "slow video", media: [clip], progress: first.progress }))))
    expect(containersOf(sim).size).toBe(made)
    expect(sim.postsOf("threads").filter((p) => p.text === "slow video")).toHaveLength(1)
  })

  it("a video Threads cannot fetch: rejected with its error_message", async () => {
    const missing: StoredMedia = { ...clip, url: "http://files.test/missing.mp4" }
    const answer = await run(adapter.publish(requestFor(account(), { content: "lost video", media: [missing] })))
    expect(answer._tag === "Rejected" && answer.message).toContain("FAILED_DOWNLOADING_VIDEO")
  })

  it("over 500 characters is refused with Threads' reason", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "w".repeat(501) })))
    expect(answer._tag === "Rejected" && answer.message).toContain("500 characters")
  })

  it("the daily cap refused at publish holds the post (network-limit) with its container", async () => {
    const answer = pendingOf(await run(adapter.publish(requestFor(account({ cap: 0 }), { content: "capped thread" }))))
    expect(answer.kind).toBe("network-limit")
    expect(answer.progress["containerId"]).toEqual(expect.any(String))
  })
})

describe("Threads: search, statistics", () => {
  it("Found by text (posts and replies), NotFound, Unfinished from a container not yet published", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "searchable thread" }))))
    expect(await run(adapter.search(requestFor(c, { content: "searchable thread" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    const reply = published(
      await run(adapter.publishFollowUp(requestFor(c, { content: "searchable reply", position: 1, previousReleaseId: root.releaseId })))
    )
    expect(await run(adapter.search(requestFor(c, { content: "searchable reply", position: 1, previousReleaseId: root.releaseId })))).toMatchObject({
      _tag: "Found",
      releaseId: reply.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "nothing like it" }))))._tag).toBe("NotFound")
    sim.setProcessingDelay(60_000)
    const pending = pendingOf(await run(adapter.publish(requestFor(c, { content: "unfinished", media: [clip] }))))
    expect((await run(adapter.search(requestFor(c, { content: "unfinished", progress: pending.progress }))))._tag).toBe("Unfinished")
  })

  it("post statistics from the thread's insights", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "stats thread" }))))
    const stats = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(stats._tag === "Metrics" && stats.metrics.map((m) => m.label)).toEqual(["Views", "Likes", "Replies", "Reposts", "Quotes"])
    const followers = await run(adapter.statistics.channel(Redacted.make(c), 7))
    expect(followers._tag === "Metrics" && followers.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([["Followers", 42]])
  })
})

describe("Threads: quota", () => {
  it("channel health's quota is what is left of the 24-hour cap, read from threads_publishing_limit", async () => {
    const c = account({ cap: 5 })
    const quotaOf = () => run(adapter.quota!(Redacted.make(c)))
    expect(await quotaOf()).toEqual(Option.some({ remaining: 5, limit: 5, resetsAt: null, unit: "posts in 24 hours" }))
    published(await run(adapter.publish(requestFor(c, { content: "counted against the cap" }))))
    expect(Option.map(await quotaOf(), (q) => q.remaining)).toEqual(Option.some(4))
  })
})

describe("Threads: faults", () => {
  faultMatrix({ network: "threads", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(account(), { content }) })
})
