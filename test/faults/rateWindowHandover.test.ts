import { connect, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shardOf } from "../../domain/shards.js"
import { processGroup } from "../support/processes.js"
import { startTwoActorHosts } from "../support/shardLeases.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

/**
 * POST /posts allows 90 requests an hour per workspace (spec: Limits). The window is the
 * workspace's, not the host's: when the host that owns the workspace dies mid-window, the
 * new owner goes on counting in the same window (the counts are in Redis), from the exact
 * count: neither more lenient nor stricter.
 */

const SHARDS = 8 // world.env SHARD_COUNT

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection
const hosts = processGroup()

beforeAll(async () => {
  world = await createWorld("ratehandover")
  sys = await startServices(world, ["gateway"])
  nc = await connect({ servers: world.natsUrl })
}, 60_000)

afterAll(async () => {
  await hosts.stopAll()
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

/** A workspace with a channel, and a POST /posts of a draft to it. */
const newWorkspace = async () => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Limited", customerId: null, postingTimes: [] })
  const post = () =>
    fetch(`${sys.url}/public/v1/posts`, {
      method: "POST",
      headers: { authorization: apiKey, "content-type": "application/json" },
      body: JSON.stringify({ type: "draft", content: "counted", channels: [channelId] })
    })
  return { workspaceId, post }
}

describe("the POST /posts window when the owning actor host is killed mid-window", () => {
  it("survives the hand-over: the 91st request is refused by the new owner too, with the same window's Retry-After", async () => {
    const { first, second, owners: map } = await startTwoActorHosts(hosts, world, nc, SHARDS)
    const { workspaceId, post } = await newWorkspace()
    const owner = map.get(shardOf(workspaceId, SHARDS)) === first.id ? first : second

    for (let batch = 0; batch < 9; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, post))
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    }
    const over = await post()
    expect(over.status).toBe(429)

    await owner.kill("SIGKILL")
    const afterHandOver = await post()
    expect(afterHandOver.status).toBe(429)
    const retryAfter = Number(afterHandOver.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(0)
    expect(retryAfter).toBeLessThanOrEqual(Number(over.headers.get("retry-after")))
    expect(((await afterHandOver.json()) as { error: string }).error).toMatch(/^Too many requests\. Try again in \d+ minutes\.$/)
  }, 90_000)

  it.each(["SIGKILL", "SIGTERM"] as const)(
    "the new owner goes on from the exact count: 89 on the owner, %s, then the 90th is answered and the 91st refused",
    async (signal) => {
      await hosts.stopAll()
      const { first, second, owners: map } = await startTwoActorHosts(hosts, world, nc, SHARDS)
      const { workspaceId, post } = await newWorkspace()
      const owner = map.get(shardOf(workspaceId, SHARDS)) === first.id ? first : second
      // 89 answered by the owner
      for (let sent = 0; sent < 89; sent += 10) {
        const answers = await Promise.all(Array.from({ length: Math.min(10, 89 - sent) }, post))
        expect(answers.map((a) => a.status)).toEqual(Array(Math.min(10, 89 - sent)).fill(200))
      }
      await owner.kill(signal)
      expect((await post()).status).toBe(200)
      const over = await post()
      expect(over.status).toBe(429)
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(3600 - 120)
    },
    90_000
  )
})
