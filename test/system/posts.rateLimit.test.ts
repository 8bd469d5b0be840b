import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, errorOf, type Answer } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * POST /posts rule 3 and Limits: 90 requests per hour per workspace, replays with an
 * Idempotency-Key counted; over it 429 `Too many requests. Try again in <n> minutes.`
 * with Retry-After in seconds; counted in memory (a restart starts over).
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("postsrate")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Alpha", customerId: null, postingTimes: [] })
  return { workspaceId, channelId, api: () => client(sys.url, apiKey) }
}

const draft = (channelId: string, content: string) => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content }] }] })

const groupCount = (workspaceId: string) =>
  withDb(world, async (c) => (await c.query("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1", [workspaceId])).rows[0].n as number)

/** Runs `n` requests, `width` at a time. */
const inBatches = async <A>(n: number, width: number, f: (i: number) => Promise<A>) => {
  const out: Array<A> = []
  for (let i = 0; i < n; i += width) {
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, n - i) }, (_, j) => f(i + j)))))
  }
  return out
}

const expectTooMany = (res: Answer) => {
  expect(res.status).toBe(429)
  const body = errorOf(res)
  const match = /^Too many requests\. Try again in (\d+) minutes\.$/.exec(body.error)
  expect(match).not.toBeNull()
  expect(body.msg).toBe(body.error)
  const retryAfter = res.headers.get("retry-after")
  expect(retryAfter).toMatch(/^\d+$/)
  const seconds = Number(retryAfter)
  expect(seconds).toBeGreaterThan(0)
  // the window started with the first request of this test, well under a minute ago
  expect(seconds).toBeLessThanOrEqual(3600)
  expect(seconds).toBeGreaterThan(3600 - 120)
  const minutes = Number(match![1])
  expect(minutes).toBe(Math.ceil(seconds / 60))
  return seconds
}

describe("POST /posts rule 3: 90 requests per hour per workspace", () => {
  let limited: Awaited<ReturnType<typeof newWorkspace>>
  const key = `rate-${crypto.randomUUID()}`

  it("90 requests are answered, replays included", async () => {
    limited = await newWorkspace()
    const first = await limited.api().post("/public/v1/posts", draft(limited.channelId, "keyed"), { "idempotency-key": key })
    expect(first.status).toBe(200)
    // 44 replays of the keyed request (one at a time: concurrent ones may answer 409
    // still running) and 45 new drafts: 90 in all
    const replays = await inBatches(44, 1, () =>
      limited.api().post("/public/v1/posts", draft(limited.channelId, "keyed"), { "idempotency-key": key })
    )
    for (const r of replays) {
      expect(r.status).toBe(200)
      expect(r.headers.get("idempotent-replayed")).toBe("true")
    }
    const fresh = await inBatches(45, 9, (i) => limited.api().post("/public/v1/posts", draft(limited.channelId, `draft ${i}`)))
    expect(fresh.map((r) => r.status)).toEqual(Array(45).fill(200))
    expect(await groupCount(limited.workspaceId)).toBe(46)
  }, 45_000)

  it("the 91st gives 429 with the minutes in the message and Retry-After in seconds", async () => {
    const res = await limited.api().post("/public/v1/posts", draft(limited.channelId, "one too many"))
    expectTooMany(res)
    expect(await groupCount(limited.workspaceId)).toBe(46)
  })

  it("over the limit a replay is refused too, and so is every further request; nothing is saved", async () => {
    const replay = await limited.api().post("/public/v1/posts", draft(limited.channelId, "keyed"), { "idempotency-key": key })
    expectTooMany(replay)
    const more = await Promise.all(Array.from({ length: 5 }, (_, i) => limited.api().post("/public/v1/posts", draft(limited.channelId, `more ${i}`))))
    const seconds = more.map(expectTooMany)
    // Retry-After counts down to the same window end
    expect(Math.max(...seconds) - Math.min(...seconds)).toBeLessThanOrEqual(2)
    expect(await groupCount(limited.workspaceId)).toBe(46)
  })

  it("other endpoints of the limited workspace have no fixed limit", async () => {
    const res = await limited.api().get("/public/v1/posts")
    expect(res.status).toBe(200)
  })

  it("another workspace is not affected", async () => {
    const other = await newWorkspace()
    const res = await other.api().post("/public/v1/posts", draft(other.channelId, "mine"))
    expect(res.status).toBe(200)
    expect(await groupCount(other.workspaceId)).toBe(1)
  })

  // Limits rule 2: counted in memory. The memory is Redis's (it keeps nothing on disk), shared by
  // every actor host, so a window survives a workspace moving to another host or a restart of the
  // service's processes; it starts again when Redis restarts (test/faults/rateWindowHandover.test.ts).
  it("Limits rule 2: the window is the workspace's, not a process's: after a restart of the services it still holds", async () => {
    await sys.stop()
    sys = await startServices(world, ["gateway", "actors"])
    const res = await limited.api().post("/public/v1/posts", draft(limited.channelId, "after restart"))
    expect(res.status).toBe(429)
  }, 45_000)
})
