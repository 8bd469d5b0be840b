import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeBlueskyAdapterWith } from "./adapter.js"
import { linkFacets } from "./richText.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { blueskyModule, seedBlueskyAccount } from "./simulator.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"

/** The Bluesky adapter against the simulator's PDS. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/b.png", "A blue sky")

beforeAll(async () => {
  sim = await startSimulatorCore([blueskyModule])
  adapter = await buildAdapter(makeBlueskyAdapterWith({ appUrl: "https://bsky.app" }), adapterDeps(sim, new Map([[image.url, PNG]])))
})
afterAll(() => sim.close())

const account = () => seedBlueskyAccount(sim, { handle: `h${Math.random().toString(36).slice(2, 8)}.bsky.test` })
const didOf = async (c: ReturnType<typeof account>) => (await run(adapter.verify(c))).credentials["did"] as string

describe("Bluesky: connecting with a form", () => {
  it("verify makes a session with the app password and keeps the did and handle", async () => {
    const c = account()
    const connected = await run(adapter.verify(c))
    expect(connected.credentials).toMatchObject({
      service: sim.baseOf("bluesky"),
      identifier: c.identifier,
      did: expect.stringMatching(/^did:plc:/),
      handle: c.identifier
    })
    expect(adapter.connect.kind).toBe("form")
  })

  it.each([
    [{ service: "x", identifier: "a" }, /appPassword/],
    [{ service: "SIM", identifier: "nobody.bsky.test", appPassword: "wrong" }, /refused/]
  ])("verify refuses %j", async (input, message) => {
    const given = { ...input, ...(input.service === "SIM" ? { service: sim.baseOf("bluesky") } : {}) }
    const result = await Effect.runPromise(Effect.either(adapter.verify(given)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })
})

describe("Bluesky: publishing", () => {
  it("a post with an image and a link facet, and a thread whose replies name the root and the parent", async () => {
    const c = account()
    const did = await didOf(c)
    const root = published(await run(adapter.publish(requestFor(c, { content: "Read https://example.com/a — café ☕", media: [image] }))))
    expect(root.releaseId).toMatch(new RegExp(`^at://${did}/app.bsky.feed.post/`))
    expect(root.releaseUrl).toMatch(new RegExp(`^https://bsky.app/profile/${c.identifier}/post/`))
    const second = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "two", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const third = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "three", position: 2, previousReleaseId: second.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const held = sim.postsOf("bluesky").filter((p) => p.account === did)
    expect(held[0]).toMatchObject({ media: [expect.objectContaining({ mime: "image/png", size: PNG.length, alt: "A blue sky" })] })
    expect(held[0]!.extra["facets"]).toEqual(linkFacets("Read https://example.com/a — café ☕"))
    expect(held.find((p) => p.id === second.releaseId)).toMatchObject({
      replyTo: root.releaseId,
      extra: expect.objectContaining({ root: root.releaseId })
    })
    expect(held.find((p) => p.id === third.releaseId)).toMatchObject({
      replyTo: second.releaseId,
      extra: expect.objectContaining({ root: root.releaseId })
    })
  })

  it("link facets count UTF-8 bytes", () => {
    expect(linkFacets("é https://a.b/c")).toEqual([
      { index: { byteStart: 3, byteEnd: 16 }, features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://a.b/c" }] }
    ])
  })

  it("the same item sent twice is one record (the record key comes from the item)", async () => {
    const c = account()
    const request = requestFor(c, { content: "only once on bluesky" })
    const a = published(await run(adapter.publish(request)))
    const b = published(await run(adapter.publish(request)))
    expect(b.releaseId).toBe(a.releaseId)
    expect(sim.postsOf("bluesky").filter((p) => p.text === "only once on bluesky")).toHaveLength(1)
  })

  it("more than 300 graphemes is rejected with the PDS's reason and a fix", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "👍".repeat(301) })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("300 graphemes"), fix: expect.stringContaining("Shorten") })
  })

  it("search finds the account's post by its text; a failed search cannot tell", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "find me on bluesky" }))))
    expect(await run(adapter.search(requestFor(c, { content: "find me on bluesky" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: "never posted" }))))._tag).toBe("NotFound")
    sim.fail({ network: "bluesky", op: "search", mode: "unavailable", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "find me on bluesky" }))))._tag).toBe("CannotTell")
  })

  it("statistics of the account and of a post", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted" }))))
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 30))
    expect(channel._tag === "Metrics" && channel.metrics.map((m) => m.label)).toEqual(["Followers", "Following", "Posts"])
    const post = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(post._tag === "Metrics" && post.metrics[0]).toMatchObject({ label: "Likes", data: [{ total: 5 }] })
  })
})

describe("Bluesky: faults", () => {
  faultMatrix({
    network: "bluesky",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(account(), { content }),
    // an expired session is renewed and the record made once
    overrides: { "expired-token": [["Published"], "one"] }
  })
})
