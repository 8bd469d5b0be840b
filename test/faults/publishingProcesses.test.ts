import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { everyItemSettles, freeze, separateServices, testNetworkCopies, type SeparateServices } from "../support/publishingProcesses.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { FaultMode, Simulator } from "../support/simulator/core.js"
import { createWorld, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created } from "../support/answers.js"

/**
 * Never send twice, never lose a post, with gateway, actors, scheduler and publisher as
 * separate processes (issue #11: fault tests). Each case breaks one process at a named
 * point (the TEST_PAUSE_AT hook of services/platform/testHooks.ts stops it exactly there;
 * then it is killed with SIGKILL), freezes one (SIGSTOP), runs two publishers, or breaks
 * the network (every simulator fault mode), and asserts outcomes only: every item ends
 * published, error or unconfirmed within a bounded time, none left publishing, and the
 * network holds at most one copy of each item.
 */

const ACK_WAIT_MS = 1500
const env = { PUBLISHER_ACK_WAIT_MS: String(ACK_WAIT_MS), PUBLISH_TIMEOUT_MS: "3000" }

let sim: Simulator
let world: TestWorld
let services: SeparateServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("pubprocs")
  services = await separateServices(world, { ...simulatorEnv(sim), ...env })
}, 180_000)
afterAll(async () => {
  await services?.stop()
  await world?.drop()
  await sim?.close()
})
afterEach(() => sim.clearFaults())

const seed = (network: string) => seedAccount(sim, network)

const workspace = async () => {
  const ws = await services.createWorkspace()
  const channel = async (network: string, name: string) =>
    (
      await services.createChannel({
        workspaceId: ws.workspaceId,
        network,
        name,
        customerId: null,
        postingTimes: [],
        ...(network === "test" ? {} : { credentials: await seed(network) })
      })
    ).channelId
  const post = async (channelId: string, content: string, settings: Record<string, unknown> = {}) => {
    const res = await ws.api.post("/public/v1/posts", { type: "now", posts: [{ integration: { id: channelId }, value: [{ content }], settings }] })
    expect(res.status, res.text).toBe(200)
    return created(res).group
  }
  return { ...ws, channel, post }
}

const simCopies = (network: string, text: string) => sim.postsOf(network).filter((p) => p.text === text).length
const unique = (label: string) => `${label} ${crypto.randomUUID().slice(0, 8)}`

/** Every item of the workspace settled (bounded); per text, its final row. */
const settle = async (workspaceId: string) => new Map((await everyItemSettles(world, [workspaceId])).map((r) => [r.content, r]))

const itemIdOf = (text: string) =>
  waitFor("no item", () =>
    withDb(world, async (c) => (await c.query<{ id: string }>("SELECT id FROM post_items WHERE content = $1", [text])).rows[0]?.id)
  )
const statusOf = (itemId: string) =>
  withDb(world, async (c) => (await c.query<{ status: string }>("SELECT status FROM post_items WHERE id = $1", [itemId])).rows[0]!.status)

describe("kill -9 of the publisher", () => {
  it("after the attempt is recorded, before any call: the next publisher searches and never sends; unconfirmed, no copy", async () => {
    const paused = await services.swap("publisher", { TEST_PAUSE_AT: "publisher.attemptRecorded" })
    const w = await workspace()
    const text = unique("killed before sending")
    await w.post(await w.channel("mastodon", "Killed early"), text)
    await paused.waitForOutput(/paused at publisher.attemptRecorded/, 60_000)
    await services.swap("publisher")
    const items = await settle(w.workspaceId)
    expect(items.get(text)!.status).toBe("unconfirmed")
    expect(simCopies("mastodon", text)).toBe(0)
  }, 120_000)

  it("after the network took the post, before the outcome is recorded: the search links it (published, one copy); a network that cannot search: unconfirmed, one copy", async () => {
    const paused = await services.swap("publisher", { TEST_PAUSE_AT: "publisher.answered" })
    const w = await workspace()
    const searchable = unique("accepted then killed (mastodon)")
    const blind = unique("accepted then killed (telegram)")
    await w.post(await w.channel("mastodon", "Searchable"), searchable)
    await w.post(await w.channel("telegram", "Blind"), blind)
    await paused.waitForOutput(/paused at publisher.answered[\s\S]*paused at publisher.answered/, 60_000)
    expect(simCopies("mastodon", searchable)).toBe(1)
    expect(simCopies("telegram", blind)).toBe(1)
    await services.swap("publisher")
    const items = await settle(w.workspaceId)
    expect(items.get(searchable)).toMatchObject({ status: "published", releaseId: sim.postsOf("mastodon").find((p) => p.text === searchable)!.id })
    expect(items.get(blind)!.status).toBe("unconfirmed")
    expect(simCopies("mastodon", searchable)).toBe(1)
    expect(simCopies("telegram", blind)).toBe(1)
  }, 120_000)
})

describe("kill -9 of the scheduler mid-claim", () => {
  it("items claimed and their jobs committed, never put on PUBLISH: the next scheduler enqueues them; each published once", async () => {
    const paused = await services.swap("scheduler", { TEST_PAUSE_AT: "scheduler.claimed" })
    const w = await workspace()
    const channelId = await w.channel("test", "Claimed")
    const texts = Array.from({ length: 5 }, (_, n) => unique(`claimed ${n}`))
    for (const text of texts) await w.post(channelId, text)
    await paused.waitForOutput(/paused at scheduler.claimed/, 60_000)
    await services.swap("scheduler")
    const items = await settle(w.workspaceId)
    const copies = await testNetworkCopies(world, texts)
    for (const text of texts) {
      expect(items.get(text)!.status).toBe("published")
      expect(copies.get(text)).toBe(1)
    }
  }, 120_000)
})

describe("a publisher that stalls past the ack wait (SIGSTOP, then SIGCONT)", () => {
  it("another publisher takes the job over and only searches (unconfirmed); the stalled one's answer then wins: published, one copy", async () => {
    // its own deadline far beyond the slow answer: when it wakes up, the answer is what it sees
    const stalled = await services.swap("publisher", { PUBLISH_TIMEOUT_MS: "60000" })
    const w = await workspace()
    const text = unique("stalled")
    await w.post(await w.channel("test", "Stalled"), text, { outcome: "slow", slowMs: 2000 })
    const itemId = await itemIdOf(text)
    await waitFor("no attempt", () =>
      withDb(world, async (c) => ((await c.query("SELECT 1 FROM publish_attempts WHERE item_id = $1", [itemId])).rows.length > 0 ? true : undefined))
    )
    const frozen = freeze(stalled)
    const other = await services.start("publisher")
    try {
      await waitFor("the other publisher did not conclude", async () => ((await statusOf(itemId)) === "unconfirmed" ? true : undefined), 60_000)
      expect((await testNetworkCopies(world, [text])).get(text) ?? 0).toBe(0)
      frozen.resume()
      await waitFor("the late answer did not win", async () => ((await statusOf(itemId)) === "published" ? true : undefined), 60_000)
      await settle(w.workspaceId)
      expect((await testNetworkCopies(world, [text])).get(text)).toBe(1)
    } finally {
      frozen.resume()
      await other.kill("SIGKILL")
      await services.swap("publisher")
    }
  }, 120_000)
})

describe("two publisher replicas", () => {
  it("share the jobs: every post published, each exactly once", async () => {
    const second = await services.start("publisher")
    try {
      const w = await workspace()
      const test = await w.channel("test", "Replicas test")
      const mastodon = await w.channel("mastodon", "Replicas mastodon")
      const texts = Array.from({ length: 20 }, (_, n) => unique(`replica ${n}`))
      await Promise.all(texts.map((text, n) => w.post(n % 2 === 0 ? test : mastodon, text)))
      const items = await settle(w.workspaceId)
      const onTest = await testNetworkCopies(world, texts)
      texts.forEach((text, n) => {
        expect(items.get(text)!.status).toBe("published")
        expect(n % 2 === 0 ? onTest.get(text) : simCopies("mastodon", text)).toBe(1)
      })
    } finally {
      await second.kill("SIGKILL")
    }
  }, 120_000)
})

/** Every simulator fault on Mastodon's publish, and where the item must end (with how many copies). */
const faultCases: ReadonlyArray<readonly [FaultMode, "published" | "error" | "unconfirmed" | "error or unconfirmed", 0 | 1]> = [
  ["hang", "unconfirmed", 0],
  ["reset", "unconfirmed", 0],
  ["accept-then-hang", "published", 1],
  ["accept-then-reset", "published", 1],
  ["accept-then-5xx", "published", 1],
  ["5xx", "unconfirmed", 0],
  ["reject", "error", 0],
  ["rate-limit", "published", 1],
  ["expired-token", "error", 0],
  ["garbage", "unconfirmed", 0],
  ["html", "unconfirmed", 0],
  ["no-id", "unconfirmed", 0],
  ["huge", "unconfirmed", 0],
  ["redirect-private", "error or unconfirmed", 0]
]

describe("every simulator fault mode through the publisher", () => {
  it.each(faultCases)(
    "publish %s → %s, the network holds %i",
    async (mode, ending, copies) => {
      const w = await workspace()
      const channelId = await w.channel("mastodon", `Fault ${mode}`)
      const text = unique(`fault ${mode}`)
      sim.fail({ network: "mastodon", op: "publish", mode, times: 1, retryAfterSeconds: 1 })
      await w.post(channelId, text)
      const item = (await settle(w.workspaceId)).get(text)!
      expect(ending.split(" or ")).toContain(item.status)
      expect(simCopies("mastodon", text)).toBe(copies)
    },
    120_000
  )

  it("search unavailable after the network took the post without answering → unconfirmed, one copy, never sent again", async () => {
    const w = await workspace()
    const channelId = await w.channel("mastodon", "Search down")
    const text = unique("search down")
    sim.fail({ network: "mastodon", op: "publish", mode: "accept-then-5xx", times: 1 })
    sim.fail({ network: "mastodon", op: "search", mode: "unavailable" })
    await w.post(channelId, text)
    expect((await settle(w.workspaceId)).get(text)!.status).toBe("unconfirmed")
    expect(simCopies("mastodon", text)).toBe(1)
  }, 120_000)

  it("connections refused (nothing reached the network) → sent again once it is back: published, one copy", async () => {
    const w = await workspace()
    const channelId = await w.channel("mastodon", "Refused")
    const text = unique("refused")
    await sim.refuseConnections(2500)
    await w.post(channelId, text)
    expect((await settle(w.workspaceId)).get(text)!.status).toBe("published")
    expect(simCopies("mastodon", text)).toBe(1)
  }, 120_000)
})
