import { Cause, Effect, Exit, Layer, Option, Schedule, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Messages } from "../../domain/errors.js"
import { WorkspaceId } from "../../domain/ids.js"
import type { Principal } from "../../domain/roles.js"
import { shardOf } from "../../domain/shards.js"
import { ActorReplyJson, ActorRequestJson, ImportPosts, INLINE_PAYLOAD_BYTES, type ImportRow } from "../../protocol/actors.js"
import { ImportAnswer } from "../../protocol/http/postsBulk.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { MediaRepo } from "../../services/media/mediaRepo.js"
import { AppConfig } from "../../services/platform/config.js"
import { Nats } from "../../services/platform/nats.js"
import { authorize } from "../../services/platform/policy.js"
import { SavepointRepo } from "../../services/platform/savepointRepo.js"
import { CreatePostRepo } from "../../services/posts/createPostRepo.js"
import { IdempotencyRepo } from "../../services/posts/idempotencyRepo.js"
import { makeImportedPosts } from "../../services/posts/importedPosts.js"
import { makeNewPosts } from "../../services/posts/newPosts.js"
import { PostStepsRepo } from "../../services/posts/postStepsRepo.js"
import { PostsReadRepo } from "../../services/posts/postsReadRepo.js"
import { TagsRepo } from "../../services/posts/tagsRepo.js"
import { ChannelsRepo } from "../../services/repos/channelsRepo.js"
import { makeActorRequests } from "../../services/sharding/actorRequests.js"
import { FencedTransactions } from "../../services/sharding/fencedTransactions.js"
import { CurrentCommand, CurrentLease, FenceStore, LeaseLost } from "../../services/sharding/fencing.js"
import { client, decoded } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * POST /posts/import saves a file's valid rows as ONE batch (services/posts/importedPosts.ts):
 * one actor command, one fenced transaction with the command's record, so all rows commit
 * together or none. Through the API: a file with bad rows mixed in saves every good row and
 * answers per row as before, and again under its key saves nothing twice; a batch whose
 * transaction fails leaves no row, and the same file sent again saves them all once; a row
 * Postgres refuses while it is written is refused alone. On the writer itself: a row whose
 * channel went away after the gateway's check is refused alone, a host that lost its lease
 * saves nothing, and the rows written together are the rows POST /posts' transaction path
 * writes one at a time.
 */

let world: TestWorld
let sys: RunningServices
const SHARD = 29
const startedAt = Date.now()

beforeAll(async () => {
  world = await createWorld("import-batch")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const workspace = async () => {
  const ws = await sys.admin.createWorkspace()
  const channel = async (name: string, customerId: string | null = null) =>
    (await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name, customerId, postingTimes: [] })).channelId
  const { customerId } = await sys.admin.createCustomer({ workspaceId: ws.workspaceId, name: "Client", approval: true })
  return { ...ws, api: client(sys.url, ws.apiKey), a: await channel("Alpha"), b: await channel("Beta"), c: await channel("Client's", customerId) }
}
type Ws = Awaited<ReturnType<typeof workspace>>

const count = (table: "post_groups" | "posts" | "idempotency_keys" | "command_log", workspaceId: string) =>
  withDb(world, async (c) => (await c.query(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId])).rows[0].n as number)

const dateOf = (i: number) => new Date(Date.now() + 48 * 3600_000 + i * 60_000).toISOString()
const NO_SUCH = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"

/** Row i: every 20th on a missing channel, every 20th (offset 9) too long; some on two channels, some with tags. */
const rowOf = (w: Ws, i: number, content = `Post ${i}`) => ({
  date: dateOf(i),
  channels: i % 20 === 3 ? NO_SUCH : i % 3 === 0 ? `${w.a};${w.b}` : w.a,
  content: i % 20 === 9 ? "x".repeat(600) : content,
  tags: i % 4 === 0 ? "bulk;launch" : ""
})
const badRow = (i: number) => i % 20 === 3 || i % 20 === 9
const csvOf = (rows: ReadonlyArray<ReturnType<typeof rowOf>>) =>
  `date,channels,content,tags\n${rows.map((r) => [r.date, r.channels, r.content, r.tags].join(",")).join("\n")}\n`
const importFile = (w: Ws, file: string, key?: string) =>
  w.api.post("/public/v1/posts/import", file, { "content-type": "text/csv", ...(key === undefined ? {} : { "idempotency-key": key }) })

describe("POST /public/v1/posts/import saves the file as one batch", () => {
  it("several hundred rows with bad ones mixed in: every good row saved and answered per row; again under the key, nothing twice", async () => {
    const w = await workspace()
    const ROWS = 400
    const rows = Array.from({ length: ROWS }, (_, i) => rowOf(w, i))
    const bad = rows.filter((_, i) => badRow(i)).length
    const started = Date.now()
    const res = await importFile(w, csvOf(rows), "batch-1")
    const took = Date.now() - started
    expect(res.status).toBe(200)
    const first = decoded(res, ImportAnswer)
    expect(first).toMatchObject({ dryRun: false, saved: ROWS - bad, refused: bad })
    expect(first.rows.map((r) => r.row)).toEqual(rows.map((_, i) => i + 1))
    for (const [i, r] of first.rows.entries()) {
      if (i % 20 === 3) expect(r).toMatchObject({ status: "refused", error: Messages.channelNotFound })
      else if (i % 20 === 9) expect(r).toMatchObject({ status: "refused", error: Messages.fixBeforeSaving })
      else {
        expect(r.status).toBe("saved")
        expect(r.postIds).toHaveLength(i % 3 === 0 ? 2 : 1)
      }
    }
    expect(await count("post_groups", w.workspaceId)).toBe(ROWS - bad)
    expect(await count("posts", w.workspaceId)).toBe(rows.reduce((n, r, i) => n + (badRow(i) ? 0 : r.channels.split(";").length), 0))
    expect(await count("idempotency_keys", w.workspaceId)).toBe(ROWS - bad)
    // one command for the whole file: one record
    expect(await count("command_log", w.workspaceId)).toBe(1)
    console.log(`${ROWS} rows imported in ${took} ms (${Math.round((ROWS / took) * 1000)} rows/s)`)

    const again = decoded(await importFile(w, csvOf(rows), "batch-1"), ImportAnswer)
    expect(again).toEqual(first)
    expect(await count("post_groups", w.workspaceId)).toBe(ROWS - bad)
  }, 120_000)

  it("a file of the most rows a file may have is saved whole, its command and answer passed by reference", async () => {
    const w = await workspace()
    const ROWS = 5000
    // ~200 bytes a row
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      ...rowOf(w, i % 20 === 3 || i % 20 === 9 ? i + 1 : i),
      content: `Post ${i} ${"x".repeat(150)}`
    }))
    const file = csvOf(rows)
    // the command holds every row's body: larger than the file, so over what NATS carries inline
    expect(file.length).toBeGreaterThan(INLINE_PAYLOAD_BYTES)
    const started = Date.now()
    const res = await importFile(w, file, "batch-max")
    const took = Date.now() - started
    expect(res.status).toBe(200)
    const answer = decoded(res, ImportAnswer)
    expect(answer).toMatchObject({ saved: ROWS, refused: 0 })
    expect(await count("post_groups", w.workspaceId)).toBe(ROWS)
    expect(await count("command_log", w.workspaceId)).toBe(1)
    console.log(`${ROWS} rows imported in ${took} ms (${Math.round((ROWS / took) * 1000)} rows/s)`)
  }, 180_000)

  it("a batch whose transaction fails saves no row; the same file sent again under its key saves every row once", async () => {
    const w = await workspace()
    const rows = Array.from({ length: 120 }, (_, i) => rowOf(w, i))
    const good = rows.filter((_, i) => !badRow(i)).length
    // the command's record, the transaction's last statement, is refused: the whole batch rolls back
    await withDb(world, (c) =>
      c.query(`
        CREATE FUNCTION test_refuse_record() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'test: the command record is refused'; END $$;
        CREATE TRIGGER test_refuse_record BEFORE INSERT ON command_log FOR EACH ROW
          WHEN (NEW.workspace_id = '${w.workspaceId}') EXECUTE FUNCTION test_refuse_record();`)
    )
    try {
      const failed = await importFile(w, csvOf(rows), "batch-2")
      expect(failed.status).toBe(500)
      expect(await count("post_groups", w.workspaceId)).toBe(0)
      expect(await count("idempotency_keys", w.workspaceId)).toBe(0)
    } finally {
      await withDb(world, (c) => c.query("DROP TRIGGER test_refuse_record ON command_log; DROP FUNCTION test_refuse_record()"))
    }
    const resent = decoded(await importFile(w, csvOf(rows), "batch-2"), ImportAnswer)
    expect(resent.saved).toBe(good)
    expect(await count("post_groups", w.workspaceId)).toBe(good)
    const third = decoded(await importFile(w, csvOf(rows), "batch-2"), ImportAnswer)
    expect(third.rows.map((r) => r.group)).toEqual(resent.rows.map((r) => r.group))
    expect(await count("post_groups", w.workspaceId)).toBe(good)
  }, 60_000)

  it("a row Postgres refuses while it is written is refused alone; the others are saved", async () => {
    const w = await workspace()
    const POISON = "Refused by Postgres"
    const rows = Array.from({ length: 60 }, (_, i) => rowOf(w, i, i === 10 ? POISON : `Post ${i}`))
    const good = rows.filter((_, i) => !badRow(i)).length
    await withDb(world, (c) => c.query(`ALTER TABLE post_items ADD CONSTRAINT test_refused CHECK (content <> '${POISON}') NOT VALID`))
    try {
      const answer = decoded(await importFile(w, csvOf(rows), "batch-3"), ImportAnswer)
      expect(answer.rows[10]).toMatchObject({ status: "refused", error: Messages.changedMeanwhile })
      expect(answer.saved).toBe(good - 1)
      expect(await count("post_groups", w.workspaceId)).toBe(good - 1)
      // the refused row's key holds nothing: sent again (once Postgres takes it) it is saved
      expect(await count("idempotency_keys", w.workspaceId)).toBe(good - 1)
    } finally {
      await withDb(world, (c) => c.query("ALTER TABLE post_items DROP CONSTRAINT test_refused"))
    }
    const resent = decoded(await importFile(w, csvOf(rows), "batch-3"), ImportAnswer)
    expect(resent.rows[10]?.status).toBe("saved")
    expect(await count("post_groups", w.workspaceId)).toBe(good)
  }, 60_000)
})

/** One ImportPosts sent to the owner of the workspace's shard as the gateway sends it, with the command id and attempt given. */
const sendImport = (w: Ws, rows: ReadonlyArray<ImportRow>, commandId: string, attempt: number) =>
  sys.runtime.runPromise(
    Effect.gen(function* () {
      const nats = yield* Nats
      const { shardCount } = yield* AppConfig
      const requests = yield* makeActorRequests(nats.connection)
      const command = new ImportPosts({ rows })
      const envelope = { commandId, attempt, principal: principalOf(w.workspaceId), command }
      const payload = yield* Schema.encode(ActorRequestJson)({ _tag: "Inline", envelope })
      // no owner yet (the host takes its shards as it starts): nothing ran, asked again
      const msg = yield* requests
        .request(nats.names.shardCommands(shardOf(w.workspaceId, shardCount)), payload, undefined, 30_000)
        .pipe(Effect.retry({ while: (e) => e._tag === "NoOwner", schedule: Schedule.spaced("200 millis"), times: 100 }))
      const reply = yield* Schema.decodeUnknown(ActorReplyJson)(msg.string())
      if (reply._tag !== "Answer") return yield* Effect.dieMessage(`no answer: ${reply._tag}`)
      return yield* Effect.flatten(Schema.deserializeExit(command, reply.exit))
    }).pipe(Effect.scoped, Effect.orDie)
  )

describe("ImportPosts runs once", () => {
  it("a copy of the command (sent again, or buffered) is answered from its record and saves nothing twice", async () => {
    const w = await workspace()
    const rows = rowsFor(w, null)
    const commandId = crypto.randomUUID()
    const first = await sendImport(w, rows, commandId, 1)
    expect(first.map((r) => r.status)).toEqual(rows.map(() => "saved"))
    // sent again after no answer: looked up first
    expect(await sendImport(w, rows, commandId, 2)).toEqual(first)
    // a first copy buffered somewhere: it runs, its record is refused, it is answered from the record
    expect(await sendImport(w, rows, commandId, 1)).toEqual(first)
    expect(await count("post_groups", w.workspaceId)).toBe(rows.length)
    expect(await count("command_log", w.workspaceId)).toBe(1)
  })
})

/** The import's writer as the actor host runs it, both ways: rows written together first, or one at a time from the start. */
const Writers = Effect.gen(function* () {
  const newPosts = yield* makeNewPosts()
  return { together: yield* makeImportedPosts(newPosts), oneAtATime: yield* makeImportedPosts(newPosts, false) }
}).pipe(
  Effect.provide(
    Layer.mergeAll(
      PostStepsRepo.Live,
      PostsReadRepo.Live,
      CreatePostRepo.Live,
      ChannelsRepo.Live,
      MediaRepo.Live,
      IdempotencyRepo.Live,
      TagsRepo.Live,
      SavepointRepo.Live,
      FencedTransactions
    )
  )
)

const principalOf = (workspaceId: string): Principal => ({
  workspaceId: WorkspaceId.make(workspaceId),
  userId: null,
  role: "admin",
  tokenKind: "live",
  actor: "API"
})

const claim = () => sys.runtime.runPromise(Effect.flatMap(FenceStore, (f) => f.claim(SHARD, "import-batch")).pipe(Effect.provide(FenceStore.Live)))

const run = async (way: "together" | "oneAtATime", workspaceId: string, rows: ReadonlyArray<ImportRow>, epoch: number) => {
  const writers = await sys.runtime.runPromise(Writers)
  return sys.runtime.runPromise(
    writers[way]
      .importPosts(rows, [])
      .pipe(
        authorize("posts.write"),
        Effect.provideService(CurrentPrincipal, principalOf(workspaceId)),
        Effect.provideService(CurrentCommand, { workspaceId, commandId: crypto.randomUUID() }),
        Effect.provideService(CurrentLease, { shard: SHARD, epoch }),
        Effect.exit
      )
  )
}

const LATER = "2031-03-04T05:06:00.000Z"
const at = (minutes: number) => new Date(Date.parse(LATER) + minutes * 60_000).toISOString()
const rowsFor = (w: Ws, key: string | null): ReadonlyArray<ImportRow> =>
  [
    { type: "schedule", date: at(1), tags: ["bulk", "launch"], posts: [{ integration: { id: w.a }, value: [{ content: "Tagged" }] }] },
    {
      type: "schedule",
      date: at(2),
      posts: [
        { integration: { id: w.a }, value: [{ content: "A root" }, { content: "A follow-up", delay: 5 }] },
        { integration: { id: w.b }, value: [{ content: "B root" }], settings: { audience: "followers" } }
      ]
    },
    { type: "schedule", date: at(3), posts: [{ integration: { id: w.c }, value: [{ content: "For the client" }] }] },
    { type: "draft", date: at(4), tags: ["launch"], posts: [{ integration: { id: w.b }, value: [{ content: "A draft" }] }] },
    { type: "review", date: at(5), posts: [{ integration: { id: w.a }, value: [{ content: "Please approve" }] }] },
    {
      type: "schedule",
      date: at(6),
      shortLink: true,
      inter: 7,
      posts: [{ integration: { id: w.a }, value: [{ content: "Weekly https://example.com" }] }]
    }
  ].map((body, i) => ({ row: i + 1, body, idempotencyKey: key === null ? null : `${key}:row-${i + 1}`, mediaByPath: {} }))

/** Every row an import leaves in the workspace, ordered by the rows' dates (the same in both workspaces). */
const rowsOf = (workspaceId: string) =>
  withDb(world, async (c) => {
    const all = async (text: string) => (await c.query(text, [workspaceId])).rows
    return {
      groups: await all("SELECT * FROM post_groups WHERE workspace_id = $1 ORDER BY publish_at"),
      posts: await all("SELECT * FROM posts WHERE workspace_id = $1 ORDER BY publish_date, ordinal"),
      items: await all(
        "SELECT i.* FROM post_items i JOIN posts p ON p.id = i.post_id WHERE i.workspace_id = $1 ORDER BY p.publish_date, p.ordinal, i.position"
      ),
      tags: await all(
        "SELECT pt.* FROM post_tags pt JOIN post_groups g ON g.id = pt.group_id JOIN tags t ON t.id = pt.tag_id WHERE g.workspace_id = $1 ORDER BY g.publish_at, t.name"
      ),
      activity: await all(
        "SELECT a.* FROM post_activity a JOIN post_groups g ON g.id = a.group_id WHERE g.workspace_id = $1 ORDER BY g.publish_at, a.id"
      ),
      // their own ids come in no order: left out (what they point at is compared)
      outbox: (await all("SELECT * FROM outbox WHERE workspace_id = $1")).map(({ id: _id, ...row }) => row),
      notifications: (await all("SELECT * FROM notifications WHERE workspace_id = $1")).map(({ id: _id, ...row }) => row),
      idempotencyKeys: await all("SELECT * FROM idempotency_keys WHERE workspace_id = $1 ORDER BY key")
    }
  })

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** Ids by first appearance, share tokens, serials and this run's times made comparable; the unordered tables sorted after. */
const normalise = (rows: Awaited<ReturnType<typeof rowsOf>>) => {
  const ids = new Map<string, string>()
  const tokens = rows.groups.map((g) => String(g.share_token))
  const isNow = (t: number) => t >= startedAt - 5_000 && t <= Date.now() + 5_000
  const value = (v: unknown): unknown => {
    if (v instanceof Date) return isNow(v.getTime()) ? "<written now>" : v.toISOString()
    if (typeof v === "string") {
      let out = v.replace(UUID, (id) => {
        if (!ids.has(id)) ids.set(id, `<id ${ids.size + 1}>`)
        return ids.get(id)!
      })
      for (const token of tokens) out = out.split(token).join("<share token>")
      return out.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (t) => (isNow(Date.parse(t)) ? "<written now>" : t))
    }
    if (Array.isArray(v)) return v.map(value)
    if (v !== null && typeof v === "object") {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, value((v as Record<string, unknown>)[k])])
      )
    }
    return v
  }
  const out = Object.fromEntries(
    Object.entries(rows).map(([table, list]) => [table, list.map((row) => value(table === "activity" ? { ...row, id: "<serial>" } : row))])
  )
  const sorted = (list: ReadonlyArray<unknown> | undefined) => [...(list ?? [])].map((r) => JSON.stringify(r)).sort()
  return { ...out, outbox: sorted(out["outbox"]), notifications: sorted(out["notifications"]) }
}

describe("the import's writer", () => {
  it("rows written together are the rows POST /posts' transaction path writes one at a time", async () => {
    const epoch = await claim()
    const one = await workspace()
    const other = await workspace()
    const together = await run("together", one.workspaceId, rowsFor(one, "same"), epoch)
    const oneAtATime = await run("oneAtATime", other.workspaceId, rowsFor(other, "same"), epoch)
    expect(Exit.isSuccess(together) && together.value.every((r) => r.status === "saved")).toBe(true)
    expect(Exit.isSuccess(oneAtATime) && oneAtATime.value.every((r) => r.status === "saved")).toBe(true)
    const a = await rowsOf(one.workspaceId)
    const b = await rowsOf(other.workspaceId)
    expect(a.groups).toHaveLength(6)
    expect(a.tags).toHaveLength(3)
    // the customer's channel asks for approval: an event and its notification
    expect(a.outbox.length).toBeGreaterThan(0)
    // the answers' request hashes differ with the channel ids the bodies name
    const withoutHashes = (rows: typeof a) => ({ ...rows, idempotencyKeys: rows.idempotencyKeys.map(({ request_hash: _h, ...k }) => k) })
    expect(normalise(withoutHashes(a))).toEqual(normalise(withoutHashes(b)))
  })

  it("a row whose channel went away after the gateway's check is refused alone; the others are saved", async () => {
    const epoch = await claim()
    const w = await workspace()
    const rows = rowsFor(w, null)
    // row 3 names the customer's channel only: disconnected between the check and the save
    await withDb(world, (c) => c.query("UPDATE channels SET deleted_at = now() WHERE id = $1", [w.c]))
    const exit = await run("together", w.workspaceId, rows, epoch)
    expect(Exit.isSuccess(exit)).toBe(true)
    const answers = Exit.isSuccess(exit) ? exit.value : []
    expect(answers.map((r) => r.status)).toEqual(["saved", "saved", "refused", "saved", "saved", "saved"])
    expect(answers[2]).toMatchObject({ error: Messages.channelNotFound })
    expect(await count("post_groups", w.workspaceId)).toBe(5)
  })

  it("rows whose keys hold an answer (the same file run again) are answered from it and write nothing", async () => {
    const epoch = await claim()
    const w = await workspace()
    const first = await run("together", w.workspaceId, rowsFor(w, "twice"), epoch)
    const groups = await count("post_groups", w.workspaceId)
    // a write rolled back leaves no row, but a sequence never goes back: it shows no write was even tried
    const activitySerial = () => withDb(world, async (c) => String((await c.query("SELECT last_value FROM post_activity_id_seq")).rows[0].last_value))
    const serial = await activitySerial()
    const again = await run("together", w.workspaceId, rowsFor(w, "twice"), epoch)
    expect(Exit.isSuccess(first) && Exit.isSuccess(again)).toBe(true)
    const groupsOf = (exit: typeof first) => (Exit.isSuccess(exit) ? exit.value.map((r) => r.group) : [])
    expect(groupsOf(again)).toEqual(groupsOf(first))
    expect(groupsOf(first).every((g) => g !== undefined)).toBe(true)
    expect(await count("post_groups", w.workspaceId)).toBe(groups)
    expect(await activitySerial()).toBe(serial)
    // a row changed under its key: 409 for it, as POST /posts answers
    const changed = rowsFor(w, "twice").map((r) =>
      r.row === 2 ? { ...r, body: { type: "draft", posts: [{ integration: { id: w.a }, value: [{ content: "Changed" }] }] } } : r
    )
    const third = await run("together", w.workspaceId, changed, epoch)
    expect(Exit.isSuccess(third) ? third.value[1] : undefined).toMatchObject({ status: "refused", code: "idempotency_key_reused" })
    expect(await count("post_groups", w.workspaceId)).toBe(groups)
  })

  it("a host that lost its lease saves no row of the file", async () => {
    const lost = await claim()
    await claim()
    const w = await workspace()
    const exit = await run("together", w.workspaceId, rowsFor(w, "lost"), lost)
    expect(Exit.isFailure(exit) && Option.exists(Cause.dieOption(exit.cause), (d) => d instanceof LeaseLost)).toBe(true)
    expect(await count("post_groups", w.workspaceId)).toBe(0)
    expect(await count("idempotency_keys", w.workspaceId)).toBe(0)
  })
})
