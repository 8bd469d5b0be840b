import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AttemptsRepo } from "../../services/publisher/attemptsRepo.js"
import { claimDueItems } from "../../services/scheduler/dueItems.js"
import { DueItemsRepo } from "../../services/scheduler/dueItemsRepo.js"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { created } from "../support/answers.js"

/**
 * The never-send-twice guard of the publisher's start (docs/architecture.md, "Publisher"): a job reads its
 * item without a lock, then opens its attempt with one guarded statement. Jobs that read
 * the same state and race must end with one attempt, and an attempt whose job still holds
 * its lease is never taken over. No publisher runs here: the store is driven by hand.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("attemptguards")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  sys.runtime.runPromise(Effect.provide(effect, [AttemptsRepo.Live, DueItemsRepo.Live]) as Effect.Effect<A, E, never>)
const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

/** A post due now, claimed by the scheduler: its item is publishing, as a job finds it. */
const claimedItem = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Guards", customerId: null, postingTimes: [] })
  const res = await client(sys.url, apiKey).post("/public/v1/posts", {
    type: "now",
    posts: [{ integration: { id: channelId }, value: [{ content: `Guarded ${crypto.randomUUID()}` }] }]
  })
  expect(res.status).toBe(200)
  const [item] = await q<{ id: string }>("SELECT id FROM post_items WHERE post_id = $1", [created(res).postId])
  await run(claimDueItems())
  const read = await run(Effect.flatMap(AttemptsRepo, (s) => s.loadItem(item!.id)))
  expect(Option.isSome(read)).toBe(true)
  return Option.getOrThrow(read)
}

const open = (
  item: { readonly id: string; readonly workspaceId: string; readonly attempts: number; readonly searchFirst: boolean },
  owner = crypto.randomUUID()
) =>
  run(
    Effect.flatMap(AttemptsRepo, (s) =>
      s.openAttempt({
        itemId: item.id,
        workspaceId: item.workspaceId,
        attempt: item.attempts + 1,
        searchFirst: item.searchFirst,
        owner,
        leaseMs: 30_000
      })
    )
  )
const attemptsOf = (itemId: string) => q<{ id: string }>("SELECT id FROM publish_attempts WHERE item_id = $1", [itemId])

describe("opening an attempt after an unlocked read", () => {
  it("jobs that read the same item and open at once: exactly one attempt, one job may send", async () => {
    const item = await claimedItem()
    expect(item.status).toBe("publishing")
    expect(item.openAttemptId).toBeNull()
    const opened = await Promise.all(Array.from({ length: 6 }, () => open(item)))
    expect(opened.filter(Option.isSome)).toHaveLength(1)
    expect(await attemptsOf(item.id)).toHaveLength(1)
  })

  it("a job whose read is older than another job's attempt opens nothing", async () => {
    const item = await claimedItem()
    expect(Option.isSome(await open(item))).toBe(true)
    // the stale read still says no attempt: the guard decides, not the read
    expect(Option.isNone(await open(item))).toBe(true)
    expect(Option.isNone(await open({ ...item, attempts: item.attempts + 1 }))).toBe(true)
    expect(await attemptsOf(item.id)).toHaveLength(1)
  })

  it("an item that left publishing, or whose search-first flag changed since the read, gets no attempt", async () => {
    const item = await claimedItem()
    expect(Option.isNone(await open({ ...item, searchFirst: !item.searchFirst }))).toBe(true)
    await q("UPDATE post_items SET status = 'error' WHERE id = $1", [item.id])
    expect(Option.isNone(await open(item))).toBe(true)
    expect(await attemptsOf(item.id)).toHaveLength(0)
  })
})

describe("taking over an open attempt", () => {
  it("never while its job's lease runs; once it ran out, one job of many takes it", async () => {
    const item = await claimedItem()
    const attemptId = Option.getOrThrow(await open(item))
    const takeOver = () => run(Effect.flatMap(AttemptsRepo, (s) => s.takeOver(attemptId, crypto.randomUUID(), 30_000)))
    expect(await takeOver()).toBe(false)
    await q("UPDATE publish_attempts SET lease_until = now() - interval '1 second' WHERE id = $1", [attemptId])
    const taken = await Promise.all(Array.from({ length: 4 }, takeOver))
    expect(taken.filter((t) => t)).toHaveLength(1)
    // a concluded attempt is never taken over, whatever its lease
    await q("UPDATE publish_attempts SET outcome = 'published', lease_until = now() - interval '1 second' WHERE id = $1", [attemptId])
    expect(await takeOver()).toBe(false)
  })
})
