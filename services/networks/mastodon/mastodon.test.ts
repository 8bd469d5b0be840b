import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { classifyMastodon, makeMastodonAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { mastodonModule, seedMastodonAccount } from "./simulator.js"
import { Option } from "effect"

/** The Mastodon adapter against the simulator's Mastodon API (every documented call it makes). */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/m.png")

beforeAll(async () => {
  sim = await startSimulatorCore([mastodonModule])
  adapter = await buildAdapter(
    makeMastodonAdapterWith({
      defaultInstance: sim.baseOf("mastodon"),
      appName: "Test scheduler",
      clientId: Option.none(),
      clientSecret: Option.none()
    }),
    adapterDeps(sim, new Map([[image.url, PNG]]))
  )
})
afterAll(() => sim.close())

const account = (username = `u${Math.random().toString(36).slice(2, 8)}`) => seedMastodonAccount(sim, { username })

describe("Mastodon: connecting", () => {
  it("verify checks the token with verify_credentials and keeps the account id", async () => {
    const given = account("alice")
    const connected = await run(adapter.verify({ instance: given.instance, accessToken: given.accessToken }))
    expect(connected.credentials).toMatchObject({ instance: sim.baseOf("mastodon"), accessToken: given.accessToken, accountId: given.accountId })
    expect(connected.profile).toMatchObject({ name: "Alice", profile: "alice" })
  })

  it.each([
    [{}, "instance"],
    [{ instance: "https://x" }, "accessToken"],
    ["not an object", "instance"]
  ])("verify refuses %j with a message naming the fields", async (input, field) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toContain(field)
  })

  it("verify refuses a token the instance does not know", async () => {
    const result = await Effect.runPromise(Effect.either(adapter.verify({ instance: sim.baseOf("mastodon"), accessToken: "nope" })))
    expect(Either.isLeft(result) && result.left.message).toMatch(/refused/)
  })

  it("signs in with a link: registers the app once per instance, then exchanges the code", async () => {
    account("bob")
    if (adapter.connect.kind !== "link") throw new Error("Mastodon connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/mastodon"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st4te", redirectUri, codeVerifier: "v".repeat(43), instance: null })))
    expect(url.origin + url.pathname).toBe(`${sim.baseOf("mastodon")}/oauth/authorize`)
    expect(url.searchParams.get("redirect_uri")).toBe(redirectUri)
    expect(url.searchParams.get("state")).toBe("st4te")
    // the simulated consent page approves at once and redirects with the code
    url.searchParams.set("account", "bob")
    const consent = await fetch(url, { redirect: "manual" })
    const back = new URL(consent.headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st4te")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v".repeat(43), instance: null, query: {} })
    )
    expect(connected.profile.profile).toBe("bob")
    // a second sign-in reuses the registered app
    await run(adapter.connect.authorizeUrl({ state: "again", redirectUri, codeVerifier: "v".repeat(43), instance: null }))
    expect(sim.requests.filter((r) => r.network === "mastodon" && r.path === "/api/v1/apps")).toHaveLength(1)
  })
})

describe("Mastodon: publishing", () => {
  it("posts with an image and alt text, then a follow-up that replies to it", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Hello from the scheduler", media: [image] }))))
    expect(root.releaseUrl).toContain(`/${root.releaseId}`)
    const reply = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "and a reply", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const [first, second] = sim.postsOf("mastodon").filter((p) => p.account === c.accountId)
    expect(first).toMatchObject({ id: root.releaseId, text: "Hello from the scheduler", replyTo: null })
    expect(first!.media).toEqual([expect.objectContaining({ mime: "image/png", size: PNG.length, alt: "A cat" })])
    expect(second).toMatchObject({ id: reply.releaseId, replyTo: root.releaseId })
  })

  it("a video still processing (202) is waited for before the status names it", async () => {
    const c = account()
    const video = { ...imageMedia("http://files.test/m.mp4", "A clip"), mime: "video/mp4", type: "video", name: "clip.mp4" }
    const withVideo = await buildAdapter(
      makeMastodonAdapterWith({
        defaultInstance: sim.baseOf("mastodon"),
        appName: "Test scheduler",
        clientId: Option.none(),
        clientSecret: Option.none()
      }),
      adapterDeps(sim, new Map([[video.url, PNG]]))
    )
    const root = published(await run(withVideo.publish(requestFor(c, { content: "with a clip", media: [video] }))))
    expect(sim.postsOf("mastodon").find((p) => p.id === root.releaseId)?.media).toEqual([expect.objectContaining({ mime: "video/mp4" })])
  })

  it("the same item sent twice is one status (Idempotency-Key = the item id)", async () => {
    const c = account()
    const request = requestFor(c, { content: "only once" })
    const a = published(await run(adapter.publish(request)))
    const b = published(await run(adapter.publish(request)))
    expect(b.releaseId).toBe(a.releaseId)
    expect(sim.postsOf("mastodon").filter((p) => p.text === "only once")).toHaveLength(1)
    expect(sim.postsOf("mastodon").find((p) => p.text === "only once")?.dedupeKey).toBe(request.item.id)
  })

  it("a text over the instance's limit is rejected with Mastodon's reason and a fix", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "x".repeat(501) })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("character limit"), fix: expect.stringContaining("Shorten") })
  })

  it("a file that cannot be read fails the item before anything is posted", async () => {
    const answer = await run(
      adapter.publish(requestFor(account(), { content: "with a lost file", media: [imageMedia("http://files.test/gone.png")] }))
    )
    expect(answer._tag).toBe("Rejected")
    expect(sim.postsOf("mastodon").filter((p) => p.text === "with a lost file")).toHaveLength(0)
  })

  it("credentials of another shape fail with a reconnect fix", async () => {
    const answer = await run(adapter.publish(requestFor({ token: "x" }, { content: "hi" })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("Reconnect") })
  })

  it("classify never calls a 2xx without an id published", () => {
    const response = { status: 200, headers: {}, url: "", body: Buffer.from("{}") }
    expect(classifyMastodon({ _tag: "Response", response })._tag).toBe("NoAnswer")
  })
})

describe("Mastodon: search", () => {
  it("finds the account's status with the same text, not another account's", async () => {
    const c = account()
    const other = account()
    const mine = published(await run(adapter.publish(requestFor(c, { content: 'Find <me> & "quote"\n\nsecond paragraph' }))))
    await run(adapter.publish(requestFor(other, { content: "not mine" })))
    expect(await run(adapter.search(requestFor(c, { content: 'Find <me> & "quote"\n\nsecond paragraph' })))).toMatchObject({
      _tag: "Found",
      releaseId: mine.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "not mine" }))))._tag).toBe("NotFound")
  })

  it("a post that becomes visible later is not found yet; a search that fails cannot tell", async () => {
    const c = account()
    sim.setSearchDelay(60_000)
    try {
      await run(adapter.publish(requestFor(c, { content: "slow to show" })))
      expect((await run(adapter.search(requestFor(c, { content: "slow to show" }))))._tag).toBe("NotFound")
    } finally {
      sim.setSearchDelay(0)
    }
    expect((await run(adapter.search(requestFor(c, { content: "slow to show" }))))._tag).toBe("Found")
    sim.fail({ network: "mastodon", op: "search", mode: "unavailable", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "slow to show" }))))._tag).toBe("CannotTell")
  })
})

describe("Mastodon: statistics", () => {
  it("reads the account's and a status's counts", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted" }))))
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 30))
    expect(channel._tag === "Metrics" && channel.metrics.map((m) => m.label)).toEqual(["Followers", "Following", "Posts"])
    const post = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(post._tag === "Metrics" && post.metrics.map((m) => m.label)).toEqual(["Favourites", "Boosts", "Replies"])
  })
})

describe("Mastodon: faults", () => {
  faultMatrix({
    network: "mastodon",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(account(), { content })
  })
})
