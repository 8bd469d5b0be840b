import type { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { create } from "../../domain/posts/states.js"
import { FenceStore } from "../../services/sharding/fencing.js"
import { OutboxTransaction } from "../../services/platform/outbox.js"
import type { Fence } from "../../services/platform/transactions.js"
import { CreatePostRepo } from "../../services/posts/createPostRepo.js"
import { channelVersionSql } from "../../services/repos/channelsRepo.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * A new post is written in ONE statement (services/posts/createPostRepo.ts): the
 * fence, the Idempotency-Key record, the command record and every row of the post commit
 * together or not at all. Each refusal below must leave no row of any kind behind. Posts
 * written meanwhile share a statement and its commit (group commit), and each still
 * commits or not on its own.
 */

let world: TestWorld
let sys: RunningServices
let workspaceId: string
let channelId: string

beforeAll(async () => {
  world = await createWorld("create-statement")
  sys = await startServices(world, [])
  const ws = await sys.admin.createWorkspace()
  workspaceId = ws.workspaceId
  channelId = (await sys.admin.createChannel({ workspaceId, network: "test", name: "One statement", customerId: null, postingTimes: [] })).channelId
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

const Stores = Layer.merge(CreatePostRepo.Live, FenceStore.Live)
const run = <A, E>(effect: Effect.Effect<A, E, CreatePostRepo | FenceStore | SqlClient.SqlClient>) =>
  sys.runtime.runPromise(effect.pipe(Effect.provide(Stores)) as Effect.Effect<A, E, SqlClient.SqlClient>)

/** Writes a post named `marker` (type review: its approval.requested event goes to the outbox) with `store`. */
const writeWith = (
  store: CreatePostRepo["Type"],
  marker: string,
  fence: Fence,
  key: string | null,
  channelVersions: ReadonlyArray<string> | null = null,
  channel: string = channelId
) => {
  const now = new Date()
  const step = create({ type: "review", date: new Date(now.getTime() + 3600_000), now, channelIds: [channel], approvalRequired: false, actor: "API" })
  const collector = { rowIds: new Array<string>() }
  return store
    .createInOneStatement({
      fence,
      workspaceId,
      groupId: crypto.randomUUID(),
      shareToken: crypto.randomUUID(),
      fields: { repeatDays: null, shortLink: false, creationMethod: "api", author: "API" },
      step,
      entries: new Map([
        [
          channel,
          {
            settings: {},
            items: [
              { content: marker, media: [], delay: 0 },
              { content: `${marker} (2)`, media: [], delay: 5 }
            ]
          }
        ]
      ]),
      channelNames: new Map([[channel, "One statement"]]),
      channelVersions,
      key: key === null ? null : { key, requestHash: `hash of ${marker}`, now },
      answer: (live) => ({ keyResponse: live, commandAnswer: { statusCode: 200, body: live, replayed: false } })
    })
    .pipe(
      Effect.map((outcome) => ({ outcome, tracked: collector.rowIds })),
      Effect.provideService(OutboxTransaction, collector)
    )
}

const write = (marker: string, fence: Fence, key: string | null, channelVersions: ReadonlyArray<string> | null = null) =>
  run(Effect.flatMap(CreatePostRepo, (store) => writeWith(store, marker, fence, key, channelVersions)))

/** Every row a create writes, counted for one post's content (and its key and command). */
const rowsOf = (marker: string, key: string | null, commandId: string | null) =>
  withDb(world, async (c) => {
    const one = async (text: string, params: ReadonlyArray<unknown>) => (await c.query(text, [...params])).rows[0].n as number
    const groups = `SELECT DISTINCT p.group_id FROM posts p JOIN post_items i ON i.post_id = p.id WHERE i.content = $1`
    return {
      groups: await one(`SELECT count(*)::int AS n FROM post_groups WHERE id IN (${groups})`, [marker]),
      items: await one(`SELECT count(*)::int AS n FROM post_items WHERE content LIKE $1 || '%'`, [marker]),
      activity: await one(`SELECT count(*)::int AS n FROM post_activity WHERE group_id IN (${groups})`, [marker]),
      outbox: await one(
        `SELECT count(*)::int AS n FROM outbox WHERE event = 'approval.requested' AND data->>'groupId' IN (SELECT group_id::text FROM (${groups}) g)`,
        [marker]
      ),
      keys:
        key === null
          ? 0
          : await one(`SELECT count(*)::int AS n FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND request_hash = $3`, [
              workspaceId,
              key,
              `hash of ${marker}`
            ]),
      commands:
        commandId === null
          ? 0
          : await one(`SELECT count(*)::int AS n FROM command_log WHERE workspace_id = $1 AND command_id = $2`, [workspaceId, commandId])
    }
  })

const nothing = { groups: 0, items: 0, activity: 0, outbox: 0, keys: 0, commands: 0 }

describe("POST /posts of a new post: one statement, all or nothing", () => {
  it("under its lease, with a key and a command id: every row, and the outbox row tracked for publishing", async () => {
    const epoch = await run(Effect.flatMap(FenceStore, (f) => f.claim(11, "host")))
    const command = { workspaceId, commandId: crypto.randomUUID() }
    const { outcome, tracked } = await write("all rows", { lease: { shard: 11, epoch }, command }, "key-all-rows")
    expect(outcome).toMatchObject({ leaseHeld: true, wentAhead: true, recorded: true, value: { keyTaken: false } })
    expect(outcome.value.live).toHaveLength(1)
    expect(await rowsOf("all rows", "key-all-rows", command.commandId)).toEqual({ groups: 1, items: 2, activity: 1, outbox: 1, keys: 1, commands: 1 })
    expect(tracked).toHaveLength(1)
  })

  it("a lease another host took since: nothing at all is written, not even the key or the command record", async () => {
    const old = await run(Effect.flatMap(FenceStore, (f) => f.claim(12, "old host")))
    await run(Effect.flatMap(FenceStore, (f) => f.claim(12, "new host")))
    const command = { workspaceId, commandId: crypto.randomUUID() }
    const { outcome, tracked } = await write("lease lost", { lease: { shard: 12, epoch: old }, command }, "key-lease-lost")
    expect(outcome.leaseHeld).toBe(false)
    expect(await rowsOf("lease lost", "key-lease-lost", command.commandId)).toEqual(nothing)
    expect(tracked).toEqual([])
  })

  it("a live record of the key (another owner's): keyTaken, and nothing of this post is written", async () => {
    await withDb(world, (c) =>
      c.query("INSERT INTO idempotency_keys (workspace_id, key, request_hash, status_code, response) VALUES ($1, 'key-taken', 'other', 200, '[]')", [
        workspaceId
      ])
    )
    const command = { workspaceId, commandId: crypto.randomUUID() }
    const { outcome } = await write("key taken", { lease: null, command }, "key-taken")
    expect(outcome).toMatchObject({ leaseHeld: true, wentAhead: false, value: { keyTaken: true } })
    expect(await rowsOf("key taken", "key-taken", command.commandId)).toEqual(nothing)
  })

  it("a command that committed before: refused as already run, and no second post nor key record", async () => {
    const command = { workspaceId, commandId: crypto.randomUUID() }
    const first = await write("sent twice", { lease: null, command }, "key-first-copy")
    expect(first.outcome.recorded).toBe(true)
    // a copy under another key (its record must not be written either)
    const again = await write("sent twice, the copy", { lease: null, command }, "key-second-copy")
    expect(again.outcome).toMatchObject({ leaseHeld: true, wentAhead: true, recorded: false })
    expect(await rowsOf("sent twice, the copy", "key-second-copy", null)).toEqual(nothing)
    expect(await rowsOf("sent twice", "key-first-copy", command.commandId)).toMatchObject({ groups: 1, keys: 1, commands: 1 })
  })

  /** The version of the channel row as the writer remembers it (channelsRepo.findManyVersioned). */
  const versionNow = () =>
    withDb(
      world,
      async (c) =>
        (
          await c.query(`SELECT ${channelVersionSql} AS v FROM channels c LEFT JOIN customers cu ON cu.id = c.customer_id WHERE c.id = $1`, [
            channelId
          ])
        ).rows[0].v as string
    )

  it("checked against the channel's version it was decided on, still current: written", async () => {
    const command = { workspaceId, commandId: crypto.randomUUID() }
    const { outcome } = await write("current channel", { lease: null, command }, "key-current-channel", [await versionNow()])
    expect(outcome).toMatchObject({ leaseHeld: true, wentAhead: true, recorded: true, value: { channelsChanged: false, keyTaken: false } })
    expect(await rowsOf("current channel", "key-current-channel", command.commandId)).toMatchObject({ groups: 1, keys: 1, commands: 1 })
  })

  it("a channel changed since the version it was decided on: channelsChanged, and nothing at all is written", async () => {
    const remembered = await versionNow()
    // any update makes a new row version, even one that changes no value
    await withDb(world, (c) => c.query("UPDATE channels SET name = name WHERE id = $1", [channelId]))
    const command = { workspaceId, commandId: crypto.randomUUID() }
    const { outcome, tracked } = await write("changed channel", { lease: null, command }, "key-changed-channel", [remembered])
    expect(outcome).toMatchObject({ leaseHeld: true, wentAhead: false, recorded: false, value: { channelsChanged: true } })
    expect(await rowsOf("changed channel", "key-changed-channel", command.commandId)).toEqual(nothing)
    expect(tracked).toEqual([])
  })

  it("a version of a channel of another workspace proves nothing: channelsChanged", async () => {
    const other = await sys.admin.createWorkspace()
    const { channelId: theirs } = await sys.admin.createChannel({
      workspaceId: other.workspaceId,
      network: "test",
      name: "Theirs",
      customerId: null,
      postingTimes: []
    })
    const theirVersion = await withDb(
      world,
      async (c) =>
        (await c.query(`SELECT ${channelVersionSql} AS v FROM channels c LEFT JOIN customers cu ON cu.id = c.customer_id WHERE c.id = $1`, [theirs]))
          .rows[0].v as string
    )
    const { outcome } = await write("their channel", { lease: null, command: null }, null, [theirVersion])
    expect(outcome.value.channelsChanged).toBe(true)
    expect(await rowsOf("their channel", null, null)).toEqual(nothing)
  })
  /** The transactions that wrote the groups of these posts (a row's xmin). */
  const transactionsOf = (markers: ReadonlyArray<string>) =>
    withDb(
      world,
      async (c) =>
        (
          await c.query(
            `SELECT count(DISTINCT g.xmin::text)::int AS n FROM post_groups g JOIN posts p ON p.group_id = g.id JOIN post_items i ON i.post_id = p.id WHERE i.content = ANY($1)`,
            [markers]
          )
        ).rows[0].n as number
    )

  it("posts written meanwhile go in one statement and one commit, each with all its rows and its own record", async () => {
    const markers = ["together 1", "together 2", "together 3", "together 4", "together 5"]
    const commands = markers.map(() => ({ workspaceId, commandId: crypto.randomUUID() }))
    const written = await run(
      Effect.flatMap(CreatePostRepo, (store) =>
        Effect.all(
          markers.map((m, i) => writeWith(store, m, { lease: null, command: commands[i]! }, `key-${m}`)),
          { concurrency: "unbounded" }
        )
      )
    )
    for (const { outcome } of written) expect(outcome).toMatchObject({ leaseHeld: true, wentAhead: true, recorded: true })
    for (const [i, m] of markers.entries())
      expect(await rowsOf(m, `key-${m}`, commands[i]!.commandId)).toEqual({ groups: 1, items: 2, activity: 1, outbox: 1, keys: 1, commands: 1 })
    expect(await transactionsOf(markers)).toBe(1)
  })

  it("a post Postgres refuses fails alone: the posts written with it are written, and nothing of it", async () => {
    const markers = ["beside a bad one 1", "beside a bad one 2", "beside a bad one 3"]
    const commands = markers.map(() => ({ workspaceId, commandId: crypto.randomUUID() }))
    const bad = { workspaceId, commandId: crypto.randomUUID() }
    const [refused, ...written] = await run(
      Effect.flatMap(CreatePostRepo, (store) =>
        Effect.all(
          [
            // a channel that does not exist: the posts row breaks its foreign key
            writeWith(store, "refused by Postgres", { lease: null, command: bad }, "key-refused", null, crypto.randomUUID()).pipe(Effect.flip),
            ...markers.map((m, i) => writeWith(store, m, { lease: null, command: commands[i]! }, `key-${m}`))
          ],
          { concurrency: "unbounded" }
        )
      )
    )
    expect(refused).toMatchObject({ _tag: "SqlError" })
    expect(await rowsOf("refused by Postgres", "key-refused", bad.commandId)).toEqual(nothing)
    for (const w of written) expect(w).toMatchObject({ outcome: { leaseHeld: true, wentAhead: true, recorded: true } })
    for (const [i, m] of markers.entries())
      expect(await rowsOf(m, `key-${m}`, commands[i]!.commandId)).toEqual({ groups: 1, items: 2, activity: 1, outbox: 1, keys: 1, commands: 1 })
  })
})
