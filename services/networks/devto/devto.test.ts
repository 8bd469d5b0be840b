import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeDevtoAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { devtoModule, seedDevtoAccount } from "./simulator.js"

/** The dev.to adapter against the simulated Forem API v1. */

let sim: Simulator
let adapter: NetworkAdapter
const cover = imageMedia("http://files.test/cover.png", "Cover")

beforeAll(async () => {
  sim = await startSimulatorCore([devtoModule])
  adapter = await buildAdapter(makeDevtoAdapterWith({ apiUrl: sim.baseOf("devto") }), adapterDeps(sim, new Map([[cover.url, PNG]])))
})
afterAll(() => sim.close())

const title = () => `Article ${crypto.randomUUID().slice(0, 8)}`

describe("dev.to: connecting with an API key", () => {
  it("verify reads the account and keeps its id", async () => {
    const given = seedDevtoAccount(sim, { username: "ada" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toMatchObject({ apiKey: given.apiKey, username: "ada" })
    expect(connected.profile).toMatchObject({ profile: "ada" })
    expect(adapter.connect.kind).toBe("form")
  })

  it.each([
    [{ apiKey: "not-a-key" }, /refused/],
    [{}, /apiKey/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })
})

describe("dev.to: publishing an article", () => {
  it("an article with its title, tags, canonical URL, series, description and cover image", async () => {
    const account = seedDevtoAccount(sim)
    const t = title()
    const settings = {
      title: t,
      tags: ["typescript", { value: "effect" }],
      canonical_url: "https://blog.example/first",
      series: "Effect notes",
      description: "What we learnt"
    }
    const answer = published(await run(adapter.publish(requestFor(account, { content: "# Hello\n\nBody **bold**", media: [cover], settings }))))
    const held = sim.postsOf("devto").filter((p) => p.extra["title"] === t)
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({
      id: answer.releaseId,
      url: answer.releaseUrl,
      text: "# Hello\n\nBody **bold**",
      extra: {
        tags: ["typescript", "effect"],
        published: true,
        canonical_url: "https://blog.example/first",
        series: "Effect notes",
        description: "What we learnt"
      }
    })
    expect(held[0]?.media[0]).toMatchObject({ mime: "image/png", size: PNG.length })
  })

  it.each([
    [{}, /title/],
    [{ tags: ["a", "b", "c", "d", "e"] }, /at most 4 tags/],
    [{ title: "t".repeat(129) }, /at most 128 characters/],
    [{ tags: ["c++"] }, /letters and digits/],
    [{ canonical_url: "blog/first" }, /not a web address/]
  ])("settings %j are refused before anything is sent", async (extra, message) => {
    const before = sim.requests.length
    // no settings at all: the title is missing
    const settings = Object.keys(extra).length === 0 ? {} : { title: title(), ...extra }
    const answer = await run(adapter.publish(requestFor(seedDevtoAccount(sim), { content: "Body", settings })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringMatching(message) })
    expect(sim.requests.length).toBe(before)
  })

  it("a second article with the same title and text is refused by dev.to with its reason", async () => {
    const account = seedDevtoAccount(sim)
    const settings = { title: title() }
    published(await run(adapter.publish(requestFor(account, { content: "Same body", settings }))))
    const again = await run(adapter.publish(requestFor(account, { content: "Same body", settings })))
    expect(again).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("already") })
  })

  it("follow-ups are refused: the API posts no comments", async () => {
    const answer = await run(adapter.publishFollowUp(requestFor(seedDevtoAccount(sim), { content: "c", position: 1, previousReleaseId: "1" })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("comments") })
  })

  it("a revoked key is rejected with reconnect", async () => {
    const answer = await run(adapter.publish(requestFor({ apiKey: "revoked" }, { content: "x", settings: { title: title() } })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("Reconnect") })
  })
})

describe("dev.to: a lost answer is settled by the account's articles", () => {
  it("the article dev.to took is found by its title and body; another is not", async () => {
    const account = seedDevtoAccount(sim)
    const t = title()
    sim.fail({ network: "devto", op: "publish", mode: "accept-then-reset", times: 1 })
    const lost = await run(adapter.publish(requestFor(account, { content: "Lost body", settings: { title: t } })))
    expect(lost._tag).toBe("NoAnswer")
    const found = await run(adapter.search(requestFor(account, { content: "Lost body", settings: { title: t } })))
    const held = sim.postsOf("devto").filter((p) => p.extra["title"] === t)
    expect(found).toEqual({ _tag: "Found", releaseId: held[0]?.id, releaseUrl: held[0]?.url })
    const other = await run(adapter.search(requestFor(account, { content: "Other body", settings: { title: t } })))
    expect(other._tag).toBe("NotFound")
  })

  it("a list dev.to does not answer cannot tell", async () => {
    sim.fail({ network: "devto", op: "search", mode: "5xx", times: 1 })
    const answer = await run(adapter.search(requestFor(seedDevtoAccount(sim), { content: "x", settings: { title: title() } })))
    sim.clearFaults()
    expect(answer._tag).toBe("CannotTell")
  })
})

describe("dev.to: statistics", () => {
  it("an article's views, reactions and comments; the account's totals", async () => {
    const account = seedDevtoAccount(sim)
    const answer = published(await run(adapter.publish(requestFor(account, { content: "Counted", settings: { title: title() } }))))
    const post = await run(adapter.statistics.post(Redacted.make(account), answer.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Views", 12],
      ["Reactions", 3],
      ["Comments", 1]
    ])
    const channel = await run(adapter.statistics.channel(Redacted.make(account), 30))
    expect(channel._tag === "Metrics" && channel.metrics[0]).toMatchObject({ label: "Articles", data: [{ total: 1 }] })
  })
})

describe("dev.to: faults", () => {
  faultMatrix({
    network: "devto",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(seedDevtoAccount(sim), { content, settings: { title: title() } })
  })
})
