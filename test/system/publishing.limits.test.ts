import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created, wholePost } from "../support/answers.js"

/**
 * A network's 429 (docs/publishing.md, "Limits"): the channel it was meant for waits out the
 * Retry-After (every post to it, not only the refused one), and no call reaches the network
 * for it meanwhile; other channels of the network and other networks go on.
 */

const RETRY_AFTER_S = 8

let sim: Simulator
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("publimits")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], { ...simulatorEnv(sim), PUBLISH_TIMEOUT_MS: "5000" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

const seed = (network: string, input: Record<string, unknown>) => seedAccount(sim, network, input)

describe("a network answers 429 with Retry-After", () => {
  it("the channel waits it out, every post to it; another channel of the network and another network do not wait", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace("Limits", "ultimate")
    const api = client(sys.url, apiKey)
    const channel = async (network: string, name: string, account: Record<string, unknown>) =>
      (await sys.admin.createChannel({ workspaceId, network, name, customerId: null, postingTimes: [], credentials: await seed(network, account) }))
        .channelId
    const a = await channel("mastodon", "Limited", { username: "limited" })
    const b = await channel("mastodon", "Free", { username: "free" })
    const t = await channel("telegram", "Elsewhere", { title: "Elsewhere" })
    const post = async (channelId: string, content: string) => {
      const res = await api.post("/public/v1/posts", { type: "now", posts: [{ integration: { id: channelId }, value: [{ content }] }] })
      expect(res.status, res.text).toBe(200)
      return created(res).group as string
    }
    const published = (group: string) =>
      waitFor(
        `${group} not published`,
        async () => (wholePost(await api.get(`/public/v1/posts/${group}`)).status === "published" ? true : undefined),
        40_000
      )

    sim.fail({ network: "mastodon", op: "publish", mode: "rate-limit", times: 1, retryAfterSeconds: RETRY_AFTER_S })
    const first = await post(a, "limited one")
    await waitFor("no 429 recorded", async () =>
      (await withDb(world, async (c) => (await c.query("SELECT 1 FROM publish_attempts WHERE outcome = 'rate_limited'")).rows.length)) > 0
        ? true
        : undefined
    )
    const limitedAt = sim.requests.find((r) => r.network === "mastodon" && r.op === "publish")!.at.getTime()
    const pauseEnds = limitedAt + RETRY_AFTER_S * 1000
    const second = await post(a, "limited two")
    const other = await post(b, "free one")
    const elsewhere = await post(t, "elsewhere one")
    for (const group of [first, second, other, elsewhere]) await published(group)

    const arrived = (text: string) => sim.posts.find((p) => p.text === text)!.at.getTime()
    // the refused post and the one queued behind it went out only after the wait
    expect(arrived("limited one")).toBeGreaterThanOrEqual(pauseEnds)
    expect(arrived("limited two")).toBeGreaterThanOrEqual(pauseEnds)
    // nothing else was sent for the limited channel: the 429, then one call per post
    expect(sim.requests.filter((r) => r.network === "mastodon" && r.op === "publish")).toHaveLength(4)
    // the other channel and the other network were not held behind it
    expect(arrived("free one")).toBeLessThan(pauseEnds)
    expect(arrived("elsewhere one")).toBeLessThan(pauseEnds)
    for (const text of ["limited one", "limited two", "free one", "elsewhere one"]) expect(sim.posts.filter((p) => p.text === text)).toHaveLength(1)
  }, 60_000)
})
