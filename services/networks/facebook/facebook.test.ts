import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeFacebookAdapterWith } from "./adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { facebookModule, seedFacebookAccount } from "./simulator.js"

/** The Facebook Pages adapter against the simulator's Graph API. */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/f1.png", "First")
const two = imageMedia("http://files.test/f2.png", "Second")
const MP4 = Buffer.concat([Buffer.from("000000186674797069736f6d", "hex"), Buffer.alloc(64)])
const video: StoredMedia = { ...imageMedia("http://files.test/clip.mp4", ""), mime: "video/mp4", name: "clip.mp4", type: "video", size: MP4.length }
const gone = imageMedia("http://files.test/gone.png")

beforeAll(async () => {
  sim = await startSimulatorCore([facebookModule])
  adapter = await buildAdapter(
    makeFacebookAdapterWith({
      apiUrl: sim.baseOf("facebook"),
      authUrl: sim.baseOf("facebook"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("cs"))
    }),
    adapterDeps(
      sim,
      new Map([
        [one.url, PNG],
        [two.url, PNG],
        [video.url, MP4]
      ])
    )
  )
})
afterAll(() => sim.close())

const page = () => {
  const { accessToken, pageId } = seedFacebookAccount(sim)
  return { accessToken, pageId }
}

const signIn = async () => {
  if (adapter.connect.kind !== "link") throw new Error("Facebook connects with a link")
  const redirectUri = "https://scheduler.example/integrations/social/facebook"
  const url = new URL(await run(adapter.connect.authorizeUrl({ state: "s", redirectUri, codeVerifier: "", instance: null })))
  expect(url.searchParams.get("scope")).toContain("pages_manage_posts")
  const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
  return run(adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} }))
}

describe("Facebook: connecting", () => {
  it("an account with one page connects to it at once, with the page's token", async () => {
    const seeded = seedFacebookAccount(sim, { pages: 1 })
    const connected = await signIn()
    expect(connected.choices).toBeUndefined()
    expect(connected.credentials).toEqual({ accessToken: seeded.accessToken, pageId: seeded.pageId })
    expect(connected.profile.accountId).toBe(seeded.pageId)
  })

  it("an account with two pages answers choices; choosing one gives that page's token", async () => {
    const seeded = seedFacebookAccount(sim, { name: "Pat", pages: 2 })
    const connected = await signIn()
    expect(connected.choices?.map((c) => c.id)).toEqual(seeded.pages.map((p) => p.id))
    expect(connected.credentials["pageId"]).toBeUndefined()
    const second = seeded.pages[1]!
    const chosen = await run(adapter.choose!(Redacted.make(connected.credentials), second.id))
    expect(chosen.credentials["pageId"]).toBe(second.id)
    expect(chosen.profile).toMatchObject({ accountId: second.id, name: second.name })
    const stranger = await Effect.runPromise(Effect.either(adapter.choose!(Redacted.make(connected.credentials), "999")))
    expect(Either.isLeft(stranger) && stranger.left.message).toMatch(/not among the pages/)
  })

  it("verify checks the page with its token; a missing field names the fields", async () => {
    const given = page()
    expect((await run(adapter.verify(given))).profile.accountId).toBe(given.pageId)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: given.accessToken })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/accessToken .*pageId/)
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ ...given, accessToken: "nope" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/Facebook/)
    expect((await run(adapter.refresh(Redacted.make(given))))._tag).toBe("Unchanged")
  })
})

describe("Facebook: publishing", () => {
  it("text with a link goes to the feed; a follow-up is a comment on the post", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Read https://example.com/a now" }))))
    expect(root.releaseUrl).toBe(`https://www.facebook.com/${root.releaseId}`)
    const comment = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "more", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const held = sim.postsOf("facebook")
    expect(held.find((p) => p.id === root.releaseId)?.extra["link"]).toBe("https://example.com/a")
    expect(held.find((p) => p.id === comment.releaseId)?.replyTo).toBe(root.releaseId)
  })

  it("two photos are one post (uploaded unpublished, attached to one feed post), fetched from their addresses", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Two photos", media: [one, two] }))))
    const held = sim.postsOf("facebook").filter((p) => p.account === c.pageId)
    expect(held).toHaveLength(1)
    expect(held[0]!.id).toBe(root.releaseId)
    expect(held[0]!.media.map((m) => [m.mime, m.size, m.alt])).toEqual([
      ["image/png", PNG.length, "First"],
      ["image/png", PNG.length, "Second"]
    ])
  })

  it("a story is one photo (uploaded unpublished, then photo_stories); a video story or two photos are refused with a fix", async () => {
    const c = page()
    const story = published(await run(adapter.publish(requestFor(c, { content: "", media: [one], settings: { post_type: "story" } }))))
    expect(sim.postsOf("facebook").find((p) => p.id === story.releaseId)).toMatchObject({ account: c.pageId, extra: { story: true } })
    for (const media of [[video], [one, two], []]) {
      const answer = await run(adapter.publish(requestFor(c, { content: "", media, settings: { post_type: "story" } })))
      expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringMatching(/photo/) })
    }
    expect(sim.postsOf("facebook").filter((p) => p.account === c.pageId)).toHaveLength(1)
    expect((await run(adapter.search(requestFor(c, { content: "", media: [one], settings: { post_type: "story" } }))))._tag).toBe("CannotTell")
  })

  it("a photo Facebook cannot fetch is rejected with Facebook's reason; nothing is posted", async () => {
    const c = page()
    const answer = await run(adapter.publish(requestFor(c, { content: "lost photo", media: [gone] })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("#324") })
    expect(sim.postsOf("facebook").filter((p) => p.account === c.pageId)).toHaveLength(0)
  })

  it("a video: Pending while Facebook processes it, then Published from the progress, one upload only", async () => {
    const c = page()
    sim.setProcessingDelay(400)
    try {
      const request = requestFor(c, { content: "A clip", media: [video] })
      const first = await run(adapter.publish(request))
      if (first._tag !== "Pending") throw new Error(`expected Pending, got ${first._tag}`)
      expect(first.kind).toBe("processing")
      const unfinished = await run(adapter.search({ ...request, progress: first.progress }))
      expect(unfinished._tag).toBe("Unfinished")
      expect(first.progress["since"]).toEqual(expect.any(Number))
      const stale = await run(adapter.publish({ ...request, progress: { ...first.progress, since: Date.now() - 25 * 3600_000 } }))
      expect(stale).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("may be live") })
      await new Promise((r) => setTimeout(r, 500))
      const done = published(await run(adapter.publish({ ...request, progress: first.progress })))
      expect(done.releaseId).toBe(first.progress["videoId"])
      const uploads = sim.requests.filter((r) => r.network === "facebook" && r.method === "POST" && r.path.endsWith(`/${c.pageId}/videos`))
      expect(uploads).toHaveLength(1)
      expect(sim.postsOf("facebook").filter((p) => p.account === c.pageId)).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("a video whose answer was lost is found processing (Unfinished) and continued, never sent twice", async () => {
    const c = page()
    sim.setProcessingDelay(400)
    sim.fail({ network: "facebook", op: "publish", mode: "accept-then-reset", times: 1 })
    try {
      const request = requestFor(c, { content: "A lost clip", media: [video] })
      expect((await run(adapter.publish(request)))._tag).toBe("NoAnswer")
      const lost = await run(adapter.search(request))
      if (lost._tag !== "Unfinished") throw new Error(`expected Unfinished, got ${lost._tag}`)
      await new Promise((r) => setTimeout(r, 500))
      const done = published(await run(adapter.publish({ ...request, progress: lost.progress })))
      expect(
        sim
          .postsOf("facebook")
          .filter((p) => p.account === c.pageId)
          .map((p) => p.id)
      ).toEqual([done.releaseId])
      expect(await run(adapter.search(request))).toMatchObject({ _tag: "Found", releaseId: done.releaseId })
    } finally {
      sim.clearFaults()
      sim.setProcessingDelay(0)
    }
  })

  it("a follow-up whose answer was lost is found among the post's comments", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "with comments" }))))
    const followUp = requestFor(c, { content: "the comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
    expect((await run(adapter.search(followUp)))._tag).toBe("NotFound")
    const comment = published(await run(adapter.publishFollowUp(followUp)))
    expect(await run(adapter.search(followUp))).toMatchObject({ _tag: "Found", releaseId: comment.releaseId })
  })

  it("search finds a post by its text, and says NotFound for one never sent", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "findable text" }))))
    expect(await run(adapter.search(requestFor(c, { content: "findable  text" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: "never sent" }))))._tag).toBe("NotFound")
  })

  it("statistics: page insights and a post's counts", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted" }))))
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 7))
    expect(channel._tag === "Metrics" && channel.metrics.map((m) => m.label)).toEqual(["Reach", "Engagements"])
    const post = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => m.label)).toEqual(["Reactions", "Comments", "Shares"])
  })

  it("a page token that stopped working is rejected with reconnect", async () => {
    const answer = await run(adapter.publish(requestFor({ accessToken: "facebook-access-dead", pageId: "1" }, { content: "x" })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("Reconnect") })
  })
})

describe("Facebook: faults", () => {
  faultMatrix({ network: "facebook", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(page(), { content }) })
})
