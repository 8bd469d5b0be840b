import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { classifyHashnode, makeHashnodeAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { hashnodeModule, seedHashnodeAccount, seedHashnodeSeries } from "./simulator.js"

/** The Hashnode adapter against the simulated GraphQL API. */

let sim: Simulator
let adapter: NetworkAdapter
const cover = imageMedia("http://files.test/cover.png", "Cover")

beforeAll(async () => {
  sim = await startSimulatorCore([hashnodeModule])
  adapter = await buildAdapter(makeHashnodeAdapterWith({ apiUrl: sim.baseOf("hashnode") }), adapterDeps(sim, new Map([[cover.url, PNG]])))
})
afterAll(() => sim.close())

const title = () => `Article ${crypto.randomUUID().slice(0, 8)}`

describe("Hashnode: connecting with a token and a publication", () => {
  it("verify reads the user and checks the publication is theirs", async () => {
    const given = seedHashnodeAccount(sim, { username: "grace", title: "Grace writes" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toMatchObject({ token: given.token, publicationId: given.publicationId, username: "grace" })
    expect(connected.profile).toMatchObject({ accountId: given.publicationId, name: "Grace writes", profile: "grace" })
  })

  it.each([
    [{ token: "nope", publicationId: "0".repeat(24) }, /authenticated/],
    [{ token: "x" }, /publicationId/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })

  it("verify refuses another user's publication", async () => {
    const a = seedHashnodeAccount(sim)
    const b = seedHashnodeAccount(sim)
    const result = await Effect.runPromise(Effect.either(adapter.verify({ token: a.token, publicationId: b.publicationId })))
    expect(Either.isLeft(result) && result.left.message).toMatch(/not one of/)
  })
})

describe("Hashnode: publishing an article", () => {
  it("publishPost with title, subtitle, tags as slugs, canonical URL, series and the cover's address", async () => {
    const account = seedHashnodeAccount(sim)
    const series = seedHashnodeSeries(sim, account.publicationId)
    const t = title()
    const settings = { title: t, subtitle: "A subtitle", tags: ["Web Dev", "graphql"], canonical_url: "https://blog.example/a", series }
    const answer = published(await run(adapter.publish(requestFor(account, { content: "# Hi\n\nMarkdown body", media: [cover], settings }))))
    const held = sim.postsOf("hashnode").filter((p) => p.extra["title"] === t)
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({
      id: answer.releaseId,
      url: answer.releaseUrl,
      account: account.publicationId,
      text: "# Hi\n\nMarkdown body",
      extra: {
        subtitle: "A subtitle",
        tags: [
          { slug: "web-dev", name: "Web Dev" },
          { slug: "graphql", name: "graphql" }
        ],
        originalArticleURL: "https://blog.example/a",
        seriesId: series
      }
    })
    expect(held[0]?.media[0]).toMatchObject({ mime: "image/png", size: PNG.length })
  })

  it.each([
    [{}, /title/],
    [{ tags: Array.from({ length: 16 }, (_, i) => `t${i}`) }, /at most 15 tags/],
    [{ series: "my series" }, /series id/],
    [{ canonical_url: "nowhere" }, /not a web address/]
  ])("settings %j are refused before anything is sent", async (extra, message) => {
    const before = sim.requests.length
    const settings = Object.keys(extra).length === 0 ? {} : { title: title(), ...extra }
    const answer = await run(adapter.publish(requestFor(seedHashnodeAccount(sim), { content: "Body", settings })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringMatching(message) })
    expect(sim.requests.length).toBe(before)
  })

  it("a series Hashnode does not know is refused with its reason (BAD_USER_INPUT)", async () => {
    const answer = await run(
      adapter.publish(requestFor(seedHashnodeAccount(sim), { content: "Body", settings: { title: title(), series: "a".repeat(24) } }))
    )
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("Series not found") })
  })

  it("a publication without Pro is refused with Hashnode's words and the upgrade as the fix", async () => {
    const answer = await run(adapter.publish(requestFor(seedHashnodeAccount(sim, { pro: false }), { content: "Body", settings: { title: title() } })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("Pro plan"), fix: expect.stringContaining("Upgrade") })
  })

  it("Hashnode's INTERNAL_SERVER_ERROR hides what happened: no answer (searched), never published or rejected", () => {
    const body = Buffer.from(JSON.stringify({ errors: [{ message: "Internal server error", extensions: { code: "INTERNAL_SERVER_ERROR" } }] }))
    const answer = classifyHashnode({ _tag: "Response", response: { status: 200, headers: {}, url: "https://gql.hashnode.com", body } })
    expect(answer._tag).toBe("NoAnswer")
  })

  it("a revoked token is rejected with reconnect", async () => {
    const answer = await run(
      adapter.publish(requestFor({ token: "revoked", publicationId: "0".repeat(24) }, { content: "x", settings: { title: title() } }))
    )
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("Reconnect") })
  })
})

describe("Hashnode: a lost answer is settled by the publication's posts", () => {
  it("the post Hashnode took is found by title and Markdown; another is not", async () => {
    const account = seedHashnodeAccount(sim)
    const t = title()
    sim.fail({ network: "hashnode", op: "publish", mode: "accept-then-5xx", times: 1 })
    expect((await run(adapter.publish(requestFor(account, { content: "Lost", settings: { title: t } }))))._tag).toBe("NoAnswer")
    const held = sim.postsOf("hashnode").filter((p) => p.extra["title"] === t)
    expect(await run(adapter.search(requestFor(account, { content: "Lost", settings: { title: t } })))).toEqual({
      _tag: "Found",
      releaseId: held[0]?.id,
      releaseUrl: held[0]?.url
    })
    expect((await run(adapter.search(requestFor(account, { content: "Other", settings: { title: t } }))))._tag).toBe("NotFound")
  })

  it("an unreadable answer cannot tell", async () => {
    sim.fail({ network: "hashnode", op: "search", mode: "garbage", times: 1 })
    const answer = await run(adapter.search(requestFor(seedHashnodeAccount(sim), { content: "x", settings: { title: title() } })))
    sim.clearFaults()
    expect(answer._tag).toBe("CannotTell")
  })
})

describe("Hashnode: statistics", () => {
  it("a post's views, reactions and comments; the publication's followers and posts", async () => {
    const account = seedHashnodeAccount(sim)
    const answer = published(await run(adapter.publish(requestFor(account, { content: "Counted", settings: { title: title() } }))))
    const post = await run(adapter.statistics.post(Redacted.make(account), answer.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Views", 7],
      ["Reactions", 2],
      ["Comments", 1]
    ])
    const channel = await run(adapter.statistics.channel(Redacted.make(account), 30))
    expect(channel._tag === "Metrics" && channel.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Followers", 42],
      ["Posts", 1]
    ])
  })
})

describe("Hashnode: faults", () => {
  faultMatrix({
    network: "hashnode",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(seedHashnodeAccount(sim), { content, settings: { title: title() } })
  })
})
