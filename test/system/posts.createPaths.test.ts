import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WorkspaceId } from "../../domain/ids.js"
import type { Principal } from "../../domain/roles.js"
import { CreatePosts } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { FencedTransactions } from "../../services/sharding/fencedTransactions.js"
import { CurrentCommand, CurrentLease, FenceStore } from "../../services/sharding/fencing.js"
import { MediaRepo } from "../../services/media/mediaRepo.js"
import { authorize } from "../../services/platform/policy.js"
import { CreatePostRepo, makeCreatePostRepo } from "../../services/posts/createPostRepo.js"
import { IdempotencyRepo } from "../../services/posts/idempotencyRepo.js"
import { inOneStatement, makeNewPosts, requestHashOf } from "../../services/posts/newPosts.js"
import { makePostStepsRepo, PostStepsRepo } from "../../services/posts/postStepsRepo.js"
import { PostsReadRepo } from "../../services/posts/postsReadRepo.js"
import { TagsRepo } from "../../services/posts/tagsRepo.js"
import { ChannelsRepo } from "../../services/repos/channelsRepo.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * A new post is stored by one of two paths (services/posts/newPosts.ts): the one statement
 * of createPostRepo.ts (no group, no tags) or applyStep in a transaction (postStepsRepo.ts,
 * which also writes tags and edits). Each shape below is written both ways, each way in a
 * workspace of its own set up alike, and every row the two leave must be the same: groups,
 * channel posts, items, tags, activity, outbox, notifications, the Idempotency-Key record
 * and the command record, plus the answer. Only what must differ is normalised: ids (each
 * uuid becomes its order of first appearance, so what points at what is still compared),
 * the share token, the body's hash (the bodies name different ids) and times of the write.
 */

let world: TestWorld
let sys: RunningServices
let epoch: number
const startedAt = Date.now()
const SHARD = 31

/** How often each repository method was asked: proves which path wrote a post. */
const calls = { statement: 0, steps: 0 }

/** The real repositories, counted. */
const Counted = Layer.mergeAll(
  Layer.effect(
    CreatePostRepo,
    Effect.map(makeCreatePostRepo, (repo): CreatePostRepo["Type"] => ({
      createInOneStatement: (input) =>
        Effect.suspend(() => {
          calls.statement += 1
          return repo.createInOneStatement(input)
        })
    }))
  ),
  Layer.effect(
    PostStepsRepo,
    Effect.map(makePostStepsRepo, (repo): PostStepsRepo["Type"] => ({
      ...repo,
      applyStep: (input) =>
        Effect.suspend(() => {
          calls.steps += 1
          return repo.applyStep(input)
        })
    }))
  )
)

const Writers = Effect.all({
  oneStatement: makeNewPosts(inOneStatement),
  transaction: makeNewPosts(() => false)
}).pipe(
  Effect.provide(
    Layer.mergeAll(Counted, PostsReadRepo.Live, ChannelsRepo.Live, MediaRepo.Live, IdempotencyRepo.Live, TagsRepo.Live, FencedTransactions)
  )
)
let writers: Effect.Effect.Success<typeof Writers>

beforeAll(async () => {
  world = await createWorld("create-paths")
  sys = await startServices(world, [])
  writers = await sys.runtime.runPromise(Writers)
  epoch = await sys.runtime.runPromise(Effect.flatMap(FenceStore, (f) => f.claim(SHARD, "create-paths")).pipe(Effect.provide(FenceStore.Live)))
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

/** One workspace as both paths get it: the same channels, customer and library item, under fresh ids. */
const newWorkspace = async () => {
  const { workspaceId } = await sys.admin.createWorkspace()
  const channel = async (name: string, customerId: string | null = null) =>
    (await sys.admin.createChannel({ workspaceId, network: "test", name, customerId, postingTimes: [] })).channelId
  const alpha = await channel("Alpha")
  const beta = await channel("Beta")
  const { customerId } = await sys.admin.createCustomer({ workspaceId, name: "Client", approval: true })
  const client = await channel("Client's channel", customerId)
  const mediaId = crypto.randomUUID()
  await withDb(world, (c) =>
    c.query(
      `INSERT INTO media (id, workspace_id, name, original_name, storage_key, path, mime, type, size, width, height, alt)
       VALUES ($1, $2, 'photo.png', 'photo.png', 'k/photo.png', 'https://media.example.com/photo.png', 'image/png', 'image', 1234, 16, 12, 'A photo')`,
      [mediaId, workspaceId]
    )
  )
  return { workspaceId, alpha, beta, client, mediaId }
}
type Workspace = Awaited<ReturnType<typeof newWorkspace>>

const LATER = "2031-03-04T05:06:00.000Z"
const entry = (channelId: string, content: string, extra: Record<string, unknown> = {}) => ({
  integration: { id: channelId },
  value: [{ content }],
  ...extra
})

interface Shape {
  readonly name: string
  readonly body: (w: Workspace) => Record<string, unknown>
  readonly key?: string
  readonly tokenKind?: Principal["tokenKind"]
  readonly defaultCreationMethod?: "mcp"
}

const shapes: ReadonlyArray<Shape> = [
  { name: "now, one channel", body: (w) => ({ type: "now", posts: [entry(w.alpha, "Now")] }) },
  { name: "schedule, one channel", body: (w) => ({ type: "schedule", date: LATER, posts: [entry(w.alpha, "Later")] }) },
  { name: "draft without a date", body: (w) => ({ type: "draft", posts: [entry(w.alpha, "A draft")] }) },
  { name: "draft with a date", body: (w) => ({ type: "draft", date: LATER, posts: [entry(w.alpha, "A dated draft")] }) },
  { name: "review", body: (w) => ({ type: "review", date: LATER, posts: [entry(w.alpha, "Please approve")] }) },
  {
    name: "schedule, several channels, each its own text and follow-ups",
    body: (w) => ({
      type: "schedule",
      date: LATER,
      posts: [
        { integration: { id: w.alpha }, value: [{ content: "A root" }, { content: "A follow-up", delay: 5 }, { content: "A second", delay: 10 }] },
        { integration: { id: w.beta }, value: [{ content: "B root", delay: 7 }] }
      ]
    })
  },
  {
    name: "now, several channels",
    body: (w) => ({ type: "now", posts: [entry(w.alpha, "Now on A"), entry(w.beta, "Now on B")] })
  },
  {
    name: "simpler form: shared text, a channel's own text and settings, a shared thread",
    body: (w) => ({
      type: "schedule",
      date: LATER,
      content: "Shared text",
      channels: [w.alpha, { channelId: w.beta, content: "Own text for Beta", settings: { audience: "followers" } }],
      thread: [{ content: "Shared comment", delay: 3 }]
    })
  },
  {
    name: "settings",
    body: (w) => ({ type: "schedule", date: LATER, posts: [entry(w.alpha, "Set", { settings: { __type: "x", audience: "followers" } })] })
  },
  {
    name: "media from the library, and an outside address",
    body: (w) => ({
      type: "schedule",
      date: LATER,
      posts: [
        {
          integration: { id: w.alpha },
          value: [
            { content: "With media", image: [{ id: w.mediaId }] },
            { content: "Outside", image: [{ id: "made-up", path: "https://uploads.example.com/a.jpg" }], delay: 2 }
          ]
        }
      ]
    })
  },
  {
    name: "shortLink and a repeat",
    body: (w) => ({ type: "schedule", date: LATER, shortLink: true, inter: 7, posts: [entry(w.alpha, "Every week https://example.com")] })
  },
  { name: "with an Idempotency-Key", key: "same-key-both-ways", body: (w) => ({ type: "schedule", date: LATER, posts: [entry(w.alpha, "Keyed")] }) },
  {
    name: "now with an Idempotency-Key",
    key: "now-key",
    body: (w) => ({ type: "now", posts: [entry(w.alpha, "Keyed now"), entry(w.beta, "Keyed now B")] })
  },
  {
    name: "a customer's channel with approval",
    body: (w) => ({ type: "schedule", date: LATER, posts: [entry(w.client, "For the client"), entry(w.alpha, "Beside it")] })
  },
  { name: "a customer's channel, draft", body: (w) => ({ type: "draft", posts: [entry(w.client, "Client draft")] }) },
  {
    name: "creationMethod in the body",
    body: (w) => ({ type: "schedule", date: LATER, creationMethod: "agent", posts: [entry(w.alpha, "By an agent")] })
  },
  { name: "signed in with the CLI", tokenKind: "cli", body: (w) => ({ type: "schedule", date: LATER, posts: [entry(w.alpha, "From the CLI")] }) },
  { name: "through MCP", defaultCreationMethod: "mcp", body: (w) => ({ type: "schedule", date: LATER, posts: [entry(w.alpha, "From MCP")] }) }
]

/** Writes the shape in a fresh workspace with one writer, as the actor host runs a command. */
const writeWith = async (writer: keyof typeof writers, shape: Shape) => {
  const w = await newWorkspace()
  const body = shape.body(w)
  const principal: Principal = {
    workspaceId: WorkspaceId.make(w.workspaceId),
    userId: null,
    role: "admin",
    tokenKind: shape.tokenKind ?? "live",
    actor: "API"
  }
  const command = new CreatePosts({
    body,
    idempotencyKey: shape.key ?? null,
    mediaByPath: {},
    ...(shape.defaultCreationMethod === undefined ? {} : { defaultCreationMethod: shape.defaultCreationMethod })
  })
  const before = { ...calls }
  const answer = await sys.runtime.runPromise(
    writers[writer]
      .create(command)
      .pipe(
        authorize("posts.write"),
        Effect.provideService(CurrentPrincipal, principal),
        Effect.provideService(CurrentCommand, { workspaceId: w.workspaceId, commandId: crypto.randomUUID() }),
        Effect.provideService(CurrentLease, { shard: SHARD, epoch })
      )
  )
  const path = { statement: calls.statement - before.statement, steps: calls.steps - before.steps }
  return { answer, path, rows: await rowsOf(w.workspaceId), hash: requestHashOf(body) }
}

/** Every row a create can leave, of the workspace, in an order that does not depend on ids. */
const rowsOf = (workspaceId: string) =>
  withDb(world, async (c) => {
    const all = async (text: string) => (await c.query(text, [workspaceId])).rows
    return {
      groups: await all(`SELECT * FROM post_groups WHERE workspace_id = $1 ORDER BY created_at`),
      posts: await all(`SELECT * FROM posts WHERE workspace_id = $1 ORDER BY ordinal`),
      items: await all(`SELECT i.* FROM post_items i JOIN posts p ON p.id = i.post_id WHERE i.workspace_id = $1 ORDER BY p.ordinal, i.position`),
      tags: await all(`SELECT pt.* FROM post_tags pt JOIN post_groups g ON g.id = pt.group_id WHERE g.workspace_id = $1 ORDER BY pt.tag_id`),
      activity: await all(`SELECT a.* FROM post_activity a JOIN post_groups g ON g.id = a.group_id WHERE g.workspace_id = $1 ORDER BY a.id`),
      outbox: await all(`SELECT * FROM outbox WHERE workspace_id = $1 ORDER BY event, created_at`),
      notifications: await all(`SELECT * FROM notifications WHERE workspace_id = $1 ORDER BY type, title, body`),
      idempotencyKeys: await all(`SELECT * FROM idempotency_keys WHERE workspace_id = $1 ORDER BY key`),
      commands: await all(`SELECT * FROM command_log WHERE workspace_id = $1`)
    }
  })

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g

/**
 * Ids and the write's own times made comparable: each uuid becomes `<id n>` by first
 * appearance, the share token `<share token>`, the body's hash `<hash of the body>`, an
 * activity row's serial `<activity n>`, and a time from this test's run `<written now>`.
 * Everything else (given dates, texts, statuses, flags, JSON) stays as stored.
 */
const normalise = (written: Awaited<ReturnType<typeof writeWith>>) => {
  const ids = new Map<string, string>()
  const tokens = new Set(written.rows.groups.map((g) => String(g.share_token)))
  const isNow = (t: number) => t >= startedAt - 5_000 && t <= Date.now() + 5_000
  const text = (s: string) => {
    let out = s.replace(UUID, (id) => {
      const key = id.toLowerCase()
      if (!ids.has(key)) ids.set(key, `<id ${ids.size + 1}>`)
      return ids.get(key)!
    })
    for (const token of tokens) out = out.split(token).join("<share token>")
    if (out === written.hash) return "<hash of the body>"
    return out.replace(ISO_TIME, (t) => (isNow(Date.parse(t)) ? "<written now>" : t))
  }
  const value = (v: unknown): unknown => {
    if (v instanceof Date) return isNow(v.getTime()) ? "<written now>" : v.toISOString()
    if (typeof v === "string") return text(v)
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
  const rows = Object.fromEntries(
    Object.entries(written.rows).map(([table, list]) => [
      table,
      list.map((row, i) => (table === "activity" ? value({ ...row, id: `<activity ${i + 1}>` }) : value(row)))
    ])
  )
  return { answer: value(written.answer), rows }
}

describe("a new post: the one statement and the transaction leave the same rows", () => {
  it.each(shapes)("$name", async (shape) => {
    const byStatement = await writeWith("oneStatement", shape)
    const byTransaction = await writeWith("transaction", shape)
    // each way took its own path
    expect(byStatement.path).toEqual({ statement: 1, steps: 0 })
    expect(byTransaction.path).toEqual({ statement: 0, steps: 1 })
    expect(byStatement.answer.statusCode).toBe(200)
    expect(byStatement.rows.groups).toHaveLength(1)
    expect(byStatement.rows.commands).toHaveLength(1)
    expect(byStatement.rows.idempotencyKeys).toHaveLength(shape.key === undefined ? 0 : 1)
    expect(normalise(byTransaction)).toEqual(normalise(byStatement))
  })
})
