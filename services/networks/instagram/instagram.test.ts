import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter, PublishAnswer } from "../adapter.js"
import { makeInstagramAdapterWith } from "./adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { IG_DOWNLOAD_ERROR, instagramModule, seedInstagramAccount } from "./simulator.js"
import { accountsOf, containersOf, expireContainers } from "../../../test/support/simulator/metaGraph.js"

/** Instagram through Facebook Login against the simulator's Graph API. */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/ig1.png", "First")
const two = imageMedia("http://files.test/ig2.png", "Second")
const MP4 = Buffer.from("000000186674797069736f6d0000020069736f6d69736f32", "hex")
const clip: StoredMedia = { ...imageMedia("http://files.test/clip.mp4"), mime: "video/mp4", name: "clip.mp4", type: "video", size: MP4.length }
const gone = imageMedia("http://files.test/gone.png")

beforeAll(async () => {
  sim = await startSimulatorCore([instagramModule])
  adapter = await buildAdapter(
    makeInstagramAdapterWith({
      apiUrl: sim.baseOf("instagram"),
      authUrl: sim.baseOf("instagram"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("cs"))
    }),
    adapterDeps(
      sim,
      new Map([
        [one.url, PNG],
        [two.url, PNG],
        [clip.url, MP4]
      ])
    )
  )
})
afterEach(() => sim.setProcessingDelay(0))
afterAll(() => sim.close())

const account = (input: { readonly cap?: number } = {}) => seedInstagramAccount(sim, input)
const containerCount = () => [...containersOf(sim).values()].filter((c) => c.network === "instagram").length
const pendingOf = (answer: PublishAnswer) => {
  if (answer._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(answer)}`)
  return answer
}

describe("Instagram (Facebook Login): connecting", () => {
  const redirectUri = "https://scheduler.example/integrations/social/instagram"
  const signIn = async () => {
    if (adapter.connect.kind !== "link") throw new Error("Instagram connects with a link")
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "s1", redirectUri, codeVerifier: "", instance: null })))
    expect(url.pathname).toMatch(/\/dialog\/oauth$/)
    expect(url.searchParams.get("scope")).toContain("instagram_content_publish")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("s1")
    return run(adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} }))
  }

  it("one linked account is connected at once, with its Page's token", async () => {
    const seeded = seedInstagramAccount(sim, { username: "solo" })
    const connected = await signIn()
    expect(connected.choices).toBeUndefined()
    expect(connected.credentials["igUserId"]).toBe(seeded.igUserId)
    expect(connected.profile.profile).toBe("solo")
    published(await run(adapter.publish(requestFor(connected.credentials, { content: "from sign-in", media: [one] }))))
  })

  it("several linked accounts are offered as choices; choose connects the chosen one", async () => {
    seedInstagramAccount(sim, { username: "multi", accounts: 2 })
    const connected = await signIn()
    expect(connected.choices?.map((c) => c.name)).toEqual(["multi", "multi2"])
    const second = connected.choices![1]!
    const chosen = await run(adapter.choose!(Redacted.make(connected.credentials), second.id))
    expect(chosen.credentials["igUserId"]).toBe(second.id)
    expect(chosen.profile.profile).toBe("multi2")
    const wrong = await Effect.runPromise(Effect.either(adapter.choose!(Redacted.make(connected.credentials), "nope")))
    expect(Either.isLeft(wrong)).toBe(true)
  })

  it("verify checks the account; a missing field names the fields; tokens never expire", async () => {
    const given = account()
    expect((await run(adapter.verify(given))).profile.accountId).toBe(given.igUserId)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: given.accessToken })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/accessToken and igUserId/)
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ ...given, accessToken: "nope" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/refused/)
    expect(adapter.tokensNeverExpire).toBe(true)
    expect((await run(adapter.refresh(Redacted.make(given))))._tag).toBe("Unchanged")
  })
})

describe("Instagram: publishing containers", () => {
  it("a photo goes out once, with Instagram's permalink, then a follow-up comment on it", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Photo day #ig", media: [one] }))))
    expect(root.releaseUrl).toMatch(/^https:\/\/www\.instagram\.com\/p\//)
    const comment = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "first comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const held = sim.postsOf("instagram")
    expect(held.filter((p) => p.text === "Photo day #ig")).toHaveLength(1)
    expect(held.find((p) => p.id === root.releaseId)?.media[0]?.size).toBe(PNG.length)
    expect(held.find((p) => p.id === comment.releaseId)?.replyTo).toBe(root.releaseId)
    expect(comment.releaseUrl).toBe(root.releaseUrl)
  })

  it("a video is a reel, a story is a story, several files a carousel", async () => {
    const c = account()
    const reel = published(await run(adapter.publish(requestFor(c, { content: "reel", media: [clip] }))))
    const story = published(await run(adapter.publish(requestFor(c, { content: "story", media: [one], settings: { post_type: "story" } }))))
    const carousel = published(await run(adapter.publish(requestFor(c, { content: "carousel", media: [one, clip, two] }))))
    const byId = (id: string) => sim.postsOf("instagram").find((p) => p.id === id)!
    expect(byId(reel.releaseId).extra["mediaType"]).toBe("REELS")
    expect(byId(reel.releaseId).media[0]?.mime).toBe("video/mp4")
    expect(byId(story.releaseId).extra["mediaType"]).toBe("STORIES")
    expect(byId(carousel.releaseId).extra["mediaType"]).toBe("CAROUSEL")
    expect(byId(carousel.releaseId).media.map((m) => m.mime)).toEqual(["image/png", "video/mp4", "image/png"])
    expect(byId(carousel.releaseId).media.map((m) => m.alt)).toEqual(["First", undefined, "Second"])
  })

  it("a container still processing answers Pending; the next steps go on with the same container, never a second", async () => {
    const c = account()
    sim.setProcessingDelay(60_000)
    const first = pendingOf(await run(adapter.publish(requestFor(c, { content: "slow reel", media: [clip] }))))
    expect(first.kind).toBe("processing")
    expect(first.progress["containerId"]).toEqual(expect.any(String))
    const made = containerCount()
    const again = pendingOf(await run(adapter.publish(requestFor(c, { content: "slow reel", media: [clip], progress: first.progress }))))
    expect(again.progress["containerId"]).toBe(first.progress["containerId"])
    sim.setProcessingDelay(0)
    published(await run(adapter.publish(requestFor(c, { content: "slow reel", media: [clip], progress: again.progress }))))
    expect(containerCount()).toBe(made)
    expect(sim.postsOf("instagram").filter((p) => p.text === "slow reel")).toHaveLength(1)
  })

  it("a carousel waits for its items, then makes the carousel from them once", async () => {
    const c = account()
    sim.setProcessingDelay(60_000)
    const first = pendingOf(await run(adapter.publish(requestFor(c, { content: "slow carousel", media: [one, two] }))))
    expect(first.progress).toMatchObject({ phase: "children", childIds: [expect.any(String), expect.any(String)] })
    const made = containerCount()
    sim.setProcessingDelay(0)
    const done = published(await run(adapter.publish(requestFor(c, { content: "slow carousel", media: [one, two], progress: first.progress }))))
    expect(containerCount()).toBe(made + 1) // the carousel itself, the items reused
    expect(sim.postsOf("instagram").find((p) => p.id === done.releaseId)?.media).toHaveLength(2)
  })

  it("an EXPIRED container is made again (nothing was published from it)", async () => {
    const c = account()
    sim.setProcessingDelay(60_000)
    const first = pendingOf(await run(adapter.publish(requestFor(c, { content: "expired one", media: [one] }))))
    expireContainers(sim, "instagram")
    sim.setProcessingDelay(0)
    const done = published(await run(adapter.publish(requestFor(c, { content: "expired one", media: [one], progress: first.progress }))))
    const post = sim.postsOf("instagram").find((p) => p.id === done.releaseId)!
    expect(post.extra["containerId"]).not.toBe(first.progress["containerId"])
  })

  it("media Instagram cannot fetch ends the container in ERROR: rejected with Instagram's reason", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "no file", media: [gone] })))
    expect(answer._tag).toBe("Rejected")
    expect(answer._tag === "Rejected" && answer.message).toContain(IG_DOWNLOAD_ERROR)
    expect(sim.postsOf("instagram").filter((p) => p.text === "no file")).toHaveLength(0)
  })

  it("a full publishing cap holds the post (network-limit) instead of failing", async () => {
    const c = account({ cap: 1 })
    published(await run(adapter.publish(requestFor(c, { content: "within the cap", media: [one] }))))
    const held = pendingOf(await run(adapter.publish(requestFor(c, { content: "over the cap", media: [one] }))))
    expect(held.kind).toBe("network-limit")
    expect(held.waitingFor).toMatch(/cap of 1 published posts per 24 hours/)
    expect(held.retryAfterMs).toBe(15 * 60_000)
    expect(held.progress["containerId"]).toEqual(expect.any(String))
    expect(sim.postsOf("instagram").filter((p) => p.text === "over the cap")).toHaveLength(0)
    // once the cap has room, the same container is published
    accountsOf(sim).get(c.igUserId)!.cap = 2
    const done = published(await run(adapter.publish(requestFor(c, { content: "over the cap", media: [one], progress: held.progress }))))
    expect(sim.postsOf("instagram").find((p) => p.id === done.releaseId)?.extra["containerId"]).toBe(held.progress["containerId"])
  })

  it("the quota (channel health) is what is left of the 24-hour cap, read from content_publishing_limit", async () => {
    const c = account({ cap: 3 })
    const quotaOf = () => run(adapter.quota!(Redacted.make(c)))
    expect(await quotaOf()).toEqual(Option.some({ remaining: 3, limit: 3, resetsAt: null, unit: "posts in 24 hours" }))
    published(await run(adapter.publish(requestFor(c, { content: "one of three", media: [one] }))))
    expect(Option.map(await quotaOf(), (q) => q.remaining)).toEqual(Option.some(2))
    // unreadable credentials: no quota, never an error
    expect(await run(adapter.quota!(Redacted.make({ nothing: true })))).toEqual(Option.none())
  })

  it("a post without media is refused before anything is made", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "text only" })))
    expect(answer._tag).toBe("Rejected")
  })
})

describe("Instagram: search, statistics", () => {
  it("finds a live post by its caption; NotFound otherwise; a comment among the post's comments", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "find me on ig", media: [one] }))))
    expect(await run(adapter.search(requestFor(c, { content: "find me on ig" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: "never posted" }))))._tag).toBe("NotFound")
    const comment = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "a comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    expect(
      await run(
        adapter.search(requestFor(c, { content: "a comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
      )
    ).toMatchObject({ _tag: "Found", releaseId: comment.releaseId })
  })

  it("with progress, the container is asked first: Unfinished while not published, Found once it is", async () => {
    const c = account()
    sim.setProcessingDelay(60_000)
    const first = pendingOf(await run(adapter.publish(requestFor(c, { content: "search my container", media: [one] }))))
    expect(await run(adapter.search(requestFor(c, { content: "search my container", progress: first.progress })))).toEqual(
      expect.objectContaining({ _tag: "Unfinished", progress: first.progress })
    )
    sim.setProcessingDelay(0)
    // FINISHED but not published: still Unfinished
    expect((await run(adapter.search(requestFor(c, { content: "search my container", progress: first.progress }))))._tag).toBe("Unfinished")
    const done = published(await run(adapter.publish(requestFor(c, { content: "search my container", media: [one], progress: first.progress }))))
    expect(await run(adapter.search(requestFor(c, { content: "search my container", progress: first.progress })))).toMatchObject({
      _tag: "Found",
      releaseId: done.releaseId
    })
  })

  it("post statistics from the media's insights, the account's numbers for the channel", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "stats", media: [one] }))))
    const stats = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(stats._tag === "Metrics" && stats.metrics.map((m) => m.label)).toEqual(["Likes", "Comments", "Reach", "Saved"])
    const numbers = await run(adapter.statistics.channel(Redacted.make(c), 7))
    expect(numbers._tag === "Metrics" && numbers.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Followers", 120],
      ["Following", 35],
      ["Posts", 1]
    ])
  })
})

describe("Instagram: faults", () => {
  faultMatrix({
    network: "instagram",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(account(), { content, media: [one] })
  })
})
