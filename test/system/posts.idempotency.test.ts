import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { created } from "../support/answers.js"

/**
 * POST /posts rule 4 and Limits rule 4: Idempotency-Key (up to 255 characters, 24 hours
 * per workspace; replay with `Idempotent-Replayed: true`; 409 for another body or while
 * the first runs; only successful answers kept).
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("postsidem")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const inMinutes = (m: number) => new Date(Date.now() + m * 60_000).toISOString()

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Alpha", customerId: null, postingTimes: [] })
  return { workspaceId, apiKey, channelId, api: () => client(sys.url, apiKey) }
}

const groupCount = (workspaceId: string) =>
  withDb(world, async (c) => (await c.query("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1", [workspaceId])).rows[0].n as number)

const postCount = (workspaceId: string) =>
  withDb(world, async (c) => (await c.query("SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1", [workspaceId])).rows[0].n as number)

const body = (channelId: string, content = "Hello", date = inMinutes(120)) => ({
  type: "schedule",
  date,
  posts: [{ integration: { id: channelId }, value: [{ content }], settings: { audience: "everyone" } }]
})

const key = () => `key-${crypto.randomUUID()}`

describe("POST /posts rule 4: same key and same body replays the first answer", () => {
  it("same status and body, header Idempotent-Replayed: true, one post", async () => {
    const w = await newWorkspace()
    const k = key()
    const b = body(w.channelId)
    const first = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(first.status).toBe(200)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const second = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(second.status).toBe(first.status)
    expect(second.json).toEqual(first.json)
    expect(second.text).toBe(first.text)
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    const third = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(third.json).toEqual(first.json)
    expect(third.headers.get("idempotent-replayed")).toBe("true")
    expect(await groupCount(w.workspaceId)).toBe(1)
    expect(await postCount(w.workspaceId)).toBe(1)
  })

  it("a replay answers the first answer even when the body would be refused now (its channel disconnected since)", async () => {
    const w = await newWorkspace()
    const k = key()
    const b = body(w.channelId)
    const first = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(first.status).toBe(200)
    expect((await w.api().del(`/public/v1/integrations/${w.channelId}`)).status).toBe(200)
    const again = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(again.status).toBe(200)
    expect(again.text).toBe(first.text)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    // another body under the key is still 409, not the 404 of its channel
    const other = await w.api().post("/public/v1/posts", body(w.channelId, "Other"), { "idempotency-key": k })
    expect(other.status).toBe(409)
  })

  it("the same JSON with another key order (and other whitespace) is a replay", async () => {
    const w = await newWorkspace()
    const k = key()
    const date = inMinutes(120)
    const first = await w
      .api()
      .post(
        "/public/v1/posts",
        `{"type":"schedule","date":"${date}","posts":[{"integration":{"id":"${w.channelId}"},"value":[{"content":"Hi","delay":0}],"settings":{"audience":"everyone"}}]}`,
        { "idempotency-key": k }
      )
    expect(first.status).toBe(200)
    const reordered = await w
      .api()
      .post(
        "/public/v1/posts",
        `{ "posts": [ { "settings": {"audience":"everyone"}, "value": [ {"delay":0, "content":"Hi"} ], "integration": {"id":"${w.channelId}"} } ],\n "date": "${date}", "type": "schedule" }`,
        { "idempotency-key": k }
      )
    expect(reordered.status).toBe(200)
    expect(reordered.headers.get("idempotent-replayed")).toBe("true")
    expect(reordered.json).toEqual(first.json)
    expect(await groupCount(w.workspaceId)).toBe(1)
  })
})

describe("POST /posts rule 4: same key with a different body", () => {
  it("409 with code idempotency_key_reused and the exact message; no post", async () => {
    const w = await newWorkspace()
    const k = key()
    const one = body(w.channelId, "One")
    const first = await w.api().post("/public/v1/posts", one, { "idempotency-key": k })
    expect(first.status).toBe(200)
    const other = await w.api().post("/public/v1/posts", { ...one, posts: body(w.channelId, "Two").posts }, { "idempotency-key": k })
    expect(other.status).toBe(409)
    expect(other.json).toEqual({
      error: "This Idempotency-Key was already used with a different request body.",
      msg: "This Idempotency-Key was already used with a different request body.",
      code: "idempotency_key_reused",
      fix: expect.any(String)
    })
    expect(errorOf(other).fix?.length).toBeGreaterThan(0)
    expect(other.headers.get("idempotent-replayed")).toBeNull()
    expect(await groupCount(w.workspaceId)).toBe(1)
    // the first answer is still kept for the first body
    const replay = await w.api().post("/public/v1/posts", one, { "idempotency-key": k })
    expect(replay.status).toBe(200)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.json).toEqual(first.json)
  })
})

describe("POST /posts rule 4: concurrent requests with one key", () => {
  it("20 identical requests in parallel make exactly one post; the others replay or get 409 still running", async () => {
    const w = await newWorkspace()
    const k = key()
    const b = body(w.channelId, "Parallel")
    const results = await Promise.all(Array.from({ length: 20 }, () => w.api().post("/public/v1/posts", b, { "idempotency-key": k })))
    const ok = results.filter((r) => r.status === 200)
    const running = results.filter((r) => r.status === 409)
    expect(ok.length + running.length).toBe(20)
    expect(ok.length).toBeGreaterThanOrEqual(1)
    for (const r of ok) expect(r.json).toEqual(ok[0]!.json)
    expect(ok.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
    for (const r of running) {
      expect(errorOf(r).error).toBe("A request with this Idempotency-Key is still running.")
      expect(errorOf(r).msg).toBe(errorOf(r).error)
    }
    expect(await groupCount(w.workspaceId)).toBe(1)
    expect(await postCount(w.workspaceId)).toBe(1)
    // afterwards the key replays
    const after = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(after.status).toBe(200)
    expect(after.json).toEqual(ok[0]!.json)
    expect(after.headers.get("idempotent-replayed")).toBe("true")
  })
})

describe("POST /posts rule 4: replays after the first answer", () => {
  it("several replays sent at the same time after the first has finished all replay (409 is only while the first runs)", async () => {
    const w = await newWorkspace()
    const k = key()
    const b = body(w.channelId, "Done already")
    const first = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(first.status).toBe(200)
    const replays = await Promise.all(Array.from({ length: 6 }, () => w.api().post("/public/v1/posts", b, { "idempotency-key": k })))
    expect(replays.map((r) => r.status)).toEqual(Array(6).fill(200))
    for (const r of replays) {
      expect(r.headers.get("idempotent-replayed")).toBe("true")
      expect(r.json).toEqual(first.json)
    }
    expect(await groupCount(w.workspaceId)).toBe(1)
  })
})

describe("Limits rule 4: keys are per workspace", () => {
  it("the same key in two workspaces makes two posts", async () => {
    const one = await newWorkspace()
    const two = await newWorkspace()
    const k = key()
    const a = await one.api().post("/public/v1/posts", body(one.channelId, "Same"), { "idempotency-key": k })
    const b = await two.api().post("/public/v1/posts", body(two.channelId, "Same"), { "idempotency-key": k })
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(b.headers.get("idempotent-replayed")).toBeNull()
    expect(created(b).group).not.toBe(created(a).group)
    expect(created(b).integration).toBe(two.channelId)
    expect(await groupCount(one.workspaceId)).toBe(1)
    expect(await groupCount(two.workspaceId)).toBe(1)
  })
})

describe("Limits rule 4: up to 255 characters", () => {
  it("a key of 256 characters gives 400 and saves nothing", async () => {
    const w = await newWorkspace()
    const res = await w.api().post("/public/v1/posts", body(w.channelId), { "idempotency-key": "k".repeat(256) })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect(errorOf(res).error.length).toBeGreaterThan(0)
    expect(await groupCount(w.workspaceId)).toBe(0)
  })

  it("a key of 255 characters works and replays", async () => {
    const w = await newWorkspace()
    const k = "k".repeat(250) + "12345"
    const b = body(w.channelId)
    const first = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(first.status).toBe(200)
    const again = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.json).toEqual(first.json)
    expect(await groupCount(w.workspaceId)).toBe(1)
  })
})

describe("POST /posts rule 4: only successful answers are kept", () => {
  it("after a 400 the same key works with a fixed body", async () => {
    const w = await newWorkspace()
    const k = key()
    const broken = await w.api().post("/public/v1/posts", body(w.channelId, "x".repeat(501)), { "idempotency-key": k })
    expect(broken.status).toBe(400)
    expect(errorOf(broken).error).toBe("Please fix these before saving.")
    const fixed = body(w.channelId, "short enough")
    const ok = await w.api().post("/public/v1/posts", fixed, { "idempotency-key": k })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("idempotent-replayed")).toBeNull()
    const replay = await w.api().post("/public/v1/posts", fixed, { "idempotency-key": k })
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.json).toEqual(ok.json)
    expect(await groupCount(w.workspaceId)).toBe(1)
  })

  it("after a 404 (unknown channel) the same key works with a fixed body", async () => {
    const w = await newWorkspace()
    const k = key()
    const wrong = await w.api().post("/public/v1/posts", body(crypto.randomUUID()), { "idempotency-key": k })
    expect(wrong.status).toBe(404)
    const ok = await w.api().post("/public/v1/posts", body(w.channelId), { "idempotency-key": k })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("idempotent-replayed")).toBeNull()
    expect(await groupCount(w.workspaceId)).toBe(1)
  })

  it("after a 400 with an invalid date the same key works", async () => {
    const w = await newWorkspace()
    const k = key()
    const wrong = await w.api().post("/public/v1/posts", body(w.channelId, "Hi", "2031-01-01T10:00:00"), { "idempotency-key": k })
    expect(wrong.status).toBe(400)
    const ok = await w.api().post("/public/v1/posts", body(w.channelId, "Hi"), { "idempotency-key": k })
    expect(ok.status).toBe(200)
  })
})

describe("POST /posts rule 4: without the header", () => {
  it("two identical requests make two posts", async () => {
    const w = await newWorkspace()
    const b = body(w.channelId, "No key")
    const first = await w.api().post("/public/v1/posts", b)
    const second = await w.api().post("/public/v1/posts", b)
    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(second.headers.get("idempotent-replayed")).toBeNull()
    expect(created(second).group).not.toBe(created(first).group)
    expect(await groupCount(w.workspaceId)).toBe(2)
  })
})

describe("Limits rule 4: remembered 24 hours", () => {
  it("just under 24 hours old: still a replay; over 24 hours: the key is free again", async () => {
    const w = await newWorkspace()
    const k = key()
    const b = body(w.channelId, "Day one")
    const first = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(first.status).toBe(200)
    const age = (interval: string) =>
      withDb(world, (c) =>
        c.query(`UPDATE idempotency_keys SET created_at = now() - interval '${interval}' WHERE workspace_id = $1 AND key = $2`, [w.workspaceId, k])
      )
    await age("23 hours 58 minutes")
    const replay = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.json).toEqual(first.json)
    await age("24 hours 1 minute")
    const fresh = await w.api().post("/public/v1/posts", body(w.channelId, "Day two"), { "idempotency-key": k })
    expect(fresh.status).toBe(200)
    expect(fresh.headers.get("idempotent-replayed")).toBeNull()
    expect(created(fresh).group).not.toBe(created(first).group)
    expect(await groupCount(w.workspaceId)).toBe(2)
  })
})

describe("POST /posts rule 4: a replay survives a restart of every service", () => {
  it("after stopping and starting every service on the same world the key still returns the first answer", async () => {
    const w = await newWorkspace()
    const k = key()
    const b = body(w.channelId, "Before the restart")
    const first = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(first.status).toBe(200)
    await sys.stop()
    sys = await startServices(world)
    const replay = await w.api().post("/public/v1/posts", b, { "idempotency-key": k })
    expect(replay.status).toBe(200)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.text).toBe(first.text)
    const other = await w.api().post("/public/v1/posts", body(w.channelId, "Another body"), { "idempotency-key": k })
    expect(other.status).toBe(409)
    expect(errorOf(other).code).toBe("idempotency_key_reused")
    expect(await groupCount(w.workspaceId)).toBe(1)
  }, 60_000)
})
