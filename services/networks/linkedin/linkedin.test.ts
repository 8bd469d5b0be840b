import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { escapeLittleText, makeLinkedInAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { linkedinModule, seedLinkedInAccount } from "./simulator.js"

/** The LinkedIn adapter against the simulator's LinkedIn API. */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/l1.png", "First")
const two = imageMedia("http://files.test/l2.png", "Second")

beforeAll(async () => {
  sim = await startSimulatorCore([linkedinModule])
  adapter = await buildAdapter(
    makeLinkedInAdapterWith({
      apiUrl: sim.baseOf("linkedin"),
      authUrl: sim.baseOf("linkedin"),
      version: "202411",
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("cs"))
    }),
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

const account = (expiresInMs?: number) => seedLinkedInAccount(sim, { ...(expiresInMs === undefined ? {} : { expiresInMs }) })

describe("LinkedIn: connecting and tokens", () => {
  it("signs in with OAuth and finds the member's urn", async () => {
    if (adapter.connect.kind !== "link") throw new Error("LinkedIn connects with a link")
    const redirectUri = "https://scheduler.example/integrations/social/linkedin"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "s", redirectUri, codeVerifier: "", instance: null })))
    expect(url.searchParams.get("scope")).toContain("w_member_social")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} })
    )
    expect(connected.credentials["author"]).toMatch(/^urn:li:person:/)
  })

  it("verify checks the token; refresh only near the expiry; a refused refresh fails", async () => {
    const given = account()
    expect((await run(adapter.verify(given))).credentials["author"]).toBe(given.author)
    const bad = await Effect.runPromise(Effect.either(adapter.verify({ ...given, accessToken: "nope" })))
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/refused/)
    expect((await run(adapter.refresh(Redacted.make(given))))._tag).toBe("Unchanged")
    expect((await run(adapter.refresh(Redacted.make(account(3600_000)))))._tag).toBe("Refreshed")
    expect((await run(adapter.refresh(Redacted.make({ ...account(1000), refreshToken: "spent" }))))._tag).toBe("Failed")
  })

  it("credentials without a refresh token are kept until their expiry, then the refresh fails (the channel is disconnected)", async () => {
    const given = seedLinkedInAccount(sim, { expiresInMs: 3600_000, noRefreshToken: true })
    expect("refreshToken" in given).toBe(false)
    const verified = await run(adapter.verify(given))
    expect(verified.credentials["refreshToken"]).toBeUndefined()
    // within the refresh margin, but nothing to renew it with: used as it is until it expires
    expect((await run(adapter.refresh(Redacted.make(given))))._tag).toBe("Unchanged")
    const expired = await run(adapter.refresh(Redacted.make({ ...given, expiresAt: new Date(Date.now() - 1000).toISOString() })))
    expect(expired._tag === "Failed" && expired.reason).toMatch(/no refresh token/)
    // an empty refresh token is none either
    expect((await run(adapter.refresh(Redacted.make({ ...given, refreshToken: "" }))))._tag).toBe("Unchanged")
  })
})

describe("LinkedIn: publishing", () => {
  it("a post with two images (alt text kept), then a follow-up comment on it", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Launch (today) #news", media: [one, two] }))))
    expect(root.releaseId).toMatch(/^urn:li:share:/)
    expect(root.releaseUrl).toBe(`https://www.linkedin.com/feed/update/${root.releaseId}/`)
    const comment = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "details in the comments", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const held = sim.postsOf("linkedin")
    const post = held.find((p) => p.id === root.releaseId)!
    expect(post.text).toBe("Launch (today) #news")
    expect(post.extra["commentary"]).toBe(escapeLittleText("Launch (today) #news"))
    expect(post.media.map((m) => m.alt)).toEqual(["First", "Second"])
    expect(held.find((p) => p.id === comment.releaseId)?.replyTo).toBe(root.releaseId)
  })

  it("over 3000 characters is rejected with LinkedIn's reason and a fix", async () => {
    const answer = await run(adapter.publish(requestFor(account(), { content: "w".repeat(3001) })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("3000") })
  })

  it("LinkedIn cannot search", async () => {
    expect((await run(adapter.search(requestFor(account(), { content: "x" }))))._tag).toBe("CannotTell")
  })
})

describe("LinkedIn: faults", () => {
  faultMatrix({ network: "linkedin", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(account(), { content }) })
})
