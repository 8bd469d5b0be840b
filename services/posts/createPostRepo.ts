import { SqlError } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import pg from "pg"
import { IDEMPOTENCY_TTL_MS } from "../../domain/idempotency.js"
import type { PostStep } from "../../domain/posts/states.js"
import { AppConfig } from "../platform/config.js"
import { makeGroupCommit } from "../platform/groupCommit.js"
import * as Outbox from "../platform/outbox.js"
import { isDatabaseOutage } from "../platform/databaseOutage.js"
import { PgPool } from "../platform/pgPool.js"
import { currentTraceparent } from "../platform/tracing.js"
import type { Fence, FencedOutcome } from "../platform/transactions.js"
import { channelVersionSql } from "../repos/channelsRepo.js"
import { approvalEvent, isApprovalEvent } from "./postEvents.js"
import type { EntryWrite, GroupFields, LiveChannelPost } from "./postWrites.js"
import { shareUrl } from "./render.js"

/**
 * A new post in ONE statement (no BEGIN/COMMIT of its own): the lease's epoch
 * (row locked FOR SHARE: a new owner's claim waits for this statement, and after the claim
 * it finds no row), the Idempotency-Key record, the command's record, the group, its channel
 * posts, items, activity, outbox rows and notifications. Every write hangs on the link
 * before it (held → current → fresh → kept → recorded → go), so a refusal anywhere writes
 * nothing: the lease is another's; a channel changed since the rules were checked against
 * a remembered row ($17, versions as channelVersionSql; null: read just now, not checked);
 * the command committed before (fresh); a live record of the key
 * is another owner's (kept). A command that committed before kept its key too, so `recorded`
 * cannot fail after `kept` wrote: its conflict is caught by `fresh` or `kept` first.
 * The rows travel as JSON parameters: the text is the same for every post. $16 is the
 * request's trace (null with tracing off), which the transaction path leaves to the columns'
 * default (app.trace_parent, set by the fence check). It runs as the body of a function
 * (createPostFunctionSql), whose plan Postgres keeps for the session: planning this
 * statement cost Postgres more than running it.
 */
const createPostSql = `
WITH fence AS (
  SELECT 1 FROM shard_fences WHERE shard = $1::int AND epoch = $2::bigint FOR SHARE
), held AS (
  SELECT 1 AS ok WHERE $1::int IS NULL OR EXISTS (SELECT 1 FROM fence)
), current AS (
  SELECT 1 AS ok FROM held
  WHERE $17::text[] IS NULL OR (
    SELECT count(*) FROM channels c LEFT JOIN customers cu ON cu.id = c.customer_id
    WHERE c.workspace_id = $4::uuid AND c.id = ANY(SELECT split_part(v, '@', 1)::uuid FROM unnest($17::text[]) AS v)
      AND c.deleted_at IS NULL AND (${channelVersionSql}) = ANY($17::text[])
  ) = cardinality($17::text[])
), fresh AS (
  SELECT 1 AS ok FROM current
  WHERE $3::uuid IS NULL OR NOT EXISTS (SELECT 1 FROM command_log WHERE workspace_id = $4::uuid AND command_id = $3::uuid)
), kept AS (
  INSERT INTO idempotency_keys (workspace_id, key, request_hash, status_code, response)
  SELECT $4::uuid, $5::text, $6::text, 200, $7::json FROM fresh WHERE $5::text IS NOT NULL
  ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
    response = EXCLUDED.response, created_at = now()
  WHERE idempotency_keys.created_at <= $8::timestamptz
  RETURNING 1 AS ok
), ahead AS (
  SELECT 1 AS ok FROM fresh WHERE $5::text IS NULL OR EXISTS (SELECT 1 FROM kept)
), recorded AS (
  INSERT INTO command_log (workspace_id, command_id, answer)
  SELECT $4::uuid, $3::uuid, $9::json FROM ahead WHERE $3::uuid IS NOT NULL
  ON CONFLICT DO NOTHING RETURNING 1 AS ok
), go AS (
  SELECT 1 AS ok FROM ahead WHERE $3::uuid IS NULL OR EXISTS (SELECT 1 FROM recorded)
), grp AS (
  INSERT INTO post_groups (id, workspace_id, status, approval_status, publish_at, repeat_days, short_link, creation_method, author, share_token)
  SELECT g.id, g.workspace_id, g.status, g.approval_status, g.publish_at, g.repeat_days, g.short_link, g.creation_method, g.author, g.share_token
  FROM go, jsonb_to_record($10::jsonb) AS g(id uuid, workspace_id uuid, status text, approval_status text, publish_at timestamptz,
    repeat_days int, short_link boolean, creation_method text, author text, share_token text)
  RETURNING 1
), channel_posts AS (
  INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, settings, publish_date)
  SELECT r.id, r.group_id, r.workspace_id, r.channel_id, r.ordinal, r.status, r.settings, r.publish_date
  FROM go, jsonb_to_recordset($11::jsonb) AS r(id uuid, group_id uuid, workspace_id uuid, channel_id uuid, ordinal int, status text,
    settings jsonb, publish_date timestamptz)
  RETURNING 1
), items AS (
  INSERT INTO post_items (id, post_id, workspace_id, position, content, media, delay_minutes, status, due_at, trace_parent)
  SELECT r.id, r.post_id, r.workspace_id, r.position, r.content, r.media, r.delay_minutes, r.status, r.due_at, $16::text
  FROM go, jsonb_to_recordset($12::jsonb) AS r(id uuid, post_id uuid, workspace_id uuid, position int, content text, media jsonb,
    delay_minutes int, status text, due_at timestamptz)
  RETURNING 1
), activity AS (
  INSERT INTO post_activity (group_id, actor, action, detail)
  SELECT r.group_id, r.actor, r.action, r.detail FROM go, jsonb_to_recordset($13::jsonb) AS r(group_id uuid, actor text, action text, detail text)
  RETURNING 1
), events AS (
  INSERT INTO outbox (id, workspace_id, event, data, trace_parent)
  SELECT r.id, r.workspace_id, r.event, r.data, $16::text FROM go, jsonb_to_recordset($14::jsonb) AS r(id uuid, workspace_id uuid, event text, data jsonb)
  RETURNING 1
), notes AS (
  INSERT INTO notifications (id, workspace_id, type, title, body, link)
  SELECT r.id, r.workspace_id, r.type, r.title, r.body, r.link
  FROM go, jsonb_to_recordset($15::jsonb) AS r(id uuid, workspace_id uuid, type text, title text, body text, link text)
  RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM held) AS lease_held, EXISTS (SELECT 1 FROM current) AS current, EXISTS (SELECT 1 FROM fresh) AS fresh,
  EXISTS (SELECT 1 FROM ahead) AS ahead, EXISTS (SELECT 1 FROM go) AS went`

/**
 * createPostSql as a function of each connection's session (pg_temp, created on the
 * connection's first batch), so that many posts go in one statement and one commit: its
 * text stays here, beside the read its version check must agree with, and every release
 * brings its own (nothing in the schema to migrate). Inside a function each post's
 * statement sees the rows of the posts before it in the batch, as separate statements of
 * one transaction would.
 */
const createPostFunctionSql = `
CREATE OR REPLACE FUNCTION pg_temp.create_post(int, bigint, uuid, uuid, text, text, json, timestamptz, json, jsonb, jsonb, jsonb, jsonb, jsonb, jsonb, text, text[])
RETURNS TABLE (lease_held boolean, is_current boolean, is_fresh boolean, is_ahead boolean, went boolean)
LANGUAGE plpgsql VOLATILE AS $create_post$
#variable_conflict use_column
BEGIN
  RETURN QUERY ${createPostSql};
END $create_post$`

/**
 * A batch of posts in one statement: $1 is a JSON array with one array of createPostSql's
 * parameters per post, in order; `n` says which post a row answers. One post Postgres
 * refuses rolls the batch back (groupCommit then runs each post alone).
 */
const createPostsSql = `
SELECT a.n, r.lease_held AS "leaseHeld", r.is_current AS current, r.is_fresh AS fresh, r.is_ahead AS ahead, r.went
FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS a(p, n),
  LATERAL pg_temp.create_post((a.p->>0)::int, (a.p->>1)::bigint, (a.p->>2)::uuid, (a.p->>3)::uuid, a.p->>4, a.p->>5,
    (a.p->>6)::json, (a.p->>7)::timestamptz, (a.p->>8)::json, a.p->9, a.p->10, a.p->11, a.p->12, a.p->13, a.p->14, a.p->>15,
    CASE WHEN jsonb_typeof(a.p->16) = 'array' THEN ARRAY(SELECT jsonb_array_elements_text(a.p->16)) END) AS r`

/** What one post's statement reports (createPostSql's last SELECT). */
const CreatedFlags = Schema.Struct({
  leaseHeld: Schema.Boolean,
  current: Schema.Boolean,
  fresh: Schema.Boolean,
  ahead: Schema.Boolean,
  went: Schema.Boolean
})
export type CreatedFlags = typeof CreatedFlags.Type
const decodeBatchRows = Schema.decodeUnknownSync(Schema.Array(Schema.Struct({ n: Schema.Number, ...CreatedFlags.fields })))

/** createPostSql's parameters, in order ($7 and $9 as JSON text, $10-$15 as JSON values, $8 as a time). */
export type CreatePostParams = readonly [
  shard: number | null,
  epoch: number | null,
  commandId: string | null,
  workspaceId: string,
  key: string | null,
  requestHash: string | null,
  keyResponse: string | null,
  keyStaleBefore: Date | null,
  commandAnswer: string | null,
  group: unknown,
  posts: unknown,
  items: unknown,
  activity: unknown,
  events: unknown,
  notifications: unknown,
  traceParent: string | null,
  channelVersions: ReadonlyArray<string> | null
]

/**
 * Batches of two in flight at most: while they run in Postgres the next posts gather, so a
 * busy actor host sends few statements; more in flight would make the batches smaller.
 */
const MAX_IN_FLIGHT = 2
const MAX_BATCH = 64

/** The pooled connections whose session has the function (whichever store created it there). */
const withFunction = new WeakSet<pg.PoolClient>()

/**
 * POST /posts writes of this process, grouped (groupCommit.ts): each post keeps its own
 * fence, command record and key check, and answers only once its batch has committed.
 */
export const makeCreatePostBatches = (pool: pg.Pool) => {
  const run = async (batch: ReadonlyArray<CreatePostParams>): Promise<ReadonlyArray<CreatedFlags>> => {
    const client = await pool.connect()
    let broken: Error | undefined
    // pg-pool listens for a checked-out client's errors no more: a connection the server ends
    // (a restart) while this batch holds it would otherwise throw from the socket and crash
    const onError = (error: Error) => {
      broken = error
    }
    client.on("error", onError)
    try {
      if (!withFunction.has(client)) {
        await client.query(createPostFunctionSql)
        withFunction.add(client)
      }
      const result = await client.query({ name: "create_posts_v3", text: createPostsSql, values: [JSON.stringify(batch)] })
      const answered = new Array<CreatedFlags | undefined>(batch.length)
      for (const { n, ...flags } of decodeBatchRows(result.rows)) answered[n - 1] = flags
      return answered.map((flags, i) => {
        if (flags === undefined) throw new Error(`the create statement answered no row for post ${i + 1} of ${batch.length}`)
        return flags
      })
    } catch (error) {
      // a statement Postgres refused leaves the connection usable; anything else ends it, and so
      // does the server going away (57P01 and the like are DatabaseErrors too)
      if (!(error instanceof pg.DatabaseError) || isDatabaseOutage(error)) broken = error instanceof Error ? error : new Error(String(error))
      throw error
    } finally {
      client.off("error", onError)
      client.release(broken)
    }
  }
  return makeGroupCommit({
    maxInFlight: MAX_IN_FLIGHT,
    maxBatch: MAX_BATCH,
    run,
    // Postgres out of reach is no refusal of one post: running each post alone would only fail again
    refused: (cause) => cause instanceof pg.DatabaseError && !isDatabaseOutage(cause),
    failure: (cause) => new SqlError.SqlError({ cause, message: "Failed to create posts" })
  })
}

/** A new post in one statement, as the post writer hands it over (POST /posts without group or tags). */
export const makeCreatePostRepo = Effect.gen(function* () {
  const createPosts = makeCreatePostBatches(yield* PgPool)
  const { publicUrl } = yield* AppConfig

  /**
   * POST /posts of a new post without tags, in one statement (createPostSql above),
   * which it shares with the other posts this process writes meanwhile (group commit):
   * what applyStep writes for a new group, plus the key's record, checked and recorded
   * under the fence. `keyTaken` (nothing written): a live record of the key is another owner's.
   */
  const createInOneStatement = Effect.fnUntraced(function* (input: {
    readonly fence: Fence
    readonly workspaceId: string
    readonly groupId: string
    readonly shareToken: string
    readonly fields: GroupFields
    readonly step: PostStep
    readonly entries: ReadonlyMap<string, EntryWrite>
    readonly channelNames: ReadonlyMap<string, string>
    /** The versions of the channels the rules were checked against, when they were remembered rows (channelVersionSql). */
    readonly channelVersions: ReadonlyArray<string> | null
    /** The Idempotency-Key to keep the answer under. */
    readonly key: { readonly key: string; readonly requestHash: string; readonly now: Date } | null
    /** What the command answers (the record a copy is answered from, and the key's response). */
    readonly answer: (live: ReadonlyArray<LiveChannelPost>) => {
      readonly keyResponse: unknown
      readonly commandAnswer: unknown
    }
  }) {
    const { groupId, step, workspaceId } = input
    const posts: Array<Record<string, unknown>> = []
    const items: Array<Record<string, unknown>> = []
    const live: Array<LiveChannelPost> = []
    let ordinal = 0
    for (const channel of step.channels) {
      ordinal++
      if (channel.to === null) continue
      const entry = input.entries.get(channel.channelId)
      if (channel.from !== null || entry === undefined)
        return yield* Effect.die(new Error(`a new post has no content for channel ${channel.channelId}`))
      const postId = crypto.randomUUID()
      posts.push({
        id: postId,
        group_id: groupId,
        workspace_id: workspaceId,
        channel_id: channel.channelId,
        ordinal,
        status: channel.to,
        settings: entry.settings,
        publish_date: channel.publishAt ?? step.publishAt
      })
      entry.items.forEach((item, position) =>
        items.push({
          id: crypto.randomUUID(),
          post_id: postId,
          workspace_id: workspaceId,
          position,
          content: item.content,
          media: item.media,
          delay_minutes: position === 0 ? 0 : item.delay,
          status: channel.to,
          due_at: position === 0 ? channel.dueAt : null
        })
      )
      live.push({ postId, channelId: channel.channelId, status: channel.to })
    }
    const post = { groupId, publishAt: step.publishAt, channelIds: live.map((l) => l.channelId), previewUrl: shareUrl(publicUrl, input.shareToken) }
    const written = yield* Outbox.prepare(
      workspaceId,
      step.events.filter(isApprovalEvent).map((e) => approvalEvent(e, post)),
      (id) => input.channelNames.get(id)
    )
    const { commandAnswer, keyResponse } = input.answer(live)
    const { command, lease } = input.fence
    const traceParent = yield* currentTraceparent
    const flags = yield* createPosts.submit([
      lease?.shard ?? null,
      lease?.epoch ?? null,
      command?.commandId ?? null,
      workspaceId,
      input.key?.key ?? null,
      input.key?.requestHash ?? null,
      input.key === null ? null : JSON.stringify(keyResponse),
      input.key === null ? null : new Date(input.key.now.getTime() - IDEMPOTENCY_TTL_MS),
      command === null ? null : JSON.stringify(commandAnswer ?? null),
      {
        id: groupId,
        workspace_id: workspaceId,
        status: step.status,
        approval_status: step.approval,
        publish_at: step.publishAt,
        repeat_days: input.fields.repeatDays,
        short_link: input.fields.shortLink,
        creation_method: input.fields.creationMethod,
        author: input.fields.author,
        share_token: input.shareToken
      },
      posts,
      items,
      step.activity.map((a) => ({ group_id: groupId, actor: a.actor, action: a.action, detail: a.detail })),
      written.outbox.map((o) => ({ id: o.id, workspace_id: o.workspaceId, event: o.event, data: o.data })),
      written.notifications.map((n) => ({ id: n.id, workspace_id: n.workspaceId, type: n.type, title: n.title, body: n.body, link: n.link })),
      traceParent,
      input.channelVersions
    ])
    if (flags.went) yield* Outbox.track(written.outbox.map((o) => o.id))
    type Created = { readonly keyTaken: boolean; readonly channelsChanged: boolean; readonly live: typeof live }
    // refused before anything: the lease is another's, or a remembered channel changed;
    // not fresh: a command that committed before went ahead (as far as the caller knows) and was not recorded
    const outcome: FencedOutcome<Created> =
      !flags.leaseHeld || !flags.current
        ? { leaseHeld: flags.leaseHeld, wentAhead: false, recorded: false, value: { keyTaken: false, channelsChanged: flags.leaseHeld, live } }
        : flags.fresh
          ? { leaseHeld: true, wentAhead: flags.ahead, recorded: flags.went, value: { keyTaken: !flags.ahead, channelsChanged: false, live } }
          : { leaseHeld: true, wentAhead: true, recorded: false, value: { keyTaken: false, channelsChanged: false, live } }
    return outcome
  })

  return { createInOneStatement }
})

/** Built once per process: its group commit gathers the posts of every actor of the process. */
export class CreatePostRepo extends Context.Tag("posts/CreatePostRepo")<CreatePostRepo, Effect.Effect.Success<typeof makeCreatePostRepo>>() {
  static readonly Live = Layer.effect(CreatePostRepo, makeCreatePostRepo)
}
