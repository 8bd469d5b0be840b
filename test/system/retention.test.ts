import { Effect } from "effect"
import type pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RetentionDefaults } from "../../domain/retention.js"
import { registry } from "../../services/platform/metrics.js"
import { makeRetentionJobs } from "../../services/scheduler/retention.js"
import type { RetentionSettings } from "../../services/scheduler/retentionSettings.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Retention (docs/operations.md, "Retention"): for every table that grows with traffic, rows
 * just inside its rule and just outside it (an hour either side of the window, a minute for
 * the one-hour windows), the jobs run once, and only the rows outside are gone. Rows the rule
 * keeps whatever their age (an unpublished event, an event a pending delivery reads, an open
 * publish attempt, an unconfirmed item's attempts, a pending delivery) stay. Batches of 2
 * rows, so every job takes several statements.
 */

let world: TestWorld
let sys: RunningServices
let workspaceId: string
let channelId: string

const settings: RetentionSettings = { intervalMs: 60_000, batchSize: 2, maxBatches: 1000, pauseMs: 0, windows: { ...RetentionDefaults } }

beforeAll(async () => {
  world = await createWorld("retention")
  sys = await startServices(world, ["gateway"])
  const ws = await sys.admin.createWorkspace("Retention", "team")
  workspaceId = ws.workspaceId
  channelId = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Test", customerId: null, postingTimes: [] })).channelId
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const runOnce = () => sys.runtime.runPromise(Effect.flatMap(makeRetentionJobs, (run) => run(settings)))

/** A moment `seconds` of a window ago, moved `by` seconds: negative is inside the window, positive outside. */
const ago = (windowSeconds: number, bySeconds: number) => new Date(Date.now() - (windowSeconds + bySeconds) * 1000)
const HOUR = 3600
const inside = (w: number) => ago(w, w <= HOUR ? -60 : -HOUR)
const outside = (w: number) => ago(w, w <= HOUR ? 60 : HOUR)
const W = RetentionDefaults

const ids = async (c: pg.Client, query: string, params: ReadonlyArray<unknown> = []) =>
  (await c.query<{ id: string }>(query, [...params])).rows.map((r) => r.id).sort()
const sorted = (...xs: ReadonlyArray<string>) => [...xs].sort()

/** A whole post with one channel post and `items` items in the given states; answers the items' ids. */
const postWithItems = async (c: pg.Client, statuses: ReadonlyArray<string>) => {
  const groupId = crypto.randomUUID()
  const postId = crypto.randomUUID()
  await c.query(
    `INSERT INTO post_groups (id, workspace_id, status, publish_at, creation_method, share_token) VALUES ($1, $2, 'published', now(), 'api', $3)`,
    [groupId, workspaceId, crypto.randomUUID()]
  )
  await c.query(
    `INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, publish_date) VALUES ($1, $2, $3, $4, 0, 'published', now())`,
    [postId, groupId, workspaceId, channelId]
  )
  const itemIds: Array<string> = []
  for (const [position, status] of statuses.entries()) {
    const id = crypto.randomUUID()
    await c.query(`INSERT INTO post_items (id, post_id, workspace_id, position, content, status) VALUES ($1, $2, $3, $4, 'hello', $5)`, [
      id,
      postId,
      workspaceId,
      position,
      status
    ])
    itemIds.push(id)
  }
  return itemIds
}

/** An attempt of the item, finished at `finishedAt` (null: still open). */
const attempt = (c: pg.Client, itemId: string, n: number, finishedAt: Date | null) =>
  c.query(
    `INSERT INTO publish_attempts (id, item_id, workspace_id, attempt, started_at, finished_at, outcome)
     VALUES ($1, $2, $3, $4, coalesce($5, now()), $5, CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE 'published' END)`,
    [crypto.randomUUID(), itemId, workspaceId, n, finishedAt]
  )

describe("the retention jobs remove only what each rule lets go", () => {
  it("outbox: published events past the event log's 30 days; never an unpublished one, nor one a pending delivery reads", async () => {
    await withDb(world, async (c) => {
      const event = async (createdAt: Date, published: boolean) => {
        const id = crypto.randomUUID()
        await c.query(
          `INSERT INTO outbox (id, workspace_id, event, data, created_at, published_at) VALUES ($1, $2, 'post.published', '{}', $3, $4)`,
          [id, workspaceId, createdAt, published ? createdAt : null]
        )
        return id
      }
      const kept = [await event(inside(W.outboxSeconds), true), await event(outside(W.outboxSeconds), false)]
      const gone = [
        await event(outside(W.outboxSeconds), true),
        await event(outside(W.outboxSeconds), true),
        await event(outside(W.outboxSeconds), true)
      ]
      const read = await event(outside(W.outboxSeconds), true)
      const webhookId = crypto.randomUUID()
      await c.query(`INSERT INTO webhooks (id, workspace_id, name, url, secret) VALUES ($1, $2, 'w', 'https://example.com/h', '\\x00')`, [
        webhookId,
        workspaceId
      ])
      await c.query(
        `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event_id, event, data, event_created_at) VALUES ($1, $2, $3, $4, 'post.published', '{}', now())`,
        [crypto.randomUUID(), workspaceId, webhookId, read]
      )
      const removed = await runOnce()
      expect(removed["outbox"]).toBe(gone.length)
      const all = [...kept, ...gone, read]
      expect(await ids(c, "SELECT id::text FROM outbox WHERE id = ANY($1::uuid[])", [all])).toEqual(sorted(...kept, read))
    })
  })

  it("command records and payloads by reference: after an hour", async () => {
    await withDb(world, async (c) => {
      const command = async (at: Date) => {
        const id = crypto.randomUUID()
        await c.query(`INSERT INTO command_log (workspace_id, command_id, created_at) VALUES ($1, $2, $3)`, [workspaceId, id, at])
        return id
      }
      const payload = async (at: Date) => {
        const id = crypto.randomUUID()
        await c.query(`INSERT INTO actor_payloads (id, body, created_at) VALUES ($1, '{}', $2)`, [id, at])
        return id
      }
      const keptCommand = await command(inside(W.commandLogSeconds))
      await command(outside(W.commandLogSeconds))
      await command(outside(W.commandLogSeconds))
      const keptPayload = await payload(inside(W.actorPayloadSeconds))
      await payload(outside(W.actorPayloadSeconds))
      const removed = await runOnce()
      expect([removed["command_log"], removed["actor_payloads"]]).toEqual([2, 1])
      expect(await ids(c, "SELECT command_id::text AS id FROM command_log")).toEqual([keptCommand])
      expect(await ids(c, "SELECT id::text FROM actor_payloads")).toEqual([keptPayload])
    })
  })

  it("Idempotency-Keys: after their 24 hours", async () => {
    await withDb(world, async (c) => {
      const key = (name: string, at: Date) =>
        c.query(
          `INSERT INTO idempotency_keys (workspace_id, key, request_hash, status_code, response, created_at) VALUES ($1, $2, 'h', 200, '{}', $3)`,
          [workspaceId, name, at]
        )
      await key("inside", inside(W.idempotencySeconds))
      await key("outside", outside(W.idempotencySeconds))
      const removed = await runOnce()
      expect(removed["idempotency_keys"]).toBe(1)
      expect(await ids(c, "SELECT key AS id FROM idempotency_keys")).toEqual(["inside"])
    })
  })

  it("publish attempts: all of a settled item's, 90 days after its last; an open attempt, a recent one or an unconfirmed item keeps them", async () => {
    await withDb(world, async (c) => {
      const [settledOld, settledRecent, unconfirmed, failedOld, openOld] = await postWithItems(c, [
        "published",
        "published",
        "unconfirmed",
        "error",
        "publishing"
      ])
      const old = outside(W.publishAttemptSeconds)
      await attempt(c, settledOld!, 1, old)
      await attempt(c, settledOld!, 2, old)
      // one old and one just inside: the item's attempts stay together
      await attempt(c, settledRecent!, 1, old)
      await attempt(c, settledRecent!, 2, inside(W.publishAttemptSeconds))
      await attempt(c, unconfirmed!, 1, old)
      await attempt(c, failedOld!, 1, old)
      await attempt(c, openOld!, 1, old)
      await attempt(c, openOld!, 2, null)
      const removed = await runOnce()
      expect(removed["publish_attempts"]).toBe(3)
      const left = await ids(c, "SELECT DISTINCT item_id::text AS id FROM publish_attempts")
      expect(left).toEqual(sorted(settledRecent!, unconfirmed!, openOld!))
      expect((await c.query("SELECT 1 FROM publish_attempts WHERE item_id = $1", [settledRecent])).rowCount).toBe(2)
    })
  })

  it("publish jobs: a day after JetStream took them, once their item no longer publishes under their claim; never one unacknowledged", async () => {
    await withDb(world, async (c) => {
      const [done, publishing] = await postWithItems(c, ["published", "publishing"])
      await c.query("UPDATE post_items SET attempts = 2 WHERE id = ANY($1::uuid[])", [[done, publishing]])
      const job = (itemId: string, claim: number, enqueuedAt: Date | null) =>
        c.query(
          `INSERT INTO publish_jobs (item_id, claim, workspace_id, channel_id, created_at, enqueued_at) VALUES ($1, $2, $3, $4, coalesce($5, now()), $5)`,
          [itemId, claim, workspaceId, channelId, enqueuedAt]
        )
      const old = outside(W.publishJobSeconds)
      await job(done!, 1, old)
      await job(done!, 2, old)
      await job(publishing!, 1, old)
      // the claim the item still publishes under, one just inside the day, one never acknowledged
      await job(publishing!, 2, old)
      await job(publishing!, 3, inside(W.publishJobSeconds))
      await job(publishing!, 4, null)
      const removed = await runOnce()
      expect(removed["publish_jobs"]).toBe(3)
      const left = (
        await c.query<{ claim: number }>("SELECT claim FROM publish_jobs WHERE item_id = ANY($1::uuid[]) ORDER BY claim", [[done, publishing]])
      ).rows
      expect(left.map((r) => r.claim)).toEqual([2, 3, 4])
    })
  })

  it("notifications: after 90 days", async () => {
    await withDb(world, async (c) => {
      const notification = async (at: Date) => {
        const id = crypto.randomUUID()
        await c.query(`INSERT INTO notifications (id, workspace_id, type, title, body, link, created_at) VALUES ($1, $2, 'info', 't', 'b', '', $3)`, [
          id,
          workspaceId,
          at
        ])
        return id
      }
      const kept = await notification(inside(W.notificationSeconds))
      const gone: Array<string> = []
      for (let i = 0; i < 5; i++) gone.push(await notification(outside(W.notificationSeconds)))
      const removed = await runOnce()
      expect(removed["notifications"]).toBe(5)
      expect(await ids(c, "SELECT id::text FROM notifications WHERE id = ANY($1::uuid[])", [[kept, ...gone]])).toEqual([kept])
    })
  })

  it("webhook log: attempts and finished deliveries after 30 days; a pending delivery stays", async () => {
    await withDb(world, async (c) => {
      const webhookId = crypto.randomUUID()
      await c.query(`INSERT INTO webhooks (id, workspace_id, name, url, secret) VALUES ($1, $2, 'log', 'https://example.com/l', '\\x00')`, [
        webhookId,
        workspaceId
      ])
      const delivery = async (state: string, finishedAt: Date | null) => {
        const id = crypto.randomUUID()
        await c.query(
          `INSERT INTO webhook_deliveries (id, workspace_id, webhook_id, event, data, state, event_created_at, created_at, finished_at)
           VALUES ($1, $2, $3, 'test', '{}', $4, now(), now(), $5)`,
          [id, workspaceId, webhookId, state, finishedAt]
        )
        return id
      }
      const logged = async (deliveryId: string, n: number, at: Date) => {
        const id = crypto.randomUUID()
        await c.query(
          `INSERT INTO webhook_attempts (id, delivery_id, webhook_id, event, attempt, status, ok, created_at) VALUES ($1, $2, $3, 'test', $4, 500, false, $5)`,
          [id, deliveryId, webhookId, n, at]
        )
        return id
      }
      const pending = await delivery("pending", null)
      const finishedRecently = await delivery("delivered", inside(W.webhookLogSeconds))
      await delivery("failed", outside(W.webhookLogSeconds))
      await logged(pending, 1, outside(W.webhookLogSeconds))
      const keptAttempt = await logged(pending, 2, inside(W.webhookLogSeconds))
      const removed = await runOnce()
      expect([removed["webhook_attempts"], removed["webhook_deliveries"]]).toEqual([1, 1])
      expect(await ids(c, "SELECT id::text FROM webhook_attempts WHERE webhook_id = $1", [webhookId])).toEqual([keptAttempt])
      expect(await ids(c, "SELECT id::text FROM webhook_deliveries WHERE webhook_id = $1", [webhookId])).toEqual(sorted(pending, finishedRecently))
    })
  })

  it("short-link click batches: a week after they were added", async () => {
    await withDb(world, async (c) => {
      const batch = async (at: Date) => {
        const id = crypto.randomUUID()
        await c.query(`INSERT INTO short_link_flushes (id, flushed_at) VALUES ($1, $2)`, [id, at])
        return id
      }
      const kept = await batch(inside(W.clickBatchSeconds))
      await batch(outside(W.clickBatchSeconds))
      await batch(outside(W.clickBatchSeconds))
      await batch(outside(W.clickBatchSeconds))
      const removed = await runOnce()
      expect(removed["short_link_flushes"]).toBe(3)
      expect(await ids(c, "SELECT id::text FROM short_link_flushes")).toEqual([kept])
    })
  })

  it("a run with nothing past its rule removes nothing", async () => {
    const removed = await runOnce()
    expect(Object.values(removed).every((n) => n === 0)).toBe(true)
    expect(Object.keys(removed).sort()).toEqual(
      sorted(
        "outbox",
        "command_log",
        "actor_payloads",
        "idempotency_keys",
        "publish_attempts",
        "publish_jobs",
        "notifications",
        "webhook_attempts",
        "webhook_deliveries",
        "short_link_flushes"
      )
    )
  })
})

describe("the jobs never make a writer wait, nor wait for one", () => {
  it("a row another transaction holds is skipped, not waited for, and goes at the next run", async () => {
    await withDb(world, async (c) => {
      await withDb(world, async (writer) => {
        const notification = async () => {
          const id = crypto.randomUUID()
          await c.query(
            `INSERT INTO notifications (id, workspace_id, type, title, body, link, created_at) VALUES ($1, $2, 'info', 't', 'b', '', $3)`,
            [id, workspaceId, outside(W.notificationSeconds)]
          )
          return id
        }
        const held = await notification()
        const free = [await notification(), await notification(), await notification()]
        // a writer in the middle of a transaction that holds one of the rows (and writes meanwhile)
        await writer.query("BEGIN")
        await writer.query("SELECT 1 FROM notifications WHERE id = $1 FOR UPDATE", [held])
        await writer.query(`INSERT INTO command_log (workspace_id, command_id) VALUES ($1, $2)`, [workspaceId, crypto.randomUUID()])
        // the run finishes while the writer still holds its row: it skipped it
        const removed = await runOnce()
        expect(removed["notifications"]).toBe(free.length)
        const left = async () => ids(c, "SELECT id::text FROM notifications WHERE id = ANY($1::uuid[])", [[held, ...free]])
        expect(await left()).toEqual([held])
        await writer.query("COMMIT")
        expect((await runOnce())["notifications"]).toBe(1)
        expect(await left()).toEqual([])
      })
    })
  })
})

describe("the scheduler runs the jobs on RETENTION_INTERVAL_MS", () => {
  it("removes a row past its rule without being asked, and counts it in retention_rows_removed_total", async () => {
    const before = await removedCounted("short_link_flushes")
    const id = crypto.randomUUID()
    await withDb(world, (c) => c.query(`INSERT INTO short_link_flushes (id, flushed_at) VALUES ($1, $2)`, [id, outside(W.clickBatchSeconds)]))
    const scheduler = await startServices(world, ["gateway", "scheduler"], { RETENTION_INTERVAL_MS: "200" })
    try {
      await waitFor("the old click batch removed by the scheduler", () =>
        withDb(world, async (c) => ((await c.query("SELECT 1 FROM short_link_flushes WHERE id = $1", [id])).rowCount === 0 ? true : undefined))
      )
      expect(await removedCounted("short_link_flushes")).toBeGreaterThan(before)
    } finally {
      await scheduler.stop()
    }
  })
})

/** retention_rows_removed_total{table} in this process's registry (the jobs above ran here too). */
const removedCounted = async (table: string) => {
  const metric = await registry.getSingleMetric("retention_rows_removed_total")?.get()
  return metric?.values.find((v) => v.labels["table"] === table)?.value ?? 0
}
