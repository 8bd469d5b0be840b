import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeVkAdapterWith } from "./adapter.js"
import { classifyVk } from "./api.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedVkWall, vkModule } from "./simulator.js"

/** The VK adapter against the simulator's VK API (every documented call it makes). */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/vk1.png")
const two = imageMedia("http://files.test/vk2.png", "Second")

beforeAll(async () => {
  sim = await startSimulatorCore([vkModule])
  adapter = await buildAdapter(
    makeVkAdapterWith({ apiUrl: `${sim.baseOf("vk")}/method`, authUrl: sim.baseOf("vk"), clientId: Option.some("vk-app") }),
    adapterDeps(
      sim,
      new Map([
        [one.url, PNG],
        [two.url, PNG]
      ])
    )
  )
})
afterAll(() => sim.close())

const response = (body: unknown, status = 200) => ({
  _tag: "Response" as const,
  response: { status, headers: {}, url: "", body: Buffer.from(JSON.stringify(body)) }
})

describe("VK: connecting with a token and a wall", () => {
  it("a community wall: its name and screen name from groups.getById", async () => {
    const given = seedVkWall(sim, { name: "Launch news" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toEqual({ accessToken: given.accessToken, ownerId: given.ownerId })
    expect(connected.profile).toMatchObject({ accountId: String(given.ownerId), name: "Launch news", profile: `club${-given.ownerId}` })
  })

  it("a user wall from users.get; ownerId may be given as text", async () => {
    const given = seedVkWall(sim, { name: "Pavel Durov", community: false })
    const connected = await run(adapter.verify({ accessToken: given.accessToken, ownerId: String(given.ownerId) }))
    expect(connected.credentials["ownerId"]).toBe(given.ownerId)
    expect(connected.profile.name).toBe("Pavel Durov")
  })

  it.each([
    [{ ownerId: -1 }, /accessToken/],
    [{ accessToken: "t" }, /ownerId/],
    [{ accessToken: "t", ownerId: "club1" }, /ownerId/],
    [{ accessToken: "nope", ownerId: -1 }, /User authorization failed/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })
})

describe("VK: signing in with VK ID", () => {
  const redirectUri = "https://scheduler.example/integrations/social/vk"
  const verifier = "v".repeat(43)

  /** The sign-in link, the consent page (approved at once) and the callback's query. */
  const signIn = async (state: string) => {
    if (adapter.connect.kind !== "link") throw new Error("VK connects with a link")
    const url = new URL(await run(adapter.connect.authorizeUrl({ state, redirectUri, codeVerifier: verifier, instance: null })))
    expect(url.origin + url.pathname).toBe(`${sim.baseOf("vk")}/authorize`)
    expect(Object.fromEntries(url.searchParams)).toMatchObject({ client_id: "vk-app", state, code_challenge_method: "S256", scope: "wall photos" })
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    return Object.fromEntries(back.searchParams)
  }

  it("the link (PKCE S256) comes back with code, state and device_id; the exchange connects the user's wall, which publishes", async () => {
    if (adapter.connect.kind !== "link") throw new Error("VK connects with a link")
    const query = await signIn("st4te")
    expect(query).toMatchObject({ state: "st4te", device_id: expect.any(String), code: expect.any(String) })
    const connected = await run(adapter.connect.exchange({ code: query["code"] ?? "", redirectUri, codeVerifier: verifier, instance: null, query }))
    expect(connected.credentials).toMatchObject({
      accessToken: expect.any(String),
      refreshToken: expect.any(String),
      deviceId: query["device_id"],
      ownerId: expect.any(Number)
    })
    expect(Number(connected.credentials["ownerId"])).toBeGreaterThan(0)
    expect(Date.parse(String(connected.credentials["expiresAt"])) - Date.now()).toBeGreaterThan(50 * 60_000)
    published(await run(adapter.publish(requestFor(connected.credentials, { content: "signed in with VK ID" }))))
  })

  it("a code exchanged with another verifier, or a callback without device_id, is refused", async () => {
    if (adapter.connect.kind !== "link") throw new Error("VK connects with a link")
    const exchange = adapter.connect.exchange
    const query = await signIn("s1")
    const wrong = await Effect.runPromise(
      Effect.either(exchange({ code: query["code"] ?? "", redirectUri, codeVerifier: "w".repeat(43), instance: null, query }))
    )
    expect(Either.isLeft(wrong) && wrong.left.message).toMatch(/code_verifier does not match/)
    const { device_id: _device, ...without } = await signIn("s2")
    const missing = await Effect.runPromise(
      Effect.either(exchange({ code: without["code"] ?? "", redirectUri, codeVerifier: verifier, instance: null, query: without }))
    )
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/device_id/)
  })

  it("a token close to its hour is refreshed with a new refresh token; the old one is then refused; admin CLI tokens stay", async () => {
    if (adapter.connect.kind !== "link") throw new Error("VK connects with a link")
    const query = await signIn("s3")
    const connected = await run(adapter.connect.exchange({ code: query["code"] ?? "", redirectUri, codeVerifier: verifier, instance: null, query }))
    expect((await run(adapter.refresh(Redacted.make(connected.credentials))))._tag).toBe("Unchanged")
    const due = { ...connected.credentials, expiresAt: new Date(Date.now() + 60_000).toISOString() }
    const refreshed = await run(adapter.refresh(Redacted.make(due)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials["refreshToken"]).not.toBe(connected.credentials["refreshToken"])
    expect(refreshed.credentials).toMatchObject({ deviceId: query["device_id"], ownerId: connected.credentials["ownerId"] })
    published(await run(adapter.publish(requestFor(refreshed.credentials, { content: "after a refresh" }))))
    expect((await run(adapter.refresh(Redacted.make(due))))._tag).toBe("Failed")
    expect((await run(adapter.refresh(Redacted.make(seedVkWall(sim)))))._tag).toBe("Unchanged")
  })
})

describe("VK: publishing", () => {
  it("a post with two photos (uploaded through the wall upload server), then comments on it", async () => {
    const c = seedVkWall(sim)
    const root = published(await run(adapter.publish(requestFor(c, { content: "Hello VK", media: [one, two] }))))
    expect(root.releaseUrl).toBe(`https://vk.com/wall${c.ownerId}_${root.releaseId}`)
    const first = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "a comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const second = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "another", position: 2, previousReleaseId: first.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    expect(second.releaseUrl).toBe(`https://vk.com/wall${c.ownerId}_${root.releaseId}?reply=${second.releaseId}`)
    const held = sim.postsOf("vk").filter((p) => p.account === String(c.ownerId))
    expect(held.find((p) => p.id === root.releaseId)).toMatchObject({
      text: "Hello VK",
      extra: { from_group: "1" },
      media: [expect.objectContaining({ mime: "image/png", size: PNG.length }), expect.objectContaining({ mime: "image/png" })]
    })
    expect(held.find((p) => p.id === first.releaseId)).toMatchObject({ replyTo: root.releaseId, extra: { post_id: root.releaseId } })
    expect(held.find((p) => p.id === second.releaseId)).toMatchObject({ replyTo: first.releaseId, extra: { post_id: root.releaseId } })
  })

  it("the same item sent twice is one post (guid = the item id)", async () => {
    const c = seedVkWall(sim)
    const request = requestFor(c, { content: "only once on VK" })
    const a = published(await run(adapter.publish(request)))
    const b = published(await run(adapter.publish(request)))
    expect(b.releaseId).toBe(a.releaseId)
    const held = sim.postsOf("vk").filter((p) => p.text === "only once on VK")
    expect(held).toHaveLength(1)
    expect(held[0]?.dedupeKey).toBe(request.item.id)
  })

  it("a wall the token may not post on is rejected with VK's reason (214) and a fix", async () => {
    const mine = seedVkWall(sim)
    const other = seedVkWall(sim)
    const answer = await run(adapter.publish(requestFor({ accessToken: mine.accessToken, ownerId: other.ownerId }, { content: "not mine" })))
    expect(answer).toMatchObject({
      _tag: "Rejected",
      message: expect.stringContaining("Access to adding post denied"),
      fix: expect.stringContaining("administrator")
    })
  })

  it("a video is refused before anything is sent (photos only)", async () => {
    const c = seedVkWall(sim)
    const video = { ...one, mime: "video/mp4", type: "video", name: "clip.mp4" }
    const answer = await run(adapter.publish(requestFor(c, { content: "with a clip", media: [video] })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("photos") })
    expect(sim.postsOf("vk").filter((p) => p.text === "with a clip")).toHaveLength(0)
  })

  it("an upload server that fails leaves nothing posted and says it is safe to send again", async () => {
    const c = seedVkWall(sim)
    sim.fail({ network: "vk", op: "media", mode: "5xx", times: 1 })
    const answer = await run(adapter.publish(requestFor(c, { content: "upload fails", media: [one] })))
    expect(answer._tag).toBe("FailedBeforeSending")
    expect(sim.postsOf("vk").filter((p) => p.text === "upload fails")).toHaveLength(0)
  })

  it.each([
    [{ error: { error_code: 6, error_msg: "Too many requests per second" } }, "RateLimited"],
    [{ error: { error_code: 9, error_msg: "Flood control" } }, "RateLimited"],
    [{ error: { error_code: 14, error_msg: "Captcha needed" } }, "Rejected"],
    [{ error: { error_code: 5, error_msg: "User authorization failed" } }, "Rejected"],
    [{ error: { error_code: 10, error_msg: "Internal server error" } }, "NoAnswer"],
    [{ response: {} }, "NoAnswer"],
    [{ response: { post_id: 7 } }, "Published"]
  ])("classify reads VK's HTTP 200 answer %j as %s", (body, tag) => {
    expect(classifyVk(response(body), -1)._tag).toBe(tag)
  })

  it("captcha and expired tokens say what to do", () => {
    expect(classifyVk(response({ error: { error_code: 14, error_msg: "Captcha needed" } }), -1)).toMatchObject({
      fix: expect.stringContaining("captcha")
    })
    expect(classifyVk(response({ error: { error_code: 5, error_msg: "User authorization failed" } }), -1)).toMatchObject({
      fix: expect.stringContaining("Reconnect")
    })
  })
})

describe("VK: search and statistics", () => {
  it("finds a post on the wall and a comment under its post; not another wall's", async () => {
    const c = seedVkWall(sim)
    const other = seedVkWall(sim)
    const root = published(await run(adapter.publish(requestFor(c, { content: "Find  me\non VK" }))))
    await run(adapter.publish(requestFor(other, { content: "elsewhere" })))
    expect(await run(adapter.search(requestFor(c, { content: "Find me on VK" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: "elsewhere" }))))._tag).toBe("NotFound")
    const comment = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "find the comment", previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const found = await run(
      adapter.search(requestFor(c, { content: "find the comment", previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
    )
    expect(found).toMatchObject({ _tag: "Found", releaseId: comment.releaseId })
    sim.fail({ network: "vk", op: "search", mode: "unavailable", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "Find me on VK" }))))._tag).toBe("CannotTell")
  })

  it("a post's views, likes, reposts and comments from wall.getById", async () => {
    const c = seedVkWall(sim)
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted" }))))
    const stats = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(stats._tag === "Metrics" && stats.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Views", 120],
      ["Likes", 4],
      ["Reposts", 1],
      ["Comments", 0]
    ])
    expect((await run(adapter.statistics.channel(Redacted.make(c), 30)))._tag).toBe("Missing")
  })
})

describe("VK: faults", () => {
  faultMatrix({ network: "vk", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(seedVkWall(sim), { content }) })
})
