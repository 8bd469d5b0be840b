import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { classifyLemmy, makeLemmyAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { expireLemmySessions, lemmyModule, seedLemmyAccount } from "./simulator.js"

/** The Lemmy adapter against the simulator's Lemmy API (login, posts, comments, pict-rs, a person's details). */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/l.png")

beforeAll(async () => {
  sim = await startSimulatorCore([lemmyModule])
  adapter = await buildAdapter(makeLemmyAdapterWith(), adapterDeps(sim, new Map([[image.url, PNG]])))
})
afterAll(() => sim.close())

const account = async (username = `u${Math.random().toString(36).slice(2, 8)}`) => {
  const given = seedLemmyAccount(sim, { username })
  return (await run(adapter.verify(given))).credentials
}
const inCommunity = (community: string, title: string, extra: Record<string, unknown> = {}) => ({
  subreddit: [{ subreddit: community, title, ...extra }]
})

describe("Lemmy: connecting", () => {
  it("verify signs in with the password and keeps the JWT and the person", async () => {
    const given = seedLemmyAccount(sim, { username: "alice", password: "s3cret" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toMatchObject({
      instance: sim.baseOf("lemmy"),
      username: "alice",
      password: "s3cret",
      personId: expect.any(Number)
    })
    expect(connected.credentials["jwt"]).toEqual(expect.any(String))
    expect(connected.profile).toMatchObject({ name: "Alice", profile: "alice" })
  })

  it.each([
    [{}, "instance"],
    [{ instance: "https://lemmy.test", username: "a" }, "password"],
    [{ instance: "https://lemmy.test", password: "a" }, "username"]
  ])("verify refuses %j with a message naming the fields", async (input, field) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toContain(field)
  })

  it("a wrong password is refused with Lemmy's reason", async () => {
    seedLemmyAccount(sim, { username: "bob", password: "right" })
    const result = await Effect.runPromise(Effect.either(adapter.verify({ instance: sim.baseOf("lemmy"), username: "bob", password: "wrong" })))
    expect(Either.isLeft(result) && result.left.message).toContain("incorrect_login")
  })
})

describe("Lemmy: publishing", () => {
  it("posts an image post in the community by name, then comments that answer it and each other", async () => {
    const c = await account()
    const root = published(
      await run(adapter.publish(requestFor(c, { content: "The body", media: [image], settings: inCommunity("technology", "A title") })))
    )
    const first = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "a comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const second = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "a reply", position: 2, previousReleaseId: first.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const mine = sim.postsOf("lemmy").filter((p) => p.account === String(c["personId"]))
    expect(mine).toHaveLength(3)
    expect(mine[0]).toMatchObject({ text: "The body", extra: { title: "A title", community: "technology" } })
    expect(mine[0]!.media).toEqual([expect.objectContaining({ mime: "image/png", size: PNG.length, alt: "A cat" })])
    expect(mine[1]).toMatchObject({ text: "a comment", replyTo: mine[0]!.id })
    expect(mine[2]).toMatchObject({ text: "a reply", replyTo: mine[1]!.id })
    expect(root.releaseUrl).toMatch(/\/post\/\d+$/)
    expect(second.releaseId).toMatch(/^\d+:\d+$/)
  })

  it("a post to two communities is one step each: a retry with the progress never posts twice", async () => {
    const c = await account()
    const settings = { subreddit: [{ subreddit: "1", title: "First" }, { value: { subreddit: "photography", title: "Second" } }] }
    const request = requestFor(c, { content: "twice over", settings })
    const step = await run(adapter.publish(request))
    if (step._tag !== "Pending") throw new Error(`expected Pending, got ${step._tag}`)
    const done = published(await run(adapter.publish({ ...request, progress: step.progress })))
    const mine = sim.postsOf("lemmy").filter((p) => p.text === "twice over")
    expect(mine.map((p) => p.extra["title"])).toEqual(["First", "Second"])
    expect(done.releaseUrl).toBe(mine[0]!.url)
  })

  it("a refused JWT signs in again with the stored password and posts once", async () => {
    const c = await account("carol")
    expireLemmySessions(sim, "carol")
    published(await run(adapter.publish(requestFor(c, { content: "after expiry", settings: inCommunity("technology", "Still here") }))))
    expect(sim.postsOf("lemmy").filter((p) => p.text === "after expiry")).toHaveLength(1)
    expect(sim.requests.filter((r) => r.network === "lemmy" && r.path === "/api/v3/user/login").length).toBeGreaterThanOrEqual(2)
  })

  it("a changed password fails the post with a reconnect fix", async () => {
    const c = await account()
    const answer = await run(
      adapter.publish(requestFor({ ...c, jwt: "gone", password: "changed" }, { content: "x", settings: inCommunity("technology", "t") }))
    )
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("current password") })
  })

  it("without a community and title the post is refused before anything is sent", async () => {
    const answer = await run(adapter.publish(requestFor(await account(), { content: "nowhere" })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("subreddit") })
  })

  it("an unknown community is refused with a fix naming the tool", async () => {
    const answer = await run(adapter.publish(requestFor(await account(), { content: "lost", settings: inCommunity("nosuch", "t") })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("communities tool") })
  })

  it("a file that cannot be read fails the item before anything is posted", async () => {
    const answer = await run(
      adapter.publish(
        requestFor(await account(), {
          content: "lost file",
          media: [imageMedia("http://files.test/gone.png")],
          settings: inCommunity("technology", "t")
        })
      )
    )
    expect(answer._tag).toBe("Rejected")
    expect(sim.postsOf("lemmy").filter((p) => p.text === "lost file")).toHaveLength(0)
  })

  it("classify never calls a 2xx without a post published", () => {
    expect(classifyLemmy({ _tag: "Response", response: { status: 200, headers: {}, url: "", body: Buffer.from("{}") } })._tag).toBe("NoAnswer")
    const limited = classifyLemmy({
      _tag: "Response",
      response: { status: 400, headers: {}, url: "", body: Buffer.from('{"error":"rate_limit_error"}') }
    })
    expect(limited._tag).toBe("RateLimited")
  })
})

describe("Lemmy: search", () => {
  it("finds the account's post by community, title and body, and its comment under the post", async () => {
    const c = await account()
    const settings = inCommunity("technology", "Findable")
    const root = published(await run(adapter.publish(requestFor(c, { content: "find me", settings }))))
    const reply = published(await run(adapter.publishFollowUp(requestFor(c, { content: "and me", position: 1, previousReleaseId: root.releaseId }))))
    expect(await run(adapter.search(requestFor(c, { content: "find me", settings })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect(await run(adapter.search(requestFor(c, { content: "and me", position: 1, previousReleaseId: root.releaseId })))).toMatchObject({
      _tag: "Found",
      releaseId: reply.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "never sent", settings }))))._tag).toBe("NotFound")
  })

  it("a search that fails cannot tell", async () => {
    const c = await account()
    sim.fail({ network: "lemmy", op: "search", mode: "5xx", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "x", settings: inCommunity("technology", "t") }))))._tag).toBe("CannotTell")
  })
})

describe("Lemmy: tools and statistics", () => {
  it("communities lists them or resolves one by name; subreddits searches by word", async () => {
    const c = await account()
    const call = (methodName: string, data: Record<string, unknown>) =>
      run(adapter.runTool({ channel: channelRow("lemmy"), credentials: Redacted.make(c), methodName, data }))
    expect(await call("communities", {})).toMatchObject({ communities: expect.arrayContaining([expect.objectContaining({ name: "technology" })]) })
    expect(await call("communities", { name: "!photography" })).toMatchObject({ communities: [expect.objectContaining({ name: "photography" })] })
    expect(await call("subreddits", { word: "sched" })).toMatchObject({ subreddits: [expect.objectContaining({ name: "scheduling" })] })
  })

  it("reads a post's and the account's numbers", async () => {
    const c = await account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted", settings: inCommunity("technology", "t") }))))
    const post = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => m.label)).toEqual(["Score", "Upvotes", "Downvotes", "Comments"])
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 30))
    expect(channel._tag === "Metrics" && channel.metrics[0]?.data[0]?.total).toBe(1)
  })
})

describe("Lemmy: faults", () => {
  let c: Record<string, unknown>
  beforeAll(async () => {
    c = await account("faulty")
  })
  faultMatrix({
    network: "lemmy",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(c, { content, settings: inCommunity("technology", content.slice(0, 100)) }),
    // a refused session is renewed with the stored password and the post made once
    overrides: { "expired-token": [["Published"], "one"] }
  })
})
