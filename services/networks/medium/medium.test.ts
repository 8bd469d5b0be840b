import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeMediumAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { mediumModule, seedMediumAccount } from "./simulator.js"

/** The Medium adapter against the simulator's Medium API. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/medium.png", "A lighthouse")

beforeAll(async () => {
  sim = await startSimulatorCore([mediumModule])
  adapter = await buildAdapter(makeMediumAdapterWith({ apiUrl: sim.baseOf("medium") }), adapterDeps(sim, new Map([[image.url, PNG]])))
})
afterAll(() => sim.close())

const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`
/** A seeded account as verify stores it (with the author id). */
const account = async () =>
  (await run(adapter.verify(seedMediumAccount(sim, { username: `w${Math.random().toString(36).slice(2, 8)}` })))).credentials

describe("Medium: connecting", () => {
  it("verify reads GET /me and keeps the author id; a bad token or a missing field is refused plainly", async () => {
    const given = seedMediumAccount(sim, { username: "jamie" })
    const connected = await run(adapter.verify(given))
    expect(connected.profile).toMatchObject({ name: "jamie", profile: "jamie" })
    expect(connected.credentials).toEqual({ integrationToken: given.integrationToken, authorId: connected.profile.accountId })
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ integrationToken: "revoked" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/refused these credentials \(401\)/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ token: "x" })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/integrationToken/)
    expect(adapter.connect.kind).toBe("form")
    expect(adapter.tokensNeverExpire).toBe(true)
  })
})

describe("Medium: publishing", () => {
  it("an article in Markdown: the title as its heading, tags, canonical address and status as set", async () => {
    const c = await account()
    const body = unique("The article's body")
    const answer = published(
      await run(
        adapter.publish(
          requestFor(c, {
            content: body,
            settings: {
              title: "Liverpool FC",
              tags: "football, sport, Liverpool, fourth",
              canonicalUrl: "https://blog.example/lfc",
              publishStatus: "draft"
            }
          })
        )
      )
    )
    const post = sim.postsOf("medium").find((p) => p.id === answer.releaseId)
    expect(post?.text).toBe(body)
    expect(post?.extra).toMatchObject({
      title: "Liverpool FC",
      contentFormat: "markdown",
      content: `# Liverpool FC\n\n${body}`,
      tags: ["football", "sport", "Liverpool"],
      canonicalUrl: "https://blog.example/lfc",
      publishStatus: "draft"
    })
    expect(answer.releaseUrl).toMatch(/^https:\/\/medium\.com\/@w[a-z0-9]+\/liverpool-fc-/)
  })

  it("an image is uploaded with POST /images and shown under the title by Medium's address; HTML as the format", async () => {
    const c = await account()
    const body = `<p>${unique("html body")}</p>`
    const answer = published(
      await run(adapter.publish(requestFor(c, { content: body, media: [image], settings: { title: "Pictures & words", contentFormat: "html" } })))
    )
    const post = sim.postsOf("medium").find((p) => p.id === answer.releaseId)
    expect(post?.text).toBe(body)
    expect(post?.media).toEqual([{ id: expect.stringMatching(/^https:\/\/cdn-images-1\.medium\.com\//), mime: "image/png", size: PNG.length }])
    expect(post?.extra["content"]).toMatch(
      /^<h1>Pictures &amp; words<\/h1><img src="https:\/\/cdn-images-1\.medium\.com\/[^"]+" alt="A lighthouse"><p>/
    )
    expect(sim.requests.filter((r) => r.network === "medium" && r.path === "/images").length).toBeGreaterThan(0)
  })

  it("credentials saved without the author id ask GET /me first; no title or a video is refused before anything is posted", async () => {
    const bare = seedMediumAccount(sim)
    const answer = published(await run(adapter.publish(requestFor(bare, { content: unique("bare"), settings: { title: "T" } }))))
    expect(sim.postsOf("medium").some((p) => p.id === answer.releaseId)).toBe(true)
    const c = await account()
    const before = sim.postsOf("medium").length
    expect((await run(adapter.publish(requestFor(c, { content: "no title" }))))._tag).toBe("Rejected")
    const video = { ...image, mime: "video/mp4", type: "video" as const, name: "clip.mp4" }
    expect((await run(adapter.publish(requestFor(c, { content: "a video", media: [video], settings: { title: "T" } }))))._tag).toBe("Rejected")
    expect(sim.postsOf("medium").length).toBe(before)
  })

  it("Medium's refusal (403: not the token's author) is rejected with its words", async () => {
    const c = await account()
    const answer = await run(adapter.publish(requestFor({ ...c, authorId: "someone-else" }, { content: "x", settings: { title: "T" } })))
    expect(answer._tag).toBe("Rejected")
    if (answer._tag === "Rejected") expect(answer.message).toMatch(/does not have permission/)
  })

  it("no follow-ups, no search (Medium cannot list posts: unconfirmed), no statistics, no tools", async () => {
    const c = await account()
    expect((await run(adapter.publishFollowUp(requestFor(c, { content: "more", previousReleaseId: "1" }))))._tag).toBe("Rejected")
    expect((await run(adapter.search(requestFor(c, { content: "anything" }))))._tag).toBe("CannotTell")
    expect((await run(adapter.statistics.channel(Redacted.make(c), 7)))._tag).toBe("Missing")
    const tool = await Effect.runPromise(
      Effect.either(adapter.runTool({ channel: channelRow("medium"), credentials: Redacted.make(c), methodName: "x", data: {} }))
    )
    expect(Either.isLeft(tool)).toBe(true)
  })
})

describe("Medium: faults", () => {
  const c = { value: undefined as Record<string, unknown> | undefined }
  beforeAll(async () => {
    c.value = await account()
  })
  faultMatrix({
    network: "medium",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(c.value ?? {}, { content, settings: { title: "Faults" } })
  })
})
