import { Effect, Either, Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeLinkedInPageAdapterWith } from "./pageAdapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { linkedinPageModule, seedLinkedInPageAccount } from "./simulator.js"

/** The LinkedIn Pages adapter (the LinkedIn adapter with an organization as author) against the simulator. */

let sim: Simulator
let adapter: NetworkAdapter
const photo = imageMedia("http://files.test/lp1.png", "Logo")

beforeAll(async () => {
  sim = await startSimulatorCore([linkedinPageModule])
  adapter = await buildAdapter(
    makeLinkedInPageAdapterWith({
      apiUrl: sim.baseOf("linkedin-page"),
      authUrl: sim.baseOf("linkedin-page"),
      version: "202411",
      clientId: Option.some("cid"),
      clientSecret: Option.some(Redacted.make("cs"))
    }),
    adapterDeps(sim, new Map([[photo.url, PNG]]))
  )
})
afterAll(() => sim.close())

const page = (expiresInMs?: number) => {
  const { accessToken, expiresAt, organization, refreshToken } = seedLinkedInPageAccount(sim, {
    ...(expiresInMs === undefined ? {} : { expiresInMs })
  })
  return { accessToken, refreshToken, expiresAt, organization }
}

const signIn = async () => {
  if (adapter.connect.kind !== "link") throw new Error("LinkedIn Pages connect with a link")
  const redirectUri = "https://scheduler.example/integrations/social/linkedin-page"
  const url = new URL(await run(adapter.connect.authorizeUrl({ state: "s", redirectUri, codeVerifier: "", instance: null })))
  expect(url.searchParams.get("scope")).toContain("w_organization_social")
  const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
  return run(adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "", instance: null, query: {} }))
}

describe("LinkedIn Pages: connecting", () => {
  it("a member with one organization connects to it at once", async () => {
    const seeded = seedLinkedInPageAccount(sim, { name: "Solo", organizations: 1 })
    const connected = await signIn()
    expect(connected.choices).toBeUndefined()
    expect(connected.credentials["organization"]).toBe(seeded.organization)
    expect(connected.profile).toMatchObject({ accountId: seeded.organization, name: seeded.organizations[0]!.name })
  })

  it("a member with two organizations answers choices; choosing one connects to it", async () => {
    const seeded = seedLinkedInPageAccount(sim, { name: "Duo", organizations: 2 })
    const connected = await signIn()
    expect(connected.choices?.map((c) => [c.id, c.name])).toEqual(seeded.organizations.map((o) => [o.urn, o.name]))
    expect(connected.credentials["organization"]).toBeUndefined()
    const second = seeded.organizations[1]!
    const chosen = await run(adapter.choose!(Redacted.make(connected.credentials), second.urn))
    expect(chosen.credentials["organization"]).toBe(second.urn)
    const stranger = await Effect.runPromise(Effect.either(adapter.choose!(Redacted.make(connected.credentials), "urn:li:organization:1")))
    expect(Either.isLeft(stranger) && stranger.left.message).toMatch(/not among/)
  })

  it("a member who administers no organization is told so", async () => {
    seedLinkedInPageAccount(sim, { organizations: 0 })
    await expect(signIn()).rejects.toThrow(/administers no LinkedIn Page/)
  })

  it("verify checks the member administers the organization; a missing field names the fields", async () => {
    const given = page()
    expect((await run(adapter.verify(given))).profile.accountId).toBe(given.organization)
    const other = await Effect.runPromise(Effect.either(adapter.verify({ ...given, organization: "urn:li:organization:1" })))
    expect(Either.isLeft(other) && other.left.message).toMatch(/does not administer/)
    const missing = await Effect.runPromise(Effect.either(adapter.verify({ accessToken: given.accessToken })))
    expect(Either.isLeft(missing) && missing.left.message).toMatch(/organization \(urn:li:organization/)
  })

  it("refresh keeps the organization; a refused refresh fails", async () => {
    expect((await run(adapter.refresh(Redacted.make(page()))))._tag).toBe("Unchanged")
    const soon = page(3600_000)
    const fresh = await run(adapter.refresh(Redacted.make(soon)))
    expect(fresh._tag === "Refreshed" && fresh.credentials).toMatchObject({ organization: soon.organization })
    expect(fresh._tag === "Refreshed" && "author" in fresh.credentials).toBe(false)
    expect((await run(adapter.refresh(Redacted.make({ ...page(1000), refreshToken: "spent" }))))._tag).toBe("Failed")
  })
})

describe("LinkedIn Pages: publishing", () => {
  it("posts as the organization with a photo, then a comment as the organization", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Hiring (now)", media: [photo] }))))
    const comment = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "apply here", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const held = sim.postsOf("linkedin-page")
    expect(held.find((p) => p.id === root.releaseId)).toMatchObject({ account: c.organization, text: "Hiring (now)" })
    expect(held.find((p) => p.id === comment.releaseId)).toMatchObject({ account: c.organization, replyTo: root.releaseId })
  })

  it("a channel still waiting for its organization is rejected with a fix, nothing posted", async () => {
    const { organization: _org, ...memberOnly } = page()
    const content = `no organization ${crypto.randomUUID()}`
    expect(await run(adapter.publish(requestFor(memberOnly, { content })))).toMatchObject({
      _tag: "Rejected",
      fix: expect.stringContaining("choose")
    })
    expect(sim.postsOf("linkedin-page").filter((p) => p.text === content)).toHaveLength(0)
  })

  it("search finds the organization's post by its text; NotFound for one never sent", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "Findable [page] post" }))))
    expect(await run(adapter.search(requestFor(c, { content: "Findable [page] post" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: "never sent" }))))._tag).toBe("NotFound")
  })

  it("statistics: the organization's share statistics, and a post's", async () => {
    const c = page()
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted" }))))
    const channel = await run(adapter.statistics.channel(Redacted.make(c), 30))
    expect(channel._tag === "Metrics" && channel.metrics.find((m) => m.label === "Impressions")?.data[0]?.total).toBe(10)
    const post = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(post._tag).toBe("Metrics")
  })
})

describe("LinkedIn Pages: faults", () => {
  faultMatrix({ network: "linkedin-page", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(page(), { content }) })
})
