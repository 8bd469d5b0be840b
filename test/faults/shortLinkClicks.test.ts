import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created, metricOf } from "../support/answers.js"

/**
 * Short-link clicks are never lost and never counted twice when a gateway dies
 * (docs/features.md, "Short links"): a gateway SIGKILLed with clicks not flushed leaves them in Redis
 * for any other replica; a flush that died before its Postgres commit is finished once; one
 * that died after it is not added again.
 */

let world: TestWorld
let sys: RunningServices
const gateways = processGroup()
let redis: Redis

beforeAll(async () => {
  world = await createWorld("clickfaults")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"])
  redis = new Redis(world.redisUrl)
})
afterAll(async () => {
  redis.disconnect()
  await gateways.stopAll()
  await sys?.stop()
  await world?.drop()
})

const q = (text: string, values: ReadonlyArray<unknown> = []) => withDb(world, async (c) => (await c.query(text, [...values])).rows)
const key = (...parts: ReadonlyArray<string>) => [world.namespace, ...parts].join(":")

const publishedWithLink = async () => {
  const ws = await sys.admin.createWorkspace("Clicks", "team")
  const { channelId } = await sys.admin.createChannel({
    workspaceId: ws.workspaceId,
    network: "test",
    name: "Clicks",
    customerId: null,
    postingTimes: []
  })
  const res = await client(sys.url, ws.apiKey).post("/public/v1/posts", {
    type: "now",
    shortLink: true,
    content: "Go https://example.com/sale",
    channels: [channelId]
  })
  const postId = created(res).postId
  const content = await waitFor(
    "published",
    async () => (await q("SELECT content FROM test_network_posts WHERE channel_id = $1", [channelId]))[0]?.content
  )
  const code = String(content).match(/\/l\/([A-Za-z0-9_-]{12})/)?.[1] ?? ""
  return { apiKey: ws.apiKey, postId, code }
}
const flushedClicks = async (postId: string) => (await q("SELECT sum(clicks)::int AS n FROM short_links WHERE post_id = $1", [postId]))[0]?.n

describe("short-link clicks when a gateway dies", () => {
  it("SIGKILL with clicks not flushed: another replica flushes them, all of them once", async () => {
    const { apiKey, code, postId } = await publishedWithLink()
    // a gateway that would flush only after 10 minutes
    const doomed = await gateways.start(world, ["gateway"], { env: { SHORT_LINK_FLUSH_MS: "600000" }, label: "doomed gateway" })
    const port = doomed.id.replace("port ", "")
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/l/${code}`, { redirect: "manual" })
      expect(res.status).toBe(302)
    }
    expect((await doomed.kill("SIGKILL")).signal).toBe("SIGKILL")
    // the in-process gateway's next flush (every 5 s) takes what the dead one counted
    await waitFor("the clicks flushed by the other replica", async () => ((await flushedClicks(postId)) === 7 ? true : undefined), 30_000)
    const stats = await client(sys.url, apiKey).get(`/public/v1/analytics/post/${postId}`)
    expect(metricOf(stats, "Clicks").data[0]?.total).toBe(7)
  }, 120_000)

  it("a flush that died before its commit is finished once; one that died after it is not added again", async () => {
    const { code, postId } = await publishedWithLink()
    const before = await flushedClicks(postId)
    const unfinished = crypto.randomUUID()
    const committed = crypto.randomUUID()
    await redis.hset(key("clicks", "batch", unfinished), code, "4")
    await redis.hset(key("clicks", "batch", committed), code, "100")
    await redis.sadd(key("clicks", "batches"), unfinished, committed)
    await q("INSERT INTO short_link_flushes (id) VALUES ($1)", [committed])
    await waitFor("both batches finished", async () => ((await redis.scard(key("clicks", "batches"))) === 0 ? true : undefined), 30_000)
    expect(await flushedClicks(postId)).toBe(before + 4)
    expect(await redis.exists(key("clicks", "batch", unfinished), key("clicks", "batch", committed))).toBe(0)
  }, 60_000)
})
