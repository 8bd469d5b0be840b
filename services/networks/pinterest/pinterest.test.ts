import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makePinterestAdapterWith } from "./adapter.js"
import type { StoredMedia } from "../storedMedia.js"
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
import { pinterestModule, seedPinterestAccount } from "./simulator.js"

/** The Pinterest adapter against the simulator's Pinterest API v5. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/pin.png")
const second = imageMedia("http://files.test/pin2.png")
const VIDEO = Buffer.from("00000018667479706d703432000000006d703432", "hex")
const video: StoredMedia = { ...imageMedia("http://files.test/pin.mp4", ""), mime: "video/mp4", name: "pin.mp4", type: "video", size: VIDEO.length }
// the same video as the publisher hands it over once prepared: with its cover frame
const covered = videoWithCover(video.url, "ws/pin.cover.jpg")

beforeAll(async () => {
  sim = await startSimulatorCore([pinterestModule])
  adapter = await buildAdapter(
    makePinterestAdapterWith({
      apiUrl: sim.baseOf("pinterest"),
      authUrl: sim.baseOf("pinterest"),
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(
      sim,
      new Map([
        [image.url, PNG],
        [second.url, PNG],
        [video.url, VIDEO],
        ["ws/pin.cover.jpg", JPEG]
      ])
    )
  )
})
afterAll(() => sim.close())

const account = (expiresInMs?: number) =>
  seedPinterestAccount(sim, { username: `p${Math.random().toString(36).slice(2, 8)}`, ...(expiresInMs === undefined ? {} : { expiresInMs }) })
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`

describe("Pinterest: connecting", () => {
  it("signs in with OAuth (state, continuous refresh); the first board is the channel's default board", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Pinterest connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/pinterest"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st-1", redirectUri, codeVerifier: "v", instance: null })))
    expect(url.pathname).toBe("/pinterest/oauth/")
    expect(url.searchParams.get("state")).toBe("st-1")
    expect(url.searchParams.get("scope")).toContain("pins:write")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st-1")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v", instance: null, query: {} })
    )
    expect(connected.credentials).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), boardId: expect.any(String) })
    expect(connected.defaultSettings).toEqual({ board: connected.credentials["boardId"] })
    // a spent code is refused
    const again = await Effect.runPromise(
      Effect.either(
        adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v", instance: null, query: {} })
      )
    )
    expect(Either.isLeft(again)).toBe(true)
  })

  it("verify with the CLI's fields: a board of another account is refused; a missing field names the fields", async () => {
    const given = account()
    const connected = await run(adapter.verify(given))
    expect(connected.credentials["boardId"]).toBe(given.boardId)
    expect(connected.profile.profile).toMatch(/^p/)
    const wrongBoard = await Effect.runPromise(Effect.either(adapter.verify({ ...given, boardId: "nope" })))
    expect(Either.isLeft(wrongBoard) && wrongBoard.left.message).toMatch(/not one of this Pinterest account's boards/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "x", refreshToken: "y", expiresAt: given.expiresAt })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/boardId/)
  })
})

describe("Pinterest: token refresh", () => {
  it("unchanged while the token lasts; refreshed a day ahead with a new refresh token; a refused refresh fails", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account(3600_000)
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials["refreshToken"]).not.toBe(expiring.refreshToken)
    expect(refreshed.credentials["boardId"]).toBe(expiring.boardId)
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "revoked" }))))._tag).toBe("Failed")
    sim.fail({ network: "pinterest", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account(60_000)))))._tag).toBe("Unavailable")
  })
})

describe("Pinterest: publishing", () => {
  it("an image pin on the default board: Pinterest fetches the image from its public address", async () => {
    const c = account()
    const text = unique("A pin")
    const answer = published(
      await run(adapter.publish(requestFor(c, { content: text, media: [image], settings: { title: "Cats", link: "https://example.com" } })))
    )
    const pin = sim.postsOf("pinterest").find((p) => p.id === answer.releaseId)
    expect(pin?.text).toBe(text)
    expect(pin?.extra).toMatchObject({ board_id: c.boardId, title: "Cats", link: "https://example.com", source_type: "image_url" })
    expect(pin?.media[0]).toMatchObject({ mime: "image/png", size: PNG.length, alt: "A cat" })
    expect(answer.releaseUrl).toBe(`https://www.pinterest.com/pin/${answer.releaseId}/`)
  })

  it("the post's board setting wins over the default; no board at all is refused before anything is sent", async () => {
    const c = account()
    const other = (await run(adapter.runTool({ channel: channelRow("pinterest"), credentials: Redacted.make(c), methodName: "boards", data: {} })))[
      "boards"
    ] as ReadonlyArray<{ id: string; default: boolean }>
    const board = other.find((b) => !b.default)!.id
    const answer = published(await run(adapter.publish(requestFor(c, { content: unique("on board 2"), media: [image], settings: { board } }))))
    expect(sim.postsOf("pinterest").find((p) => p.id === answer.releaseId)?.extra["board_id"]).toBe(board)
    const before = sim.requests.length
    const none = await run(
      adapter.publish(requestFor({ ...c, boardId: "" }, { content: unique("no board"), media: [image], settings: { board: "" } }))
    )
    expect(none._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
  })

  it("a carousel of images (multiple_image_urls)", async () => {
    const c = account()
    const answer = published(await run(adapter.publish(requestFor(c, { content: unique("carousel"), media: [image, second] }))))
    const pin = sim.postsOf("pinterest").find((p) => p.id === answer.releaseId)
    expect(pin?.extra["source_type"]).toBe("multiple_image_urls")
    expect(pin?.media).toHaveLength(2)
  })

  it("an image Pinterest cannot fetch: refused with Pinterest's reason", async () => {
    const gone = imageMedia("http://127.0.0.1:1/gone.png")
    const answer = await run(adapter.publish(requestFor(account(), { content: unique("gone"), media: [gone] })))
    expect(answer._tag).toBe("Rejected")
    if (answer._tag === "Rejected") expect(answer.message).toMatch(/could not fetch the image/)
  })

  it("a video pin: registered, uploaded, Pending while Pinterest processes it, then pinned; never a second upload", async () => {
    const c = account()
    const text = unique("video pin")
    sim.setProcessingDelay(300)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: text, media: [video] })))
      if (first._tag !== "Pending") throw new Error(`expected Pending, got ${JSON.stringify(first)}`)
      expect(first.kind).toBe("processing")
      expect(first.progress).toEqual({ mediaId: expect.any(String) })
      const registrations = () => sim.requests.filter((r) => r.network === "pinterest" && r.method === "POST" && r.path === "/v5/media").length
      const registered = registrations()
      // the search goes on from the upload while it is processing
      const searched = await run(adapter.search(requestFor(c, { content: text, media: [video], progress: first.progress })))
      expect(searched._tag).toBe("Unfinished")
      await new Promise((r) => setTimeout(r, 350))
      const done = published(await run(adapter.publish(requestFor(c, { content: text, media: [video], progress: first.progress }))))
      expect(registrations()).toBe(registered)
      const pin = sim.postsOf("pinterest").find((p) => p.id === done.releaseId)
      expect(pin?.extra["source_type"]).toBe("video_id")
      expect(pin?.media[0]).toMatchObject({ id: first.progress["mediaId"], size: VIDEO.length })
      expect(sim.postsOf("pinterest").filter((p) => p.text === text)).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("a prepared video's cover goes as cover_image_url (Pinterest fetches it); without one Pinterest takes the first frame", async () => {
    const c = account()
    const text = unique("covered pin")
    const pin = published(
      await run(adapter.publish(requestFor(c, { content: text, media: [covered] }))).then(async (first) =>
        first._tag === "Pending" ? run(adapter.publish(requestFor(c, { content: text, media: [covered], progress: first.progress }))) : first
      )
    )
    const held = sim.postsOf("pinterest").find((p) => p.id === pin.releaseId)
    expect(held?.extra["cover_image_url"]).toMatch(/\/_sim\/files\//)
    expect(held?.media[1]).toMatchObject({ mime: "image/jpeg", size: JPEG.length })
    const bare = published(await run(adapter.publish(requestFor(c, { content: unique("first frame"), media: [video] }))))
    expect(sim.postsOf("pinterest").find((p) => p.id === bare.releaseId)?.extra).not.toHaveProperty("cover_image_url")
  })

  it("follow-ups are refused (Pinterest has no comments in its API)", async () => {
    const answer = await run(adapter.publishFollowUp(requestFor(account(), { content: "more", previousReleaseId: "1" })))
    expect(answer._tag).toBe("Rejected")
  })
})

describe("Pinterest: search, statistics and tools", () => {
  it("search finds a pin of the board by its description, else not found", async () => {
    const c = account()
    const text = unique("findable")
    const answer = published(await run(adapter.publish(requestFor(c, { content: text, media: [image] }))))
    const found = await run(adapter.search(requestFor(c, { content: text })))
    expect(found).toMatchObject({ _tag: "Found", releaseId: answer.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: unique("never pinned") }))))._tag).toBe("NotFound")
    sim.fail({ network: "pinterest", op: "search", mode: "5xx", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: text }))))._tag).toBe("CannotTell")
  })

  it("pin and account analytics as metrics", async () => {
    const c = account()
    const answer = published(await run(adapter.publish(requestFor(c, { content: unique("stats"), media: [image] }))))
    const post = await run(adapter.statistics.post(Redacted.make(c), answer.releaseId))
    if (post._tag !== "Metrics") throw new Error(post.message)
    expect(post.metrics.map((m) => m.label)).toEqual(["Impressions", "Saves", "Pin clicks", "Outbound clicks"])
    expect(post.metrics[0]?.data[0]?.total).toBe(10)
    expect((await run(adapter.statistics.channel(Redacted.make(c), 7)))._tag).toBe("Metrics")
    expect((await run(adapter.statistics.post(Redacted.make(c), "404")))._tag).toBe("Missing")
  })

  it("the boards tool lists the account's boards, the default marked; another tool name is refused", async () => {
    const c = account()
    const answer = await run(adapter.runTool({ channel: channelRow("pinterest"), credentials: Redacted.make(c), methodName: "boards", data: {} }))
    expect(answer["boards"]).toEqual([
      { id: c.boardId, name: "Ideas", default: true },
      { id: expect.any(String), name: "Board 2", default: false }
    ])
    const other = await Effect.runPromise(
      Effect.either(adapter.runTool({ channel: channelRow("pinterest"), credentials: Redacted.make(c), methodName: "pins", data: {} }))
    )
    expect(Either.isLeft(other)).toBe(true)
  })
})

describe("Pinterest: faults", () => {
  it("a 429 names its wait in x-ratelimit-reset", () => {
    const answer = adapter.classify({
      _tag: "Response",
      response: {
        url: "https://api.pinterest.com/v5/pins",
        status: 429,
        headers: { "x-ratelimit-reset": "30" },
        body: Buffer.from('{"code":8,"message":"Rate limit exceeded"}')
      }
    })
    expect(answer).toEqual({ _tag: "RateLimited", retryAfterMs: 30_000 })
  })

  const c = { value: undefined as ReturnType<typeof account> | undefined }
  faultMatrix({
    network: "pinterest",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => {
      c.value ??= account()
      return requestFor(c.value, { content, media: [image] })
    }
  })
})
