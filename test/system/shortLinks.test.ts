import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created, metricsOf, wholePost } from "../support/answers.js"

/**
 * Spec: POST /posts `shortLink`, the short-link redirect and its clicks in GET
 * /analytics/post/{postId}. Clicks are counted in Redis by any gateway replica and flushed
 * to Postgres; a gateway that stops (or a second replica) loses none of them.
 */

let world: TestWorld
let workers: RunningServices
let gateway: RunningServices

beforeAll(async () => {
  world = await createWorld("shortlinks")
  workers = await startServices(world, ["actors", "scheduler", "publisher"])
  gateway = await startServices(world, ["gateway"])
})
afterAll(async () => {
  await gateway.stop()
  await workers.stop()
  await world.drop()
})

const q = (text: string, values: ReadonlyArray<unknown> = []) => withDb(world, async (c) => (await c.query(text, [...values])).rows)
/** PUBLIC_URL of the test world; the short link's path is followed on the gateway itself. */
const codesIn = (text: string) => [...text.matchAll(/http:\/\/127\.0\.0\.1\/l\/([A-Za-z0-9_-]{12})/g)].map((m) => m[1]!)
const follow = (base: string, code: string) => fetch(`${base}/l/${code}`, { redirect: "manual" })
const clicksOf = async (base: string, key: string, postId: string) => {
  const res = await client(base, key).get(`/public/v1/analytics/post/${postId}`)
  return metricsOf(res).find((m) => m.label === "Clicks")?.data[0]?.total
}

describe("short links", () => {
  let apiKey: string
  let postId: string
  let sent: string
  const text =
    "Launch: https://example.com/launch?x=1. Code `curl https://api.example/v1` stays. Again https://example.com/launch?x=1 and (https://other.example/b)"

  beforeAll(async () => {
    const ws = await gateway.admin.createWorkspace("Links", "team")
    apiKey = ws.apiKey
    const { channelId } = await gateway.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Links",
      customerId: null,
      postingTimes: []
    })
    const res = await client(gateway.url, apiKey).post("/public/v1/posts", { type: "now", shortLink: true, content: text, channels: [channelId] })
    expect(res.status).toBe(200)
    postId = created(res).postId
    sent = await waitFor(
      "published with short links",
      async () => (await q("SELECT content FROM test_network_posts WHERE channel_id = $1", [channelId]))[0]?.content
    )
  })

  it("links are replaced before publishing: one code per link and post, code spans left alone, the stored post unchanged", async () => {
    const codes = codesIn(sent)
    expect(codes).toHaveLength(3)
    expect(codes[0]).toBe(codes[1])
    expect(codes[2]).not.toBe(codes[0])
    expect(sent).toBe(
      `Launch: http://127.0.0.1/l/${codes[0]}. Code \`curl https://api.example/v1\` stays. Again http://127.0.0.1/l/${codes[0]} and (http://127.0.0.1/l/${codes[2]})`
    )
    const post = await client(gateway.url, apiKey).get(`/public/v1/posts/${postId}`)
    expect(wholePost(post).channels[0]?.root.content).toBe(text)
  })

  it("GET /l/<code> answers 302 to the original address", async () => {
    const [launch, , other] = codesIn(sent)
    const a = await follow(gateway.url, launch!)
    expect([a.status, a.headers.get("location")]).toEqual([302, "https://example.com/launch?x=1"])
    const b = await follow(gateway.url, other!)
    expect([b.status, b.headers.get("location")]).toEqual([302, "https://other.example/b"])
  })

  it("an unknown or malformed code: a 404 page, no redirect", async () => {
    for (const code of ["AAAAAAAAAAAA", "short", "AAAAAAAAAAAAA"]) {
      const res = await follow(gateway.url, code)
      expect(res.status).toBe(404)
      expect(res.headers.get("location")).toBeNull()
      expect(res.headers.get("content-type")).toMatch(/text\/html/)
    }
  })

  it("clicks are counted and shown in the post's statistics, across a restart of the gateway and on any replica", async () => {
    const [launch, , other] = codesIn(sent)
    const before = (await clicksOf(gateway.url, apiKey, postId)) ?? 0
    for (let i = 0; i < 3; i++) expect((await follow(gateway.url, launch!)).status).toBe(302)
    expect((await follow(gateway.url, other!)).status).toBe(302)
    expect(await clicksOf(gateway.url, apiKey, postId)).toBe(before + 4)

    // a second replica counts into the same numbers
    const replica = await startServices(world, ["gateway"])
    try {
      expect((await follow(replica.url, other!)).status).toBe(302)
      expect(await clicksOf(replica.url, apiKey, postId)).toBe(before + 5)
    } finally {
      await replica.stop()
    }

    // the gateway stops (flushing what it counted) and starts again: nothing lost, nothing twice
    await gateway.stop()
    gateway = await startServices(world, ["gateway"])
    expect(await clicksOf(gateway.url, apiKey, postId)).toBe(before + 5)
    const flushed = await q("SELECT sum(clicks)::int AS n FROM short_links WHERE post_id = $1", [postId])
    expect(flushed).toEqual([{ n: before + 5 }])
    expect((await follow(gateway.url, launch!)).status).toBe(302)
    expect(await clicksOf(gateway.url, apiKey, postId)).toBe(before + 6)
  })

  it("without shortLink the links go out as written", async () => {
    const ws = await gateway.admin.createWorkspace("Plain", "team")
    const { channelId } = await gateway.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Plain",
      customerId: null,
      postingTimes: []
    })
    await client(gateway.url, ws.apiKey).post("/public/v1/posts", { type: "now", content: "See https://example.com/plain", channels: [channelId] })
    const content = await waitFor(
      "published",
      async () => (await q("SELECT content FROM test_network_posts WHERE channel_id = $1", [channelId]))[0]?.content
    )
    expect(content).toBe("See https://example.com/plain")
  })
})
