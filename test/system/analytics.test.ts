import { Redis } from "ioredis"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { waitFor } from "../support/wait.js"
import { created, metricsOf, missingStatistics, wholePost } from "../support/answers.js"

/** Spec: Analytics (GET /analytics/{integration}, GET /analytics/post/{postId}), Statistics metric, Limits 9, on the test network. */

let world: TestWorld
let sys: RunningServices
let apiKey: string
let channelId: string

beforeAll(async () => {
  world = await createWorld("analytics")
  sys = await startServices(world)
  const ws = await sys.admin.createWorkspace("Stats", "team")
  apiKey = ws.apiKey
  ;({ channelId } = await sys.admin.createChannel({
    workspaceId: ws.workspaceId,
    network: "test",
    name: "Stats",
    customerId: null,
    postingTimes: []
  }))
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

const sum = (data: ReadonlyArray<{ total: number }>) => data.reduce((a, p) => a + p.total, 0)
const change = (before: number, after: number) => (before === 0 ? (after === 0 ? 0 : 100) : Math.round(((after - before) / before) * 10000) / 100)
const today = () => new Date().toISOString().slice(0, 10)

describe("GET /analytics/{integration}", () => {
  it("default 30 days: daily numbers ending today, each metric with label, help and percentageChange", async () => {
    const res = await client(sys.url, apiKey).get(`/public/v1/analytics/${channelId}`)
    expect(res.status).toBe(200)
    const metrics = metricsOf(res)
    expect(metrics.map((m) => m.label)).toEqual(["Impressions", "Likes", "Comments", "New followers"])
    for (const m of metrics) {
      expect(Object.keys(m).sort()).toEqual(["data", "help", "label", "percentageChange"])
      expect(m.data).toHaveLength(30)
      expect(m.data.at(-1)?.date).toBe(today())
      expect(m.data.every((p) => Number.isInteger(p.total) && p.total >= 0)).toBe(true)
    }
  })

  it("90 days falls back to the 60 the test network keeps, compared half against half; 30 against the previous period", async () => {
    const api = client(sys.url, apiKey)
    const longest = metricsOf(await api.get(`/public/v1/analytics/${channelId}?date=90`))
    const month = metricsOf(await api.get(`/public/v1/analytics/${channelId}?date=30`))
    const week = metricsOf(await api.get(`/public/v1/analytics/${channelId}?date=7`))
    expect([month.length, week.length]).toEqual([longest.length, longest.length])
    longest.forEach((m, i) => {
      expect(m.data).toHaveLength(60)
      expect(m.percentageChange).toBe(change(sum(m.data.slice(0, 30)), sum(m.data.slice(30))))
      // the previous 30 days are the first half of the 60
      expect(month[i]?.data).toEqual(m.data.slice(30))
      expect(month[i]?.percentageChange).toBe(change(sum(m.data.slice(0, 30)), sum(m.data.slice(30))))
      expect(week[i]?.data).toEqual(m.data.slice(53))
      expect(week[i]?.percentageChange).toBe(change(sum(m.data.slice(46, 53)), sum(m.data.slice(53))))
    })
  })

  it("deterministic, and kept in Redis per channel and range for a short while", async () => {
    const api = client(sys.url, apiKey)
    const a = await api.get(`/public/v1/analytics/${channelId}?date=7`)
    const b = await api.get(`/public/v1/analytics/${channelId}?date=7`)
    expect(b.json).toEqual(a.json)
    const redis = new Redis(world.redisUrl)
    try {
      const ttl = await redis.ttl(`${world.namespace}:analytics:channel:${channelId}:7`)
      expect(ttl).toBeGreaterThan(0)
      expect(ttl).toBeLessThanOrEqual(300)
    } finally {
      redis.disconnect()
    }
  })

  it.each(["14", "0", "91", "abc", "7.5", ""])("date=%j: 400", async (raw) => {
    const res = await client(sys.url, apiKey).get(`/public/v1/analytics/${channelId}?date=${encodeURIComponent(raw)}`)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      error: "date must be 7, 30 or 90 (days of statistics); leave it out for 30.",
      msg: "date must be 7, 30 or 90 (days of statistics); leave it out for 30."
    })
  })

  it("an invalid id: 400; unknown or another workspace's channel: 404 alike", async () => {
    const api = client(sys.url, apiKey)
    expect((await api.get("/public/v1/analytics/nope")).status).toBe(400)
    const other = await sys.admin.createWorkspace("Other")
    const { channelId: theirs } = await sys.admin.createChannel({
      workspaceId: other.workspaceId,
      network: "test",
      name: "Theirs",
      customerId: null,
      postingTimes: []
    })
    const foreign = await api.get(`/public/v1/analytics/${theirs}`)
    const unknown = await api.get(`/public/v1/analytics/${crypto.randomUUID()}`)
    expect([foreign.status, unknown.status]).toEqual([404, 404])
    expect(foreign.json).toEqual(unknown.json)
  })

  it("a network that shares nothing (or a channel that cannot be read): {missing: true, message}", async () => {
    const ws = await sys.admin.createWorkspace("Quiet", "team")
    const { channelId: quiet } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "telegram",
      name: "Quiet",
      customerId: null,
      postingTimes: []
    })
    const res = await client(sys.url, ws.apiKey).get(`/public/v1/analytics/${quiet}`)
    expect(res.status).toBe(200)
    expect(missingStatistics(res).message).not.toBe("")
  })
})

describe("GET /analytics/post/{postId}", () => {
  it("not published yet: {missing: true, message}; published: each metric one point dated today, percentageChange 0", async () => {
    const api = client(sys.url, apiKey)
    const later = await api.post("/public/v1/posts", {
      type: "schedule",
      date: new Date(Date.now() + 3600_000).toISOString(),
      content: "Later",
      channels: [channelId]
    })
    expect((await api.get(`/public/v1/analytics/post/${created(later).postId}`)).json).toEqual({
      missing: true,
      message: "This post is not published yet: its statistics come once it is live."
    })
    const now = await api.post("/public/v1/posts", { type: "now", content: "Live now", channels: [channelId] })
    const { group, postId } = created(now)
    await waitFor("published", async () => (wholePost(await api.get(`/public/v1/posts/${group}`)).status === "published" ? true : undefined))
    const res = await api.get(`/public/v1/analytics/post/${postId}`)
    expect(res.status).toBe(200)
    const metrics = metricsOf(res)
    expect(metrics.map((m) => m.label)).toEqual(["Impressions", "Likes", "Comments", "Reposts"])
    for (const m of metrics) expect(m).toEqual({ label: m.label, percentageChange: 0, data: [{ total: m.data[0]?.total, date: today() }] })
    // the group id names its first channel
    expect((await api.get(`/public/v1/analytics/post/${group}`)).json).toEqual(res.json)
  })

  it("an invalid id: 400; unknown or another workspace's post: 404 Post not found", async () => {
    const other = await sys.admin.createWorkspace("Elsewhere")
    const { channelId: theirs } = await sys.admin.createChannel({
      workspaceId: other.workspaceId,
      network: "test",
      name: "T",
      customerId: null,
      postingTimes: []
    })
    const theirPost = await client(sys.url, other.apiKey).post("/public/v1/posts", { type: "draft", content: "Theirs", channels: [theirs] })
    const api = client(sys.url, apiKey)
    expect((await api.get("/public/v1/analytics/post/123")).status).toBe(400)
    for (const id of [created(theirPost).postId, crypto.randomUUID()]) {
      const res = await api.get(`/public/v1/analytics/post/${id}`)
      expect([res.status, errorOf(res).error]).toEqual([404, "Post not found"])
    }
  })
})
