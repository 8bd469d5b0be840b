import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeGmbAdapterWith } from "./adapter.js"
import type { StoredMedia } from "../storedMedia.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, channelRow, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { gmbModule, seedGmbAccount } from "./simulator.js"

/** The Google Business Profile adapter against the simulator's Google APIs. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/gmb.png")
const MP4 = Buffer.from("00000018667479706d703432000000006d703432", "hex")
const video: StoredMedia = { ...imageMedia("http://files.test/gmb.mp4", ""), mime: "video/mp4", name: "gmb.mp4", type: "video", size: MP4.length }

beforeAll(async () => {
  sim = await startSimulatorCore([gmbModule])
  const base = sim.baseOf("gmb")
  adapter = await buildAdapter(
    makeGmbAdapterWith({
      accountsUrl: base,
      locationsUrl: base,
      postsUrl: base,
      authorizeUrl: `${base}/o/oauth2/v2/auth`,
      tokenUrl: `${base}/token`,
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("csecret"))
    }),
    adapterDeps(
      sim,
      new Map([
        [image.url, PNG],
        [video.url, MP4]
      ])
    )
  )
})
afterAll(() => sim.close())

const account = (input: { readonly locations?: number; readonly expiresInMs?: number } = {}) => seedGmbAccount(sim, input)
const unique = (what: string) => `${what} ${crypto.randomUUID().slice(0, 8)}`
const redirectUri = "https://scheduler.example/integrations/social/gmb"

const signIn = async () => {
  if (adapter.connect.kind !== "link") throw new Error("Google connects with a link")
  const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st-g", redirectUri, codeVerifier: "v", instance: null })))
  const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
  return {
    url,
    back,
    connected: await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v", instance: null, query: {} })
    )
  }
}

describe("Google Business Profile: connecting", () => {
  it("signs in with access_type=offline&prompt=consent and state; one location connects at once", async () => {
    account({ locations: 1 })
    const { url, back, connected } = await signIn()
    expect(url.searchParams.get("access_type")).toBe("offline")
    expect(url.searchParams.get("prompt")).toBe("consent")
    expect(url.searchParams.get("scope")).toBe("https://www.googleapis.com/auth/business.manage")
    expect(back.searchParams.get("state")).toBe("st-g")
    expect(connected.choices).toBeUndefined()
    expect(connected.credentials["location"]).toMatch(/^accounts\/[^/]+\/locations\/[^/]+$/)
    expect(connected.credentials["refreshToken"]).toEqual(expect.any(String))
  })

  it("several locations: choices to pick from, then choose connects the chosen one; a location of nobody's is refused", async () => {
    account({ locations: 3 })
    const { connected } = await signIn()
    expect(connected.choices).toHaveLength(3)
    expect(connected.credentials["location"]).toBeUndefined()
    const second = connected.choices?.[1]
    if (second === undefined || adapter.choose === undefined) throw new Error("expected choices and choose")
    const chosen = await run(adapter.choose(Redacted.make(connected.credentials), second.id))
    expect(chosen.credentials["location"]).toBe(second.id)
    expect(chosen.profile).toMatchObject({ accountId: second.id, name: second.name })
    expect(chosen.choices).toBeUndefined()
    const wrong = await Effect.runPromise(Effect.either(adapter.choose(Redacted.make(connected.credentials), "accounts/1/locations/9")))
    expect(Either.isLeft(wrong) && wrong.left.message).toMatch(/not one this Google account manages/)
    // the chosen location publishes
    const post = published(await run(adapter.publish(requestFor(chosen.credentials, { content: unique("chosen") }))))
    expect(post.releaseId.startsWith(`${second.id}/localPosts/`)).toBe(true)
  })

  it("verify with the CLI's fields: the location must be the account's; a missing field names the fields", async () => {
    const given = account()
    expect((await run(adapter.verify(given))).credentials["location"]).toBe(given.location)
    const other = await Effect.runPromise(Effect.either(adapter.verify({ ...given, location: "accounts/1/locations/2" })))
    expect(Either.isLeft(other) && other.left.message).toMatch(/not one this Google account manages/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: "a", refreshToken: "r", expiresAt: given.expiresAt })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/location \(accounts\/…\/locations\/…\)/)
  })
})

describe("Google Business Profile: token refresh", () => {
  it("unchanged while the token lasts; refreshed five minutes ahead keeping the location; a revoked token fails", async () => {
    expect((await run(adapter.refresh(Redacted.make(account()))))._tag).toBe("Unchanged")
    const expiring = account({ expiresInMs: 60_000 })
    const refreshed = await run(adapter.refresh(Redacted.make(expiring)))
    if (refreshed._tag !== "Refreshed") throw new Error(`expected Refreshed, got ${refreshed._tag}`)
    expect(refreshed.credentials).toMatchObject({ location: expiring.location, refreshToken: expiring.refreshToken })
    expect(refreshed.credentials["accessToken"]).not.toBe(expiring.accessToken)
    expect((await run(adapter.refresh(Redacted.make({ ...expiring, refreshToken: "revoked" }))))._tag).toBe("Failed")
    sim.fail({ network: "gmb", op: "token", mode: "5xx", times: 1 })
    expect((await run(adapter.refresh(Redacted.make(account({ expiresInMs: 60_000 })))))._tag).toBe("Unavailable")
  })
})

describe("Google Business Profile: publishing", () => {
  it("a standard post with a photo Google fetches from its address, and a call to action", async () => {
    const c = account()
    const text = unique("Fresh bread")
    const post = published(
      await run(
        adapter.publish(
          requestFor(c, { content: text, media: [image], settings: { callToAction: "order", callToActionUrl: "https://bakery.example/order" } })
        )
      )
    )
    const held = sim.postsOf("gmb").find((p) => p.id === post.releaseId)
    expect(held).toMatchObject({
      text,
      account: c.location,
      extra: { topicType: "STANDARD", callToAction: { actionType: "ORDER", url: "https://bakery.example/order" } }
    })
    expect(held?.media[0]).toMatchObject({ mime: "image/png", size: PNG.length })
    expect(post.releaseUrl).toMatch(/^https:\/\/local\.google\.com\//)
  })

  it("an event and an offer with their schedule; a video", async () => {
    const c = account()
    const schedule = { eventTitle: "Open day", eventStart: "2030-05-01T09:00:00Z", eventEnd: "2030-05-01T17:00:00Z" }
    const event = published(await run(adapter.publish(requestFor(c, { content: unique("Come by"), settings: { topicType: "event", ...schedule } }))))
    expect(sim.postsOf("gmb").find((p) => p.id === event.releaseId)?.extra["event"]).toEqual({
      title: "Open day",
      schedule: {
        startDate: { year: 2030, month: 5, day: 1 },
        startTime: { hours: 9, minutes: 0, seconds: 0, nanos: 0 },
        endDate: { year: 2030, month: 5, day: 1 },
        endTime: { hours: 17, minutes: 0, seconds: 0, nanos: 0 }
      }
    })
    const offer = published(
      await run(
        adapter.publish(requestFor(c, { content: unique("Half price"), settings: { topicType: "offer", ...schedule, offerCouponCode: "HALF" } }))
      )
    )
    expect(sim.postsOf("gmb").find((p) => p.id === offer.releaseId)?.extra).toMatchObject({ topicType: "OFFER", offer: { couponCode: "HALF" } })
    const clip = published(await run(adapter.publish(requestFor(c, { content: unique("Watch"), media: [video] }))))
    expect(sim.postsOf("gmb").find((p) => p.id === clip.releaseId)?.media[0]?.mime).toBe("video/mp4")
  })

  it("what Google would refuse is refused before sending: an event without a schedule, a button without its address", async () => {
    const c = account()
    const before = sim.requests.length
    const event = await run(adapter.publish(requestFor(c, { content: "x", settings: { topicType: "event", eventTitle: "No dates" } })))
    expect(event._tag).toBe("Rejected")
    const button = await run(adapter.publish(requestFor(c, { content: "x", settings: { callToAction: "book" } })))
    expect(button._tag).toBe("Rejected")
    expect(sim.requests.length).toBe(before)
    // a call button needs no address
    published(await run(adapter.publish(requestFor(c, { content: unique("Call us"), settings: { callToAction: "call" } }))))
  })

  it("a photo Google cannot fetch: refused with Google's reason; follow-ups are refused", async () => {
    const gone = imageMedia("http://127.0.0.1:1/gone.png")
    const answer = await run(adapter.publish(requestFor(account(), { content: unique("gone"), media: [gone] })))
    expect(answer._tag).toBe("Rejected")
    if (answer._tag === "Rejected") expect(answer.message).toMatch(/Unable to fetch media/)
    expect((await run(adapter.publishFollowUp(requestFor(account(), { content: "more", previousReleaseId: "x" }))))._tag).toBe("Rejected")
  })
})

describe("Google Business Profile: search, statistics and tools", () => {
  it("search finds the location's local post by its summary, else not found", async () => {
    const c = account()
    const text = unique("Lost answer")
    const post = published(await run(adapter.publish(requestFor(c, { content: text }))))
    expect(await run(adapter.search(requestFor(c, { content: text })))).toMatchObject({ _tag: "Found", releaseId: post.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: unique("never") }))))._tag).toBe("NotFound")
    sim.fail({ network: "gmb", op: "search", mode: "5xx", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: text }))))._tag).toBe("CannotTell")
  })

  it("no statistics and no tools", async () => {
    const c = account()
    expect((await run(adapter.statistics.post(Redacted.make(c), "x")))._tag).toBe("Missing")
    const tool = await Effect.runPromise(
      Effect.either(adapter.runTool({ channel: channelRow("gmb"), credentials: Redacted.make(c), methodName: "x", data: {} }))
    )
    expect(Either.isLeft(tool)).toBe(true)
  })
})

describe("Google Business Profile: faults", () => {
  const c = { value: undefined as ReturnType<typeof account> | undefined }
  faultMatrix({
    network: "gmb",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => {
      c.value ??= account()
      return requestFor(c.value, { content, media: [image] })
    }
  })
})
