import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { RateLimit } from "../../domain/rateWindow.js"
import { makeOwnedWindows, WINDOW_END_MARGIN_MS } from "../../services/actors/ownedWindows.js"
import type { WindowCount } from "../../services/actors/rateWindows.js"

/**
 * The owning actor host counts a workspace's POST /posts window in memory after one answer
 * from Redis, and still sends Redis every count (services/actors/ownedWindows.ts). Redis
 * is stood in for by its script's rule (INCRBY; the first count of a window sets its
 * expiry), on a clock the test moves; the processes' test is test/faults/rateWindowHandover.test.ts.
 */
const rate: RateLimit = { limit: 5, periodMs: 60_000 }

const world = () => {
  let clock = 0
  const keys = new Map<string, { count: number; expiresAt: number }>()
  /** Counts Redis was asked for, and the ones it has answered. */
  const asked: Array<string> = []
  let down = false
  const redisCount = (workspaceId: string, name: string, r: RateLimit): Promise<WindowCount> => {
    asked.push(workspaceId)
    if (down) return Promise.reject(new Error("Redis is down"))
    const key = `${name}:${workspaceId}`
    const k = keys.get(key)
    const live = k !== undefined && k.expiresAt > clock ? k : { count: 0, expiresAt: clock + r.periodMs }
    live.count++
    keys.set(key, live)
    return Promise.resolve({ count: live.count, msLeft: live.expiresAt - clock })
  }
  const failures: Array<unknown> = []
  const owned = () => makeOwnedWindows({ count: redisCount, unavailable: (e) => failures.push(e), now: () => clock })
  return {
    owned,
    asked,
    failures,
    redisCountOf: (workspaceId: string) => keys.get(`posts:${workspaceId}`)?.count ?? 0,
    advance: (ms: number) => void (clock += ms),
    setDown: (d: boolean) => void (down = d)
  }
}

const takeAll = (windows: ReturnType<ReturnType<typeof world>["owned"]>, n: number, workspaceId = "w1") =>
  Effect.runPromise(Effect.all(Array.from({ length: n }, () => windows.take(workspaceId, "posts", rate)), { concurrency: "unbounded" }))

/** Lets the counts sent without waiting be answered. */
const settle = () => new Promise((r) => setTimeout(r, 0))

describe("the owner's rate window: counted in memory, every count sent to Redis", () => {
  it("the limit holds exactly when the workspace's requests arrive together", async () => {
    const w = world()
    const decisions = await takeAll(w.owned(), 8)
    expect(decisions.filter((d) => d.allowed)).toHaveLength(5)
    expect(decisions.slice(5).every((d) => !d.allowed)).toBe(true)
    await settle()
    expect(w.redisCountOf("w1")).toBe(8)
  })

  it("only the first count of a window waits for Redis; the others are decided in memory and still sent", async () => {
    const w = world()
    const windows = w.owned()
    await takeAll(windows, 1)
    w.asked.length = 0
    // a request decided from memory is answered before Redis has counted it
    const decided = await Effect.runPromise(windows.take("w1", "posts", rate))
    expect(decided).toEqual({ allowed: true })
    expect(w.asked).toEqual(["w1"])
    await windows.sent()
    expect(w.redisCountOf("w1")).toBe(2)
  })

  it("a new owner goes on from the exact count the previous owner left in Redis", async () => {
    const w = world()
    const first = w.owned()
    await takeAll(first, 3)
    await first.sent()
    first.forget(() => true)
    expect(first.size()).toBe(0)
    const second = w.owned()
    const decisions = await takeAll(second, 3)
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false])
  })

  it("a refusal's Retry-After counts down to the window's end", async () => {
    const w = world()
    const windows = w.owned()
    await takeAll(windows, 5)
    w.advance(20_000)
    const [refused] = await takeAll(windows, 1)
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 40 })
  })

  it("near the window's end Redis is asked again, and a new window starts from its answer", async () => {
    const w = world()
    const windows = w.owned()
    await takeAll(windows, 5)
    w.advance(rate.periodMs - WINDOW_END_MARGIN_MS + 1)
    w.asked.length = 0
    expect((await takeAll(windows, 1))[0]!.allowed).toBe(false)
    expect(w.asked).toEqual(["w1"]) // asked, not decided from memory
    w.advance(WINDOW_END_MARGIN_MS)
    expect((await takeAll(windows, 5)).every((d) => d.allowed)).toBe(true)
    expect((await takeAll(windows, 1))[0]!.allowed).toBe(false)
  })

  it("a higher count from Redis (someone else counted too) wins over memory", async () => {
    const w = world()
    const windows = w.owned()
    const other = w.owned()
    await takeAll(windows, 1)
    await takeAll(other, 3) // a second counter of the same window: 4 in Redis
    await takeAll(windows, 1) // memory says 2; Redis answers 5
    await windows.sent()
    expect((await takeAll(windows, 1))[0]).toMatchObject({ allowed: false })
  })

  it("Redis down: the request is let through and nothing is remembered", async () => {
    const w = world()
    const windows = w.owned()
    w.setDown(true)
    expect(await takeAll(windows, 2)).toEqual([{ allowed: true }, { allowed: true }])
    expect(w.failures).toHaveLength(2)
    expect(windows.size()).toBe(0)
    w.setDown(false)
    expect((await takeAll(windows, 1))[0]).toEqual({ allowed: true })
    expect(windows.size()).toBe(1)
  })

  it("a forgotten shard's window answered meanwhile is not remembered (the next owner counts it)", async () => {
    const w = world()
    const windows = w.owned()
    const pending = Effect.runPromise(windows.take("w1", "posts", rate))
    expect(windows.size()).toBe(1) // asking Redis
    windows.forget((ws) => ws === "w1")
    await pending
    expect(windows.size()).toBe(0)
  })

  it("windows of other workspaces are their own", async () => {
    const w = world()
    const windows = w.owned()
    await takeAll(windows, 5, "w1")
    expect((await takeAll(windows, 1, "w2"))[0]).toEqual({ allowed: true })
    windows.forget((ws) => ws === "w2")
    expect(windows.size()).toBe(1)
  })
})
