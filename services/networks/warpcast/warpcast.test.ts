import { Effect, Either, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { NetworkAdapter } from "../adapter.js"
import { makeWarpcastAdapterWith } from "./adapter.js"
import { classifyWarpcast } from "./api.js"
import { faultMatrix } from "../../../test/support/faultMatrix.js"
import { adapterDeps, buildAdapter, imageMedia, PNG, published, requestFor, run } from "../../../test/support/networkHarness.js"
import { startSimulatorCore, type Simulator } from "../../../test/support/simulator/core.js"
import { seedWarpcastAccount, warpcastModule } from "./simulator.js"

/** The Farcaster adapter against the simulator's Neynar-style signer API. */

let sim: Simulator
let adapter: NetworkAdapter
const one = imageMedia("http://files.test/fc1.png")
const two = imageMedia("http://files.test/fc2.png", "Second")

beforeAll(async () => {
  sim = await startSimulatorCore([warpcastModule])
  adapter = await buildAdapter(
    makeWarpcastAdapterWith({ apiUrl: sim.baseOf("warpcast") }),
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

/** A connected channel's credentials (verify adds the fid and username). */
const channel = async (username?: string) => {
  const given = seedWarpcastAccount(sim, username === undefined ? {} : { username })
  return (await run(adapter.verify(given))).credentials
}

describe("Farcaster: connecting with an API key and an approved signer", () => {
  it("verify reads the signer's fid and the account's name", async () => {
    const given = seedWarpcastAccount(sim, { username: "alice" })
    const connected = await run(adapter.verify(given))
    expect(connected.credentials).toMatchObject({ ...given, fid: expect.any(Number), username: "alice" })
    expect(connected.profile).toMatchObject({ name: "Alice", profile: "alice", accountId: String(connected.credentials["fid"]) })
    expect(adapter.connect.kind).toBe("form")
  })

  it("a signer still waiting for approval is refused with where to approve it", async () => {
    const given = seedWarpcastAccount(sim, { status: "pending_approval" })
    const result = await Effect.runPromise(Effect.either(adapter.verify(given)))
    expect(Either.isLeft(result) && result.left.message).toMatch(/pending approval.*approve it at https:/)
  })

  it.each([
    [{ signerUuid: "x" }, /apiKey/],
    [{ apiKey: "k" }, /signerUuid/],
    [{ apiKey: "nope", signerUuid: "x" }, /invalid API key/]
  ])("verify refuses %j", async (input, message) => {
    const result = await Effect.runPromise(Effect.either(adapter.verify(input)))
    expect(Either.isLeft(result) && result.left.message).toMatch(message)
  })

  it("a signer made with another API key is refused", async () => {
    const a = seedWarpcastAccount(sim)
    const b = seedWarpcastAccount(sim)
    const result = await Effect.runPromise(Effect.either(adapter.verify({ apiKey: a.apiKey, signerUuid: b.signerUuid })))
    expect(Either.isLeft(result) && result.left.message).toMatch(/Signer not found/)
  })
})

describe("Farcaster: casting", () => {
  it("a cast with two images as embeds by address, then a reply to it", async () => {
    const c = await channel("bob")
    const root = published(await run(adapter.publish(requestFor(c, { content: "Hello Farcaster", media: [one, two] }))))
    expect(root.releaseUrl).toBe(`https://farcaster.xyz/bob/${root.releaseId.slice(0, 10)}`)
    const reply = published(
      await run(
        adapter.publishFollowUp(requestFor(c, { content: "a reply", position: 1, previousReleaseId: root.releaseId, rootReleaseId: root.releaseId }))
      )
    )
    const held = sim.postsOf("warpcast")
    expect(held.find((p) => p.id === root.releaseId)).toMatchObject({
      text: "Hello Farcaster",
      replyTo: null,
      media: [expect.objectContaining({ mime: "image/png", size: PNG.length }), expect.objectContaining({ mime: "image/png" })]
    })
    expect(held.find((p) => p.id === reply.releaseId)?.replyTo).toBe(root.releaseId)
  })

  it("the same item sent twice is one cast (idem = the item id)", async () => {
    const c = await channel()
    const request = requestFor(c, { content: "only once on Farcaster" })
    const a = published(await run(adapter.publish(request)))
    const b = published(await run(adapter.publish(request)))
    expect(b.releaseId).toBe(a.releaseId)
    const held = sim.postsOf("warpcast").filter((p) => p.text === "only once on Farcaster")
    expect(held).toHaveLength(1)
    expect(held[0]?.dedupeKey).toBe(request.item.id)
  })

  it("a text over the limit is rejected with the provider's reason and a fix", async () => {
    const answer = await run(adapter.publish(requestFor(await channel(), { content: "é".repeat(600) })))
    expect(answer).toMatchObject({ _tag: "Rejected", message: expect.stringContaining("too long"), fix: expect.stringContaining("Shorten") })
  })

  it("a signer revoked after connecting: rejected with a reconnect fix", () => {
    const response = {
      status: 403,
      headers: {},
      url: "",
      body: Buffer.from(JSON.stringify({ message: "Signer is not approved", code: "SignerNotApproved" }))
    }
    expect(classifyWarpcast({ _tag: "Response", response })).toMatchObject({ _tag: "Rejected", fix: expect.stringContaining("reconnect") })
  })

  it("classify never calls a 2xx without a hash published", () => {
    const response = { status: 200, headers: {}, url: "", body: Buffer.from(JSON.stringify({ success: true })) }
    expect(classifyWarpcast({ _tag: "Response", response })._tag).toBe("NoAnswer")
  })
})

describe("Farcaster: search and statistics", () => {
  it("finds the account's cast and reply by text (the reply under its parent), not another account's", async () => {
    const c = await channel()
    const other = await channel()
    const root = published(await run(adapter.publish(requestFor(c, { content: "find  this\ncast" }))))
    await run(adapter.publish(requestFor(other, { content: "someone else" })))
    expect(await run(adapter.search(requestFor(c, { content: "find this cast" })))).toMatchObject({ _tag: "Found", releaseId: root.releaseId })
    expect((await run(adapter.search(requestFor(c, { content: "someone else" }))))._tag).toBe("NotFound")
    const reply = published(await run(adapter.publishFollowUp(requestFor(c, { content: "the reply", previousReleaseId: root.releaseId }))))
    expect(await run(adapter.search(requestFor(c, { content: "the reply", previousReleaseId: root.releaseId })))).toMatchObject({
      _tag: "Found",
      releaseId: reply.releaseId
    })
    sim.fail({ network: "warpcast", op: "search", mode: "unavailable", times: 1 })
    expect((await run(adapter.search(requestFor(c, { content: "find this cast" }))))._tag).toBe("CannotTell")
  })

  it("reads the account's followers and a cast's likes, recasts and replies", async () => {
    const c = await channel()
    const root = published(await run(adapter.publish(requestFor(c, { content: "counted cast" }))))
    const account = await run(adapter.statistics.channel(Redacted.make(c), 30))
    expect(account._tag === "Metrics" && account.metrics.map((m) => [m.label, m.data[0]?.total])).toEqual([
      ["Followers", 12],
      ["Following", 3]
    ])
    const cast = await run(adapter.statistics.post(Redacted.make(c), root.releaseId))
    expect(cast._tag === "Metrics" && cast.metrics.map((m) => m.label)).toEqual(["Likes", "Recasts", "Replies"])
  })
})

describe("Farcaster: faults", () => {
  let credentials: Record<string, unknown>
  beforeAll(async () => {
    credentials = await channel()
  })
  faultMatrix({ network: "warpcast", sim: () => sim, adapter: () => adapter, request: (content) => requestFor(credentials, { content }) })
})
