import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Outbox from "../../services/platform/outbox.js"
import { RepeatsRepo } from "../../services/posts/repeatsRepo.js"
import { AttemptsRepo, type ItemForAttempt } from "../../services/publisher/attemptsRepo.js"
import { type OutcomeToRecord, outcomeStatements } from "../../services/publisher/recordOutcome.js"
import { claimDueItems } from "../../services/scheduler/dueItems.js"
import { DueItemsRepo } from "../../services/scheduler/dueItemsRepo.js"
import { created } from "../support/answers.js"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * Outcomes recorded many to a transaction, in a few statements for all of them
 * (services/publisher/recordOutcome.ts): each outcome decides as it would alone, in the
 * order given. Two channels of one whole post concluded in the same batch see each other's
 * move; an item concluded twice in a batch keeps the first outcome. No publisher runs: the
 * attempts are opened and concluded by hand.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("outcomebatch")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const run = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  sys.runtime.runPromise(Effect.provide(effect, [AttemptsRepo.Live, DueItemsRepo.Live, RepeatsRepo.Live]) as Effect.Effect<A, E, never>)
const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

/** A post due now on `channels` channels of a new workspace, claimed, each item with an open attempt, as jobs hold them. */
const openedPost = async (channels: number) => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const ids = await Promise.all(
    Array.from({ length: channels }, (_, n) =>
      sys.admin.createChannel({ workspaceId, network: "test", name: `Batch ${n}`, customerId: null, postingTimes: [] })
    )
  )
  const res = await client(sys.url, apiKey).post("/public/v1/posts", {
    type: "now",
    posts: ids.map(({ channelId }) => ({ integration: { id: channelId }, value: [{ content: `Batched ${crypto.randomUUID()}` }] }))
  })
  expect(res.status).toBe(200)
  const groupId = created(res).group
  await run(claimDueItems())
  const rows = await q<{ id: string }>("SELECT i.id FROM post_items i JOIN posts p ON p.id = i.post_id WHERE p.group_id = $1 ORDER BY p.ordinal", [
    groupId
  ])
  const items = await Promise.all(
    rows.map(async ({ id }) => {
      const item = Option.getOrThrow(await run(Effect.flatMap(AttemptsRepo, (s) => s.loadItem(id))))
      const owner = crypto.randomUUID()
      const attemptId = Option.getOrThrow(
        await run(
          Effect.flatMap(AttemptsRepo, (s) =>
            s.openAttempt({ itemId: id, workspaceId, attempt: 1, searchFirst: item.searchFirst, owner, leaseMs: 30_000 })
          )
        )
      )
      return { item, attemptId }
    })
  )
  return { workspaceId, groupId, items }
}

const trace = { operation: "publish", calls: [] }
const published = (item: ItemForAttempt, attemptId: string): OutcomeToRecord => ({
  item,
  attemptId,
  conclusion: { _tag: "Published", releaseId: `r-${item.id}`, releaseUrl: `https://example.test/${item.id}` },
  trace
})
const rejected = (item: ItemForAttempt, attemptId: string): OutcomeToRecord => ({
  item,
  attemptId,
  conclusion: { _tag: "Rejected", message: "The network refused the post.", fix: "Shorten it." },
  trace
})
const record = (batch: ReadonlyArray<OutcomeToRecord>) => run(Outbox.transaction(outcomeStatements(batch)))

const groupStatus = async (groupId: string) => (await q<{ status: string }>("SELECT status FROM post_groups WHERE id = $1", [groupId]))[0]?.status
const eventsOf = (workspaceId: string) =>
  q<{ event: string; sequence: string }>("SELECT event, sequence FROM outbox WHERE workspace_id = $1 AND event LIKE 'post.%' ORDER BY sequence", [
    workspaceId
  ])

describe("outcomes recorded many to a transaction", () => {
  it("two channels of one post published in one batch: the whole post ends published, one event and one activity entry each", async () => {
    const post = await openedPost(2)
    const [a, b] = post.items
    const stamped = await record([published(a!.item, a!.attemptId), published(b!.item, b!.attemptId)])
    expect([...stamped].sort()).toEqual([a!.item.channelId, b!.item.channelId].sort())
    expect(await groupStatus(post.groupId)).toBe("published")
    const posts = await q<{ status: string }>("SELECT status FROM posts WHERE group_id = $1", [post.groupId])
    expect(posts.map((p) => p.status)).toEqual(["published", "published"])
    const events = await eventsOf(post.workspaceId)
    expect(events.map((e) => e.event)).toEqual(["post.published", "post.published"])
    const activity = await q<{ action: string }>("SELECT action FROM post_activity WHERE group_id = $1 AND actor = 'System' ORDER BY id", [
      post.groupId
    ])
    expect(activity.map((r) => r.action)).toEqual(["published", "published"])
  })

  it("one published and one rejected in one batch: partial, in the order given, with a failure notification", async () => {
    const post = await openedPost(2)
    const [a, b] = post.items
    await record([published(a!.item, a!.attemptId), rejected(b!.item, b!.attemptId)])
    expect(await groupStatus(post.groupId)).toBe("partial")
    expect((await eventsOf(post.workspaceId)).map((e) => e.event)).toEqual(["post.published", "post.failed"])
    const activity = await q<{ action: string }>("SELECT action FROM post_activity WHERE group_id = $1 AND actor = 'System' ORDER BY id", [
      post.groupId
    ])
    expect(activity.map((r) => r.action)).toEqual(["published", "failed"])
    const notes = await q<{ type: string }>("SELECT type FROM notifications WHERE workspace_id = $1", [post.workspaceId])
    expect(notes.length).toBeGreaterThan(0)
  })

  it("an item concluded twice in one batch keeps its first outcome; posts of several workspaces share the batch", async () => {
    const one = await openedPost(1)
    const other = await openedPost(1)
    const [a] = one.items
    const [b] = other.items
    await record([rejected(a!.item, a!.attemptId), published(b!.item, b!.attemptId), published(a!.item, a!.attemptId)])
    // the second outcome of the same attempt finds it concluded: nothing changes
    expect(await groupStatus(one.groupId)).toBe("error")
    expect(await groupStatus(other.groupId)).toBe("published")
    expect((await eventsOf(one.workspaceId)).map((e) => e.event)).toEqual(["post.failed"])
    expect((await eventsOf(other.workspaceId)).map((e) => e.event)).toEqual(["post.published"])
    const attempts = await q<{ outcome: string }>("SELECT outcome FROM publish_attempts WHERE item_id = $1", [a!.item.id])
    expect(attempts.map((r) => r.outcome)).toEqual(["rejected"])
  })

  it("an outcome recorded again (a batch run again one by one) changes nothing", async () => {
    const post = await openedPost(1)
    const [a] = post.items
    await record([published(a!.item, a!.attemptId)])
    const again = await record([published(a!.item, a!.attemptId)])
    expect(again).toEqual([])
    expect((await eventsOf(post.workspaceId)).map((e) => e.event)).toEqual(["post.published"])
  })
})
