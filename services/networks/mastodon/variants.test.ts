import { Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeMastodonAdapterWith } from "./adapter.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { mastodonModule, seedMastodonAccount } from "./simulator.js"
import type { SimSoftware } from "./simulatorSoftware.js"

/** The Mastodon adapter against the other servers that speak its API, each simulated with its documented differences. */

let sim: Simulator
let adapter: NetworkAdapter
const image = imageMedia("http://files.test/v.png")

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

/** A connected channel's credentials on an instance running `software`. */
const connect = async (software: SimSoftware) => {
  const given = seedMastodonAccount(sim, { username: `u${Math.random().toString(36).slice(2, 8)}`, software })
  return (await run(adapter.verify({ instance: given.instance, accessToken: given.accessToken }))).credentials
}
const requestsTo = (software: SimSoftware, path: string) => sim.requests.filter((r) => r.network === "mastodon" && r.path === `/${software}${path}`)

describe("Fediverse servers: each publishes a post with media and a follow-up", () => {
  it.each([
    ["mastodon", "mastodon", 500],
    ["pixelfed", "pixelfed", 500],
    ["gotosocial", "gotosocial", 5000],
    ["pleroma", "pleroma", 5000],
    ["akkoma", "akkoma", 5000],
    ["friendica", "friendica", 200_000],
    ["sharkey", "misskey", 3000]
  ] as const)("%s: detected at connect as %s (%i characters), posts an image and a reply", async (software, detected, maxCharacters) => {
    const c = await connect(software)
    expect(c["software"]).toMatchObject({ name: detected, maxCharacters })
    const root = published(await run(adapter.publish(requestFor(c, { content: `from ${software}`, media: [image] }))))
    const reply = published(
      await run(
        adapter.publishFollowUp(
          requestFor(c, { content: "and a reply", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId })
        )
      )
    )
    const mine = sim.postsOf("mastodon").filter((p) => p.account === c["accountId"])
    expect(mine).toHaveLength(2)
    expect(mine[0]).toMatchObject({ id: root.releaseId, text: `from ${software}`, extra: { software } })
    expect(mine[0]!.media).toEqual([expect.objectContaining({ mime: "image/png", size: PNG.length, alt: "A cat" })])
    expect(mine[1]).toMatchObject({ id: reply.releaseId, replyTo: root.releaseId })
  })
})

describe("Fediverse servers: documented differences", () => {
  it("Pixelfed: a post without a photo is refused before anything is sent; a text-only reply is fine", async () => {
    const c = await connect("pixelfed")
    const before = requestsTo("pixelfed", "/api/v1/statuses").length
    const answer = await run(adapter.publish(requestFor(c, { content: "just words" })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("photo or video") })
    expect(requestsTo("pixelfed", "/api/v1/statuses")).toHaveLength(before)
    const root = published(await run(adapter.publish(requestFor(c, { content: "a photo", media: [image] }))))
    published(await run(adapter.publishFollowUp(requestFor(c, { content: "words only", position: 1, previousReleaseId: root.releaseId }))))
  })

  it("Pixelfed: /api/v2/media answers 404 on older releases, so the upload goes to /api/v1/media", async () => {
    const c = await connect("pixelfed")
    const v1 = requestsTo("pixelfed", "/api/v1/media").length
    published(await run(adapter.publish(requestFor(c, { content: "fallback", media: [image] }))))
    expect(requestsTo("pixelfed", "/api/v1/media")).toHaveLength(v1 + 1)
  })

  it("Pixelfed: a repeated Idempotency-Key is refused (400), and the adapter answers the status already live", async () => {
    const c = await connect("pixelfed")
    const request = requestFor(c, { content: "sent twice", media: [image] })
    const first = published(await run(adapter.publish(request)))
    const second = published(await run(adapter.publish(request)))
    expect(second.releaseId).toBe(first.releaseId)
    expect(sim.postsOf("mastodon").filter((p) => p.text === "sent twice")).toHaveLength(1)
  })

  it("Pixelfed: `direct` visibility is refused before sending", async () => {
    const c = await connect("pixelfed")
    const answer = await run(adapter.publish(requestFor(c, { content: "secret", media: [image], settings: { visibility: "direct" } })))
    expect(answer).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("public, unlisted, private") })
  })

  it("Pleroma and Akkoma answer a repeated Idempotency-Key with the first status", async () => {
    for (const software of ["pleroma", "akkoma"] as const) {
      const c = await connect(software)
      const request = requestFor(c, { content: `once on ${software}` })
      const a = published(await run(adapter.publish(request)))
      expect(published(await run(adapter.publish(request))).releaseId).toBe(a.releaseId)
      expect(sim.postsOf("mastodon").filter((p) => p.text === `once on ${software}`)).toHaveLength(1)
    }
  })

  it("GoToSocial, Friendica and Sharkey get no Idempotency-Key (they ignore it): a lost answer is found by the search", async () => {
    for (const software of ["gotosocial", "friendica", "sharkey"] as const) {
      const c = await connect(software)
      const request = requestFor(c, { content: `searched on ${software}` })
      const posted = published(await run(adapter.publish(request)))
      expect(sim.postsOf("mastodon").find((p) => p.id === posted.releaseId)?.dedupeKey).toBeNull()
      expect(await run(adapter.search(request))).toMatchObject({ _tag: "Found", releaseId: posted.releaseId })
    }
  })

  it("GoToSocial takes 5000 characters; 5001 is refused before sending with the instance's limit", async () => {
    const c = await connect("gotosocial")
    published(await run(adapter.publish(requestFor(c, { content: "x".repeat(4000) }))))
    const answer = await run(adapter.publish(requestFor(c, { content: "y".repeat(5001) })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("5000"), fix: expect.stringContaining("5000") })
    expect(sim.postsOf("mastodon").filter((p) => p.text === "y".repeat(5001))).toHaveLength(0)
  })

  it("GoToSocial takes its own `mutuals_only` visibility", async () => {
    const c = await connect("gotosocial")
    const posted = published(await run(adapter.publish(requestFor(c, { content: "mutuals", settings: { visibility: "mutuals_only" } }))))
    expect(sim.postsOf("mastodon").find((p) => p.id === posted.releaseId)?.extra["visibility"]).toBe("mutuals_only")
  })

  it("Friendica has no /api/v2/media: the upload goes straight to /api/v1/media", async () => {
    const c = await connect("friendica")
    published(await run(adapter.publish(requestFor(c, { content: "friendly", media: [image] }))))
    expect(requestsTo("friendica", "/api/v2/media")).toHaveLength(0)
    expect(requestsTo("friendica", "/api/v1/media").length).toBeGreaterThan(0)
  })

  it("more files than the instance announces are refused before any upload", async () => {
    const c = await connect("pixelfed")
    const uploads = requestsTo("pixelfed", "/api/v1/media").length
    const answer = await run(adapter.publish(requestFor(c, { content: "too many", media: [image, image, image, image, image] })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("at most 4 files") })
    expect(requestsTo("pixelfed", "/api/v1/media")).toHaveLength(uploads)
  })

  it("signs in with a link on a Pixelfed instance and keeps the software with the channel", async () => {
    if (adapter.connect.kind !== "link") throw new Error("Mastodon connects with a link")
    const instance = `${sim.baseOf("mastodon")}/pixelfed`
    const redirectUri = "https://scheduler.example/integrations/social/mastodon"
    const url = new URL(await run(adapter.connect.authorizeUrl({ state: "pf", redirectUri, codeVerifier: "v".repeat(43), instance })))
    expect(url.origin + url.pathname).toBe(`${instance}/oauth/authorize`)
    url.searchParams.set("account", "photographer")
    const back = new URL((await fetch(url, { redirect: "manual" })).headers.get("location") ?? "")
    const connected = await run(
      adapter.connect.exchange({ code: back.searchParams.get("code") ?? "", redirectUri, codeVerifier: "v".repeat(43), instance, query: {} })
    )
    expect(connected.credentials).toMatchObject({ instance, software: { name: "pixelfed", reported: "pixelfed" } })
    expect(connected.profile.profile).toBe("photographer")
    // the limits the rules check before saving (domain/networks/instanceLimits.ts)
    expect(connected.defaultSettings).toEqual({ instance_max_characters: 500, instance_max_media: 4, instance_needs_media: true })
  })

  it("an instance whose NodeInfo cannot be read is told by its /api/v1/instance version; one that says nothing is Mastodon", async () => {
    const pleroma = seedMastodonAccount(sim, { username: "versioned", software: "pleroma" })
    sim.fail({ network: "mastodon", op: "nodeinfo", mode: "5xx", times: 1 })
    const connected = await run(adapter.verify({ instance: pleroma.instance, accessToken: pleroma.accessToken }))
    expect(connected.credentials["software"]).toMatchObject({ name: "pleroma", reported: "Pleroma", maxCharacters: 5000 })
    // GoToSocial's version has no "(compatible; …)": without NodeInfo it is taken for Mastodon, with its announced limits
    const gts = seedMastodonAccount(sim, { username: "unknown", software: "gotosocial" })
    sim.fail({ network: "mastodon", op: "nodeinfo", mode: "5xx", times: 1 })
    const plain = await run(adapter.verify({ instance: gts.instance, accessToken: gts.accessToken }))
    expect(plain.credentials["software"]).toMatchObject({ name: "mastodon", maxCharacters: 5000, maxMedia: 6 })
  })
})

describe.each(["pixelfed", "gotosocial"] as const)("Fediverse servers: faults on %s", (software) => {
  let c: Record<string, unknown>
  beforeAll(async () => {
    c = await connect(software)
  })
  faultMatrix({
    network: "mastodon",
    sim: () => sim,
    adapter: () => adapter,
    request: (content) => requestFor(c, { content, media: [image] })
  })
})
