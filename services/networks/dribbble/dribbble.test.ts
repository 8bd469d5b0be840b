import { Effect, Either, Option, Redacted } from "effect"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter, PublishAnswer, PublishRequest } from "../adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { makeDribbbleAdapterWith, shotFields } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { type DribbbleSeed, dribbbleModule, seedDribbbleAccount } from "./simulator.js"

/** The Dribbble adapter against the simulator's API v2. */

let sim: Simulator
let adapter: NetworkAdapter
const files = new Map<string, Buffer>()

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: "#e9457a" } })
    .png()
    .toBuffer()
const shotImage = (url: string, width: number, height: number, size: number): StoredMedia => ({
  id: crypto.randomUUID(),
  alt: "",
  url,
  mime: "image/png",
  name: "shot.png",
  size,
  type: "image",
  width,
  height
})
let shot: StoredMedia
let odd: StoredMedia

beforeAll(async () => {
  sim = await startSimulatorCore([dribbbleModule])
  const bytes = await png(800, 600)
  files.set("http://files.test/shot.png", bytes)
  shot = shotImage("http://files.test/shot.png", 800, 600, bytes.length)
  const oddBytes = await png(1000, 700)
  files.set("http://files.test/odd.png", oddBytes)
  odd = shotImage("http://files.test/odd.png", 0, 0, oddBytes.length)
  adapter = await buildAdapter(
    makeDribbbleAdapterWith({
      apiUrl: `${sim.baseOf("dribbble")}/v2`,
      authUrl: sim.baseOf("dribbble"),
      clientId: Option.some("dapp"),
      clientSecret: Option.some(Redacted.make("dsecret"))
    }),
    adapterDeps(sim, files)
  )
})
afterAll(() => sim.close())

const account = (input: DribbbleSeed = {}) => seedDribbbleAccount(sim, { login: `d${Math.random().toString(36).slice(2, 8)}`, ...input })

const steps = async (request: PublishRequest, max = 10) => {
  const seen: Array<PublishAnswer> = []
  let progress = request.progress
  for (let i = 0; i < max; i++) {
    const answer = await run(adapter.publish({ ...request, progress }))
    seen.push(answer)
    if (answer._tag !== "Pending") return seen
    progress = answer.progress
    await new Promise((r) => setTimeout(r, 100))
  }
  return seen
}

describe("Dribbble: connecting", () => {
  it("signs in on dribbble.com with the public and upload scopes; the token is kept as it is (it does not expire)", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Dribbble connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/dribbble"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "v".repeat(50), instance: null })))
    expect(url.pathname).toBe("/dribbble/oauth/authorize")
    expect(url.searchParams.get("scope")).toBe("public upload")
    url.searchParams.set("account", "studio")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    expect(back.searchParams.get("state")).toBe("st")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} })
    )
    expect(connected.profile).toMatchObject({ profile: "studio", name: "STUDIO" })
    expect(adapter.tokensNeverExpire).toBe(true)
    expect((await run(adapter.refresh(Redacted.make(connected.credentials))))._tag).toBe("Unchanged")
  })

  it("a sign-in without the upload scope is refused with the reason", async () => {
    if (adapter.connect.kind !== "link") throw new Error("link")
    const url = new URL(
      await run(adapter.connect.authorizeUrl({ state: "s", redirectUri: "https://x.example/cb", codeVerifier: "", instance: null }))
    )
    url.searchParams.set("scope", "public")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const failed = await Effect.runPromise(
      Effect.either(
        adapter.connect.exchange({
          code: back.searchParams.get("code") ?? "",
          redirectUri: "https://x.example/cb",
          codeVerifier: "",
          instance: null,
          query: {}
        })
      )
    )
    expect(Either.isLeft(failed) && failed.left.message).toMatch(/upload scope/)
  })

  it("verify takes the CLI's accessToken; a missing one is named, a wrong one is refused", async () => {
    expect((await run(adapter.verify(account({ login: "maker" })))).profile.profile).toBe("maker")
    const missing = await Effect.runPromise(Effect.either(adapter.verify({})))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/accessToken/)
    const wrong = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "nope" })))
    expect(Either.isLeft(wrong) && wrong.left.message).toMatch(/refused/)
  })
})

describe("Dribbble: publishing", () => {
  it("a shot: multipart with the first line as title, the text as description, hashtags as tags; 202, then the shot → Published once", async () => {
    const c = account()
    const content = "Onboarding flow\nExploring a calmer sign-up. #ui #mobile #UI"
    const done = published((await steps(requestFor(c, { content, media: [shot] }))).at(-1)!)
    expect(done.releaseUrl).toMatch(/^https:\/\/dribbble\.com\/shots\/\d+-onboarding-flow$/)
    const held = sim.postsOf("dribbble").filter((p) => p.text === content)
    expect(held).toHaveLength(1)
    expect(held[0]).toMatchObject({ id: done.releaseId, extra: { title: "Onboarding flow", tags: ["ui", "mobile"] } })
  })

  it("while Dribbble processes, the item waits with the shot's id (Pending), then it is published", async () => {
    const c = account()
    sim.setProcessingDelay(300)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: "Processing shot", media: [shot] })))
      expect(first).toMatchObject({ _tag: "Pending", kind: "processing", progress: { shotId: expect.stringMatching(/^\d+$/) } })
      if (first._tag !== "Pending") return
      await new Promise((r) => setTimeout(r, 400))
      published(await run(adapter.publish(requestFor(c, { content: "Processing shot", media: [shot], progress: first.progress }))))
      expect(sim.postsOf("dribbble").filter((p) => p.text === "Processing shot")).toHaveLength(1)
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("Dribbble's size rule: a stored image of another size is refused before sending; an unknown size gets Dribbble's own 422", async () => {
    const c = account()
    const before = sim.requests.length
    const wrong = await run(adapter.publish(requestFor(c, { content: "Wrong size", media: [{ ...shot, width: 1000, height: 700 }] })))
    expect(wrong).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("1000×700") })
    expect(sim.requests.length).toBe(before)
    const refused = await run(adapter.publish(requestFor(c, { content: "Odd size", media: [odd] })))
    expect(refused).toMatchObject({
      _tag: "Rejected",
      message: expect.stringContaining("must be exactly 400x300"),
      fix: expect.stringContaining("800×600")
    })
  })

  it("exactly one image: none, two, or a video are refused", async () => {
    const c = account()
    for (const media of [[], [shot, shot], [{ ...shot, type: "video" as const, mime: "video/mp4" }]]) {
      expect((await run(adapter.publish(requestFor(c, { content: "Count", media }))))._tag).toBe("Rejected")
    }
  })

  it("an account that may not upload is refused at connect, and gets Dribbble's 403 with its reason", async () => {
    const c = account({ canUpload: false })
    const refused = await Effect.runPromise(Effect.either(adapter.verify(c)))
    expect(Either.isLeft(refused) && refused.left.message).toMatch(/may not upload shots/)
    const answer = await run(adapter.publish(requestFor(c, { content: "Not a player", media: [shot] })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("not allowed"), fix: expect.stringContaining("upload") })
  })

  it("Dribbble's own limit (a minute's requests): RateLimited until the reset time its 429 names", async () => {
    const c = account({ perMinute: 1 })
    await run(adapter.verify(c))
    const answer = await run(adapter.publish(requestFor(c, { content: "Too many", media: [shot] })))
    expect(answer._tag).toBe("RateLimited")
    if (answer._tag === "RateLimited") {
      expect(answer.retryAfterMs).toBeGreaterThan(50_000)
      expect(answer.retryAfterMs).toBeLessThanOrEqual(61_000)
    }
    expect(sim.postsOf("dribbble").filter((p) => p.text === "Too many")).toHaveLength(0)
  })

  it("a shot Dribbble never shows: held while it processes, refused with a fix after 10 minutes", async () => {
    const c = account()
    const waiting = await run(adapter.publish(requestFor(c, { content: "Vanished", media: [shot], progress: { shotId: "1", since: Date.now() } })))
    expect(waiting).toMatchObject({ _tag: "Pending", kind: "processing" })
    const old = await run(
      adapter.publish(requestFor(c, { content: "Vanished", media: [shot], progress: { shotId: "1", since: Date.now() - 11 * 60_000 } }))
    )
    expect(old).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("support") })
  })

  it("follow-ups are refused (no comments through the API)", async () => {
    expect((await run(adapter.publishFollowUp(requestFor(account(), { content: "reply", position: 1, previousReleaseId: "1" }))))._tag).toBe(
      "Rejected"
    )
  })

  it("at most 12 tags are sent", () => {
    expect(shotFields(Array.from({ length: 15 }, (_, i) => `#t${i}`).join(" ")).tags).toHaveLength(12)
  })
})

describe("Dribbble: a lost answer", () => {
  it("with the shot's id: Unfinished while it processes, Found once shown", async () => {
    const c = account()
    sim.setProcessingDelay(300)
    try {
      const first = await run(adapter.publish(requestFor(c, { content: "Lost shot", media: [shot] })))
      if (first._tag !== "Pending") throw new Error(JSON.stringify(first))
      expect(await run(adapter.search(requestFor(c, { content: "Lost shot", media: [shot], progress: first.progress })))).toEqual({
        _tag: "Unfinished",
        progress: first.progress
      })
      await new Promise((r) => setTimeout(r, 400))
      expect(await run(adapter.search(requestFor(c, { content: "Lost shot", media: [shot], progress: first.progress })))).toMatchObject({
        _tag: "Found"
      })
    } finally {
      sim.setProcessingDelay(0)
    }
  })

  it("without it: the account's shots by title (Found), else it cannot tell", async () => {
    const c = account()
    const done = published((await steps(requestFor(c, { content: "Listed shot\nmore", media: [shot] }))).at(-1)!)
    expect(await run(adapter.search(requestFor(c, { content: "Listed shot\nmore", media: [shot] })))).toMatchObject({
      _tag: "Found",
      releaseId: done.releaseId
    })
    expect((await run(adapter.search(requestFor(c, { content: "Never sent", media: [shot] }))))._tag).toBe("CannotTell")
  })
})

describe("Dribbble: faults on the create", () => {
  faultMatrix({
    network: "dribbble",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(account(), { content, media: [shot] })
  })
})
