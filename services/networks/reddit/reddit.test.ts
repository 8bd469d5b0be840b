import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { reddit } from "../../../domain/networks/social.js"
import { settingsProblems } from "../../../domain/posts/rules.js"
import { makeRedditAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import {
  adapterDeps,
  buildAdapter,
  channelRow,
  imageMedia,
  JPEG,
  PNG,
  published,
  requestFor,
  run,
  videoWithCover
} from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { redditModule, seedRedditAccount } from "./simulator.js"

/** The Reddit adapter against the simulator's Reddit API. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/reddit.png")
const MP4 = Buffer.from("000000186674797069736f6d0000020069736f6d69736f32", "hex")
// a video as the publisher hands it over once prepared: its cover frame under coverKey
const clip = videoWithCover("http://files.test/clip.mp4", "ws/clip.cover.jpg")

beforeAll(async () => {
  sim = await startSimulatorCore([redditModule])
  adapter = await buildAdapter(
    makeRedditAdapterWith({
      apiUrl: sim.baseOf("reddit"),
      authUrl: sim.baseOf("reddit"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(
      sim,
      new Map([
        [image.url, PNG],
        [clip.url, MP4],
        ["ws/clip.cover.jpg", JPEG]
      ])
    )
  )
})
afterAll(() => sim.close())

const account = (expiresInMs?: number) =>
  seedRedditAccount(sim, { username: `r${Math.random().toString(36).slice(2, 8)}`, ...(expiresInMs === undefined ? {} : { expiresInMs }) })
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`
const inTest = (title: string, more: Record<string, unknown> = {}) => ({ subreddit: [{ subreddit: "test", title, ...more }] })

describe("Reddit: connecting", () => {
  it("signs in with state and duration=permanent; the code is exchanged with HTTP Basic app credentials", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Reddit connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/reddit"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st-r", redirectUri, codeVerifier: "v", instance: null })))
    expect(url.pathname).toBe("/reddit/api/v1/authorize")
    expect(url.searchParams.get("duration")).toBe("permanent")
    expect(url.searchParams.get("state")).toBe("st-r")
    expect(url.searchParams.get("scope")).toContain("submit")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st-r")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v", instance: null, query: {} })
    )
    expect(connected.credentials).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), username: "redditor" })
    expect(connected.profile.picture).toBe("https://styles.redditmedia.com/icon.png?a=1&b=2")
  })

  it("verify with the CLI's fields; a missing field names the fields", async () => {
    const connected = await run(adapter.verify(account()))
    expect(connected.profile.profile).toMatch(/^r/)
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "x" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/accessToken, refreshToken and expiresAt/)
  })
})

describe("Reddit: token refresh", () => {
  it("unchanged while the token lasts; refreshed ten minutes ahead keeping the refresh token; a refused refresh fails", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account(60_000)
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials["accessToken"]).not.toBe(expiring.accessToken)
    expect(refreshed.credentials["refreshToken"]).toBe(expiring.refreshToken)
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "revoked" }))))._tag).toBe("Failed")
    sim.fail({ network: "reddit", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account(60_000)))))._tag).toBe("Unavailable")
  })
})

describe("Reddit: publishing", () => {
  it("a self post with the subreddit and title of the settings; a comment answers it", async () => {
    const c = account()
    const title = unique("Hello")
    const post = published(await run(adapter.publish(requestFor(c, { content: "The body", settings: inTest(title) }))))
    expect(post.releaseId).toMatch(/^t3_/)
    expect(post.releaseUrl).toMatch(/^https:\/\/www\.reddit\.com\/r\/test\/comments\//)
    const held = sim.postsOf("reddit").find((p) => p.id === post.releaseId)
    expect(held).toMatchObject({ text: "The body", extra: { subreddit: "test", title, kind: "self" } })
    const reply = published(
      await run(adapter.publishFollowUp(requestFor(c, { content: "A comment", previousReleaseId: post.releaseId, rootReleaseId: post.releaseId })))
    )
    expect(reply.releaseId).toMatch(/^t1_/)
    expect(sim.postsOf("reddit").find((p) => p.id === reply.releaseId)?.replyTo).toBe(post.releaseId)
  })

  it("a link post; an image post through Reddit's upload lease (its id found in the account's submissions)", async () => {
    const c = account()
    const link = published(
      await run(adapter.publish(requestFor(c, { content: "", settings: inTest(unique("Link"), { type: "link", url: "https://example.com/a" }) })))
    )
    expect(sim.postsOf("reddit").find((p) => p.id === link.releaseId)?.extra).toMatchObject({ kind: "link", url: "https://example.com/a" })
    const title = unique("Picture")
    const pic = published(await run(adapter.publish(requestFor(c, { content: "", media: [image], settings: inTest(title, { type: "media" }) }))))
    const held = sim.postsOf("reddit").find((p) => p.id === pic.releaseId)
    expect(held?.extra).toMatchObject({ kind: "image", title })
    expect(held?.media[0]).toMatchObject({ mime: "image/png", size: PNG.length })
  })

  it("a subreddit that asks for a flair: refused with Reddit's text and the flairs to choose; with flair_id it posts", async () => {
    const c = account()
    const title = unique("Art")
    const refused = await run(
      adapter.publish(requestFor(c, { content: "", media: [image], settings: { subreddit: [{ subreddit: "pics", title }] } }))
    )
    if (refused._tag !== "Rejected") throw new Error(`expected Rejected, got ${refused._tag}`)
    expect(refused.message).toContain("Your post must contain post flair.")
    expect(refused.fix).toContain("flair-oc")
    const ok = published(
      await run(
        adapter.publish(
          requestFor(c, {
            content: "",
            media: [image],
            settings: { subreddit: [{ value: { subreddit: "pics", title, flair: { id: "flair-oc", name: "OC" } } }] }
          })
        )
      )
    )
    expect(sim.postsOf("reddit").find((p) => p.id === ok.releaseId)?.extra["flair_id"]).toBe("flair-oc")
  })

  it("Reddit's json.errors are refusals with its text; RATELIMIT is a wait", async () => {
    const c = account()
    const answer = await run(adapter.publish(requestFor(c, { content: "x", settings: { subreddit: [{ subreddit: "nowhere", title: "t" }] } })))
    expect(answer._tag).toBe("Rejected")
    if (answer._tag === "Rejected") expect(answer.message).toContain("that community doesn't exist")
    const limited = adapter.classify({
      _tag: "Response",
      response: {
        url: "https://oauth.reddit.com/api/submit",
        status: 200,
        headers: {},
        body: Buffer.from(JSON.stringify({ json: { errors: [["RATELIMIT", "Take a break for 5 minutes before trying again.", "ratelimit"]] } }))
      }
    })
    expect(limited).toEqual({ _tag: "RateLimited", retryAfterMs: 300_000 })
    const limited429 = adapter.classify({
      _tag: "Response",
      response: { url: "https://oauth.reddit.com/api/submit", status: 429, headers: { "x-ratelimit-reset": "42" }, body: Buffer.from("{}") }
    })
    expect(limited429).toEqual({ _tag: "RateLimited", retryAfterMs: 42_000 })
    // no subreddit at all: nothing is sent
    const before = sim.requests.length
    expect((await run(adapter.publish(requestFor(c, { content: "x", settings: {} }))))._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
  })

  it("a post to two subreddits is one step each: Pending with the first, then Published; never a second copy", async () => {
    const c = account()
    const title = unique("Twice")
    const settings = {
      subreddit: [
        { subreddit: "test", title },
        { subreddit: "news", title, type: "link", url: "https://example.com/n" }
      ]
    }
    const first = await run(adapter.publish(requestFor(c, { content: "body", settings })))
    if (first._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(first)}`)
    // the search goes on from where the post stands
    expect((await run(adapter.search(requestFor(c, { content: "body", settings, progress: first.progress }))))._tag).toBe("Unfinished")
    const done = published(await run(adapter.publish(requestFor(c, { content: "body", settings, progress: first.progress }))))
    const held = sim.postsOf("reddit").filter((p) => p.extra["title"] === title)
    expect(held.map((p) => p.extra["subreddit"]).sort()).toEqual(["news", "test"])
    expect(done.releaseId).toBe(held.find((p) => p.extra["subreddit"] === "test")?.id)
    // publishing again with the final progress sends nothing more
    const final = {
      done: ["test", "news"].map((sr) => {
        const p = held.find((h) => h.extra["subreddit"] === sr)
        return { subreddit: sr, name: p?.id ?? "", url: p?.url ?? "" }
      })
    }
    const again = await run(adapter.publish(requestFor(c, { content: "body", settings, progress: final })))
    expect(again._tag).toBe("Published")
    expect(sim.postsOf("reddit").filter((p) => p.extra["title"] === title)).toHaveLength(2)
  })

  it("a video post: the video and its cover as poster through the upload lease, submitted as kind=video, its id from the submissions", async () => {
    const c = account()
    const title = unique("Clip")
    const post = published(await run(adapter.publish(requestFor(c, { content: "", media: [clip], settings: inTest(title, { type: "media" }) }))))
    const held = sim.postsOf("reddit").filter((p) => p.extra["title"] === title)
    expect(held).toHaveLength(1)
    expect(held[0]?.id).toBe(post.releaseId)
    expect(held[0]?.extra).toMatchObject({ kind: "video", video_poster_url: expect.stringContaining("/s3/rte_images/") })
    expect(held[0]?.media.map((m) => [m.mime, m.size])).toEqual([
      ["video/mp4", MP4.length],
      ["image/jpeg", JPEG.length]
    ])
  })

  it("a video Reddit is still processing is Pending and looked for again, never submitted twice; the search keeps waiting", async () => {
    const c = account()
    const title = unique("Slow clip")
    const settings = inTest(title, { type: "media" })
    sim.setProcessingDelay(600)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: "", media: [clip], settings })))
      if (first._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(first)}`)
      expect(first.progress).toMatchObject({ done: [], awaiting: { subreddit: "test" } })
      // not listed yet: the search must not answer NotFound (that would post it again)
      expect(await run(adapter.search(requestFor(c, { content: "", media: [clip], settings, progress: first.progress })))).toMatchObject({
        _tag: "Unfinished",
        progress: first.progress
      })
      const again = await run(adapter.publish(requestFor(c, { content: "", media: [clip], settings, progress: first.progress })))
      expect(again._tag).toBe("Pending")
      await new Promise((resolve) => setTimeout(resolve, 700))
      const done = published(await run(adapter.publish(requestFor(c, { content: "", media: [clip], settings, progress: first.progress }))))
      const held = sim.postsOf("reddit").filter((p) => p.extra["title"] === title)
      expect(held.map((p) => p.id)).toEqual([done.releaseId])
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("a video without a cover (not prepared by the media library) is refused with a fix before anything is sent", async () => {
    const bare = videoWithCover(clip.url, null)
    const before = sim.requests.length
    const answer = await run(adapter.publish(requestFor(account(), { content: "", media: [bare], settings: inTest("v") })))
    if (answer._tag !== "Rejected") throw new Error(`expected Rejected, got ${answer._tag}`)
    expect(answer.message).toContain("poster image")
    expect(answer.fix).toContain("media library")
    expect(sim.requests.length).toBe(before)
  })
})

describe("Reddit: search, statistics and tools", () => {
  it("search finds the account's submission by subreddit and title, else not found", async () => {
    const c = account()
    const title = unique("Lost")
    const post = published(await run(adapter.publish(requestFor(c, { content: "b", settings: inTest(title) }))))
    expect(await run(adapter.search(requestFor(c, { content: "b", settings: inTest(title) })))).toMatchObject({
      _tag: "Found",
      releaseId: post.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "b", settings: inTest(unique("never")) }))))._tag).toBe("NotFound")
    sim.fail({ network: "reddit", op: "search", mode: "5xx", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "b", settings: inTest(title) }))))._tag).toBe("CannotTell")
  })

  it("a post's score and comments; the account's karma", async () => {
    const c = account()
    const post = published(await run(adapter.publish(requestFor(c, { content: "b", settings: inTest(unique("Stats")) }))))
    await run(adapter.publishFollowUp(requestFor(c, { content: "c", previousReleaseId: post.releaseId })))
    const stats = await run(adapter.statistics.post(Redacted.make(c), post.releaseId))
    if (stats._tag !== "Metrics") throw new Error(stats.message)
    expect(stats.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Score", 1],
      ["Comments", 1]
    ])
    expect((await run(adapter.statistics.channel(Redacted.make(c), 7)))._tag).toBe("Metrics")
    expect((await run(adapter.statistics.post(Redacted.make(c), "t3_none")))._tag).toBe("Missing")
  })

  it("the subreddits tool searches subreddits by a word; another tool is refused", async () => {
    const c = account()
    const answer = await run(
      adapter.runTool({ channel: channelRow("reddit"), credentials: Redacted.make(c), methodName: "subreddits", data: { word: "pic" } })
    )
    expect(answer["subreddits"]).toEqual([{ subreddit: "pics", title: "Pictures", subscribers: 1000, submissionType: "link" }])
    const other = await Effect.runPromise(
      Effect.either(adapter.runTool({ channel: channelRow("reddit"), credentials: Redacted.make(c), methodName: "flairs", data: {} }))
    )
    expect(Either.isLeft(other)).toBe(true)
  })
})

describe("Reddit: rules before saving", () => {
  it("every subreddit entry needs a subreddit and a title (either shape of entry)", () => {
    expect(settingsProblems("R", reddit, inTest("A title"))).toEqual([])
    expect(settingsProblems("R", reddit, { subreddit: [{ value: { subreddit: "test", title: "T" } }] })).toEqual([])
    expect(settingsProblems("R", reddit, { subreddit: [{ subreddit: "test" }, { value: { title: "T" } }] })).toEqual([
      "R: entry 1 of the setting subreddit needs a title.",
      "R: entry 2 of the setting subreddit needs a subreddit."
    ])
    expect(settingsProblems("R", reddit, {})).toEqual(["R: the setting subreddit (Subreddits) is required."])
  })
})

describe("Reddit: faults", () => {
  const c = { value: undefined as ReturnType<typeof account> | undefined }
  faultMatrix({
    network: "reddit",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => {
      c.value ??= account()
      return requestFor(c.value, { content, settings: inTest(content) })
    }
  })
})
