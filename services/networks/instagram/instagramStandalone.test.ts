import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeInstagramStandaloneAdapterWith } from "./standaloneAdapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { instagramStandaloneModule, seedInstagramStandaloneAccount } from "./standaloneSimulator.js"

/** Instagram through Instagram Login against the simulator (graph.instagram.com, www/api.instagram.com). */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/igs1.png", "First")

beforeAll(async () => {
  sim = await startSimulatorCore([instagramStandaloneModule])
  const base = sim.baseOf("instagram-standalone")
  adapter = await buildAdapter(
    makeInstagramStandaloneAdapterWith({
      apiUrl: base,
      authUrl: base,
      tokenUrl: `${base}/oauth/access_token`,
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("cs"))
    }),
    adapterDeps(sim, new Map([[one.url, PNG]]))
  )
})
afterAll(() => sim.close())

const account = (input: { readonly cap?: number; readonly expiresInMs?: number; readonly accountType?: string } = {}) =>
  seedInstagramStandaloneAccount(sim, input)

describe("Instagram (Instagram Login): connecting and tokens", () => {
  const redirectUri = "https://scheduler.example/integrations/social/instagram-standalone"
  const signIn = async () => {
    if (adapter.connect.kind !== "link") throw new Error("Instagram connects with a link")
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "st", redirectUri, codeVerifier: "", instance: null })))
    expect(url.pathname).toMatch(/\/oauth\/authorize$/)
    expect(url.searchParams.get("scope")).toContain("instagram_business_content_publish")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    return Effect.runPromise(
      Effect.either(adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} }))
    )
  }

  it("signs in: a long-lived token of 60 days and the professional account's id", async () => {
    const seeded = account()
    const connected = await signIn()
    if (Either.isLeft(connected)) throw new Error(connected.left.message)
    expect(connected.right.credentials["igUserId"]).toBe(seeded.igUserId)
    expect(Date.parse(String(connected.right.credentials["expiresAt"])) - Date.now()).toBeGreaterThan(59 * 86_400_000)
    published(await run(adapter.publish(requestFor(connected.right.credentials, { content: "signed in", media: [one] }))))
  })

  it("a personal account is refused: Business and Creator accounts only", async () => {
    account({ accountType: "PERSONAL" })
    const connected = await signIn()
    expect(Either.isLeft(connected) && connected.left.message).toMatch(/Business and Creator/)
  })

  it("verify names the fields; refresh ahead of the expiry with ig_refresh_token; a refused refresh fails", async () => {
    const given = account()
    expect((await run(adapter.verify(given))).profile.accountId).toBe(given.igUserId)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: given.accessToken, igUserId: given.igUserId })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/accessToken, igUserId and expiresAt/)
    expect((await run(adapter.refresh(Redacted.make(given))))._tag).toBe("Unchanged")
    const soon = account({ expiresInMs: 3600_000 })
    const refreshed = await run(adapter.refresh(Redacted.make(soon)))
    if (refreshed._tag !== "Refreshed") throw new Error(refreshed._tag)
    expect(refreshed.credentials["accessToken"]).not.toBe(soon.accessToken)
    expect(Date.parse(String(refreshed.credentials["expiresAt"]))).toBeGreaterThan(Date.now() + 59 * 86_400_000)
    published(await run(adapter.publish(requestFor(refreshed.credentials, { content: "after refresh", media: [one] }))))
    const expired = account({ expiresInMs: 1 })
    await new Promise((r) => setTimeout(r, 5))
    expect((await run(adapter.refresh(Redacted.make(expired))))._tag).toBe("Failed")
  })
})

describe("Instagram (Instagram Login): publishing", () => {
  it("a photo and its comment, each once; search finds the photo by its caption", async () => {
    const c = account()
    const root = published(await run(adapter.publish(requestFor(c, { content: "standalone photo", media: [one] }))))
    const comment = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "its comment", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    expect(sim.postsOf("instagram-standalone").filter((p) => p.text === "standalone photo")).toHaveLength(1)
    expect(sim.postsOf("instagram-standalone").find((p) => p.id === comment.releaseId)?.replyTo).toBe(root.releaseId)
    expect(await run(adapter.search(requestFor(c, { content: "standalone photo" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
  })

  it("the cap read before publishing holds the post when full", async () => {
    const c = account({ cap: 0 })
    const answer = await run(adapter.publish(requestFor(c, { content: "capped", media: [one] })))
    expect(answer).toMatchObject({ _tag: "Pending", kind: "network-limit" })
  })

  it("an expired token is refused with a reconnect fix", async () => {
    const c = account({ expiresInMs: 1 })
    await new Promise((r) => setTimeout(r, 5))
    const answer = await run(adapter.publish(requestFor(c, { content: "expired", media: [one] })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("Reconnect") })
  })
})

describe("Instagram (Instagram Login): faults", () => {
  faultMatrix({
    network: "instagram-standalone",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(account(), { content, media: [one] })
  })
})
