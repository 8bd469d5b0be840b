import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeWordPressAdapter, termIds } from "./adapter.js"
import { wordpress } from "../../../domain/networks/publishing.js"
import { settingsProblems } from "../../../domain/posts/rules.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedWordPressAccount, wordpressModule } from "./simulator.js"

/** The WordPress adapter against the simulator's WordPress REST API (the site's address in the credentials). */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/featured.png", "The harbour")

beforeAll(async () => {
  sim = await startSimulatorCore([wordpressModule])
  adapter = await buildAdapter(makeWordPressAdapter, adapterDeps(sim, new Map([[image.url, PNG]])))
})
afterAll(() => sim.close())

const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`
const name = () => `u${Math.random().toString(36).slice(2, 8)}`
/** A seeded user as verify stores it (with the user id). */
const account = async (role?: "contributor") =>
  (await run(adapter.verify(seedWordPressAccount(sim, { username: name(), ...(role === undefined ? {} : { role }) })))).credentials

describe("WordPress: connecting", () => {
  it("verify reads /wp/v2/users/me with the application password and keeps the user id; refusals are plain", async () => {
    const given = seedWordPressAccount(sim, { username: "editor-ann" })
    const connected = await run(adapter.verify({ ...given, site: `${given.site}/` }))
    expect(connected.credentials).toEqual({ ...given, userId: expect.any(Number) })
    expect(connected.profile).toMatchObject({ name: "editor-ann", profile: "editor-ann", picture: expect.stringContaining("s=96") })
    const wrong = await Effect.runPromise(Effect.either(adapter.verify({ ...given, applicationPassword: "nope nope nope" })))
    expect(Either.isLeft(wrong) && wrong.left.message).toMatch(/refused these credentials \(401\).*invalid application password/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ site: given.site, username: "x" })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/site .*username and applicationPassword/)
    const notAnAddress = await Effect.runPromise(Effect.either(adapter.verify({ ...given, site: "ftp://blog" })))
    expect(Either.isLeft(notAnAddress) && notAnAddress.left.message).toMatch(/http\(s\) address/)
  })
})

describe("WordPress: publishing", () => {
  it("a post with its title, status, categories and tags, and a featured image uploaded with its alt text", async () => {
    const c = await account()
    const body = unique("A long read")
    const answer = published(
      await run(
        adapter.publish(
          requestFor(c, { content: body, media: [image], settings: { title: "Harbour news", status: "publish", categories: "2", tags: [3, 4] } })
        )
      )
    )
    const post = sim.postsOf("wordpress").find((p) => p.id === answer.releaseId)
    expect(post?.text).toBe(body)
    expect(post?.extra).toMatchObject({ title: "Harbour news", status: "publish", categories: [2], tags: [3, 4] })
    expect(post?.media).toEqual([{ id: String(post?.extra["featured_media"]), mime: "image/png", size: PNG.length, alt: "The harbour" }])
    expect(answer.releaseUrl).toMatch(/\/wordpress\/\d{4}\/\d{2}\/harbour-news\/$/)
  })

  it("a draft has its preview address; bad term ids and a missing title are refused before anything is sent", async () => {
    const c = await account()
    const draft = published(await run(adapter.publish(requestFor(c, { content: unique("draft"), settings: { title: "Later", status: "draft" } }))))
    expect(draft.releaseUrl).toMatch(/\?p=\d+$/)
    const before = sim.requests.length
    expect((await run(adapter.publish(requestFor(c, { content: "x", settings: { title: "T", categories: "news" } }))))._tag).toBe("Rejected")
    expect((await run(adapter.publish(requestFor(c, { content: "x" }))))._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
    expect(termIds("1, 2,")).toEqual(Option.some([1, 2]))
    expect(termIds(undefined)).toEqual(Option.some([]))
  })

  it("a Contributor may not publish: WordPress's 403 is rejected with a fix about the role or status", async () => {
    const c = await account("contributor")
    const answer = await run(adapter.publish(requestFor(c, { content: unique("not allowed"), settings: { title: "T" } })))
    expect(answer._tag).toBe("Rejected")
    if (answer._tag === "Rejected") {
      expect(answer.message).toMatch(/not allowed to publish posts/)
      expect(answer.fix).toMatch(/draft or pending/)
    }
  })

  it("follow-ups are refused", async () => {
    expect((await run(adapter.publishFollowUp(requestFor(await account(), { content: "more", previousReleaseId: "1" }))))._tag).toBe("Rejected")
  })
})

describe("WordPress: search and tools", () => {
  it("search finds the author's post by title and text (drafts too), else not found; an unreadable list cannot tell", async () => {
    const c = await account()
    const body = unique("findable")
    const settings = { title: "Found me", status: "draft" }
    const answer = published(await run(adapter.publish(requestFor(c, { content: body, settings }))))
    expect(await run(adapter.search(requestFor(c, { content: body, settings })))).toMatchObject({ _tag: "Found", releaseId: answer.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: unique("never"), settings }))))._tag).toBe("NotFound")
    sim.fail({ network: "wordpress", op: "search", mode: "html", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: body, settings }))))._tag).toBe("CannotTell")
  })

  it("the categories and tags tools list the site's terms; another tool is refused", async () => {
    const c = Redacted.make(await account())
    const channel = channelRow("wordpress")
    expect(await run(adapter.runTool({ channel, credentials: c, methodName: "categories", data: {} }))).toEqual({
      categories: [
        { id: 1, name: "Uncategorized" },
        { id: 2, name: "News" }
      ]
    })
    expect(await run(adapter.runTool({ channel, credentials: c, methodName: "tags", data: { word: "cat" } }))).toEqual({
      tags: [{ id: 3, name: "cats" }]
    })
    expect(Either.isLeft(await Effect.runPromise(Effect.either(adapter.runTool({ channel, credentials: c, methodName: "pages", data: {} }))))).toBe(
      true
    )
    expect((await run(adapter.statistics.channel(c, 7)))._tag).toBe("Missing")
  })
})

describe("WordPress: settings checked before saving", () => {
  it.each([
    [{ title: "T" }, []],
    [{ title: "T", status: "draft", categories: "1, 2", tags: [3, "4"] }, []],
    [{}, ["W: the setting title (Title) is required."]],
    [{ title: "T", status: "live" }, ["W: the setting status must be one of publish, draft, pending, private."]],
    [{ title: "T", categories: "news" }, ["W: the setting categories must be ids (whole numbers), comma-separated."]],
    [{ title: "T", tags: [3, 1.5] }, ["W: the setting tags must be ids (whole numbers), comma-separated."]]
  ])("%j → %j", (settings, problems) => {
    expect(settingsProblems("W", wordpress, settings)).toEqual(problems)
  })
})

describe("WordPress: faults", () => {
  const c = { value: undefined as Record<string, unknown> | undefined }
  beforeAll(async () => {
    c.value = await account()
  })
  faultMatrix({
    network: "wordpress",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(c.value ?? {}, { content, settings: { title: "Faults" } })
  })
})
