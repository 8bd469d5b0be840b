import { SqlClient, type Statement } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { ActivityEntry, ChannelStatus, PostSnapshot, WholePostStatus } from "../../domain/posts/states.js"
import { PublishMessages } from "../../domain/posts/messages.js"
import { ChannelStatusLiteral, StoredMedia } from "../posts/rows.js"
import type { NetworkCall } from "../networks/networkCalls.js"
import { removedCount } from "../platform/pruning.js"

/** An item as its attempt needs it: what to send, where, with which credentials, in reply to what. */
export const ItemToPublish = Schema.Struct({
  id: Schema.String,
  postId: Schema.String,
  groupId: Schema.String,
  workspaceId: Schema.String,
  channelId: Schema.String,
  channelName: Schema.String,
  network: Schema.String,
  position: Schema.Number,
  content: Schema.String,
  media: Schema.Array(StoredMedia),
  status: Schema.String,
  settings: Schema.Unknown,
  credentials: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  replyTo: Schema.NullOr(Schema.String),
  rootReleaseId: Schema.NullOr(Schema.String),
  /** Queued again by a retry after an unconfirmed outcome: ask the network before sending. */
  searchFirst: Schema.Boolean,
  /** How long the channel's publishing still pauses after the network's 429 (0: not paused). */
  pausedMs: Schema.Number,
  /** Where a publish in several steps stands on the network (the adapter's `Pending` progress); null before the first. */
  networkProgress: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type ItemToPublish = typeof ItemToPublish.Type

/**
 * An item as its job first reads it, in one statement without a lock: the item, its
 * channel and credentials, its open attempt (if any) and its attempt history. What the job
 * decides from it is made safe by the guarded statement that opens or takes over the attempt.
 */
export const ItemForAttempt = Schema.extend(
  ItemToPublish,
  Schema.Struct({
    /** The channel must be reconnected: its refresh failed. */
    refreshNeeded: Schema.Boolean,
    /** Why the item waits, if it does (`preparation`: its files are being prepared). */
    held: Schema.NullOr(Schema.String),
    /** How long until the item is due (0: due): the scheduler claims a little ahead of it. */
    dueInMs: Schema.Number,
    /** Follow-ups after this item (their scheduling is skipped for a post without any). */
    hasNext: Schema.Boolean,
    /** How many attempts the item had, and how many of them reached nothing (`not_sent`). */
    attempts: Schema.Number,
    reachedNothing: Schema.Number,
    /** The latest attempt without an outcome, its lease's owner and how long that lease still runs. */
    openAttemptId: Schema.NullOr(Schema.String),
    openLeaseOwner: Schema.NullOr(Schema.String),
    openLeaseLeftMs: Schema.NullOr(Schema.Number)
  })
)
export type ItemForAttempt = typeof ItemForAttempt.Type

const IdRow = Schema.Struct({ id: Schema.String })

/** A concluded attempt that moved its item, and the item's publish time. */
const ConcludedRow = Schema.Struct({ attemptId: Schema.String, publishedAt: Schema.NullOr(Schema.DateFromSelf) })

/** The whole post as the outcome of its root item sees it (domain/posts/states.ts afterAttempt). */
const GroupForOutcomeRow = Schema.Struct({
  id: Schema.String,
  publishAt: Schema.DateFromSelf,
  approvalStatus: Schema.NullOr(Schema.Literal("requested", "approved", "changes")),
  repeatDays: Schema.NullOr(Schema.Number)
})
const ChannelOfGroupRow = Schema.Struct({ groupId: Schema.String, channelId: Schema.String, status: ChannelStatusLiteral })

// decoders built once: building a schema on every query costs more than the query's decode
const decodeItems = Schema.decodeUnknown(Schema.Array(ItemForAttempt))
const decodeIds = Schema.decodeUnknown(Schema.Array(IdRow))
const decodeConcluded = Schema.decodeUnknown(Schema.Array(ConcludedRow))
const decodeGroups = Schema.decodeUnknown(Schema.Array(GroupForOutcomeRow))
const decodeChannels = Schema.decodeUnknown(Schema.Array(ChannelOfGroupRow))

/** An attempt to open: its id, the item and its number, the search-first flag the job read, its lease's owner and length. */
export interface AttemptToOpen {
  readonly attemptId: string
  readonly itemId: string
  readonly workspaceId: string
  readonly attempt: number
  readonly searchFirst: boolean
  readonly owner: string
  readonly leaseMs: number
}

/** A whole post as an outcome of its root item sees it (domain/posts/states.ts afterAttempt), with its repeat. */
export type GroupForOutcome = PostSnapshot & { readonly repeatDays: number | null }

/** What an attempt asked of its network (the attempt timeline): written with its outcome. */
export interface AttemptTrace {
  readonly operation: string
  readonly calls: ReadonlyArray<NetworkCall>
}

const callsJson = (trace: AttemptTrace | undefined) => (trace === undefined ? null : JSON.stringify(trace.calls))

/** What a concluded attempt writes on the attempt, the item and its channel's post. */
export interface AttemptResult {
  readonly outcome: "published" | "rejected" | "unconfirmed"
  readonly releaseId: string | null
  readonly releaseUrl: string | null
  readonly error: { readonly message: string; readonly fix: string } | null
}

/** The error of follow-ups stopped behind an item that did not go out (compared as jsonb to find them again). */
const stoppedError = JSON.stringify(PublishMessages.previousItemNotLive)

/**
 * Publish attempts and the state they move (docs/architecture.md, "Publisher": an attempt row committed
 * before the network is called, its outcome after). SQL only; every method runs in the
 * caller's transaction.
 */
export const makeAttemptsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const leaseFor = (leaseMs: number) => sql`now() + ${leaseMs} * interval '1 millisecond'`

  /**
   * The item with what its attempt needs, its open attempt and its history, in one
   * statement and without a lock (a job's first round trip; see openAttempt and takeOver).
   */
  const itemsWhere = (where: Statement.Fragment) =>
    sql`
      SELECT i.id, i.post_id, p.group_id, i.workspace_id, p.channel_id, c.name AS channel_name, c.network,
             i.position, i.content, i.media, i.status, i.held, p.settings, c.credentials, c.refresh_needed,
             (SELECT prev.release_id FROM post_items prev WHERE prev.post_id = i.post_id AND prev.position = i.position - 1) AS reply_to,
             (SELECT root.release_id FROM post_items root WHERE root.post_id = i.post_id AND root.position = 0 AND i.position > 0) AS root_release_id,
             EXISTS (SELECT 1 FROM post_items nxt WHERE nxt.post_id = i.post_id AND nxt.position > i.position) AS has_next,
             greatest(0, coalesce(ceil(extract(epoch FROM (i.due_at - now())) * 1000), 0))::int AS due_in_ms,
             i.search_first, i.network_progress,
             greatest(0, coalesce(ceil(extract(epoch FROM (c.publish_paused_until - now())) * 1000), 0))::int AS paused_ms,
             h.n AS attempts, h.reached_nothing, o.id AS open_attempt_id, o.lease_owner AS open_lease_owner,
             greatest(0, ceil(extract(epoch FROM (o.lease_until - now())) * 1000))::int AS open_lease_left_ms
      FROM post_items i JOIN posts p ON p.id = i.post_id JOIN channels c ON c.id = p.channel_id
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS n, (count(*) FILTER (WHERE outcome = 'not_sent'))::int AS reached_nothing
        FROM publish_attempts WHERE item_id = i.id) h
      LEFT JOIN LATERAL (
        SELECT id, lease_owner, lease_until FROM publish_attempts
        WHERE item_id = i.id AND outcome IS NULL ORDER BY attempt DESC LIMIT 1) o ON true
      WHERE ${where} AND p.deleted_at IS NULL`.pipe(Effect.flatMap(decodeItems))

  const loadItem = (itemId: string) => itemsWhere(sql`i.id = ${itemId}`).pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

  /** loadItem for several items in one statement (publishBatches.ts); an item deleted or unknown is left out. */
  const loadItems = (itemIds: ReadonlyArray<string>) => (itemIds.length === 0 ? Effect.succeed([]) : itemsWhere(sql`i.id IN ${sql.in(itemIds)}`))

  /**
   * Makes an open attempt whose job died ours, with a fresh lease: only while it is still
   * open and its lease has run out, so of two jobs that saw it so, one wins. Whether we won.
   */
  const takeOver = (attemptId: string, owner: string, leaseMs: number) =>
    sql`UPDATE publish_attempts SET lease_owner = ${owner}, lease_until = ${leaseFor(leaseMs)}
      WHERE id = ${attemptId} AND outcome IS NULL AND (lease_until IS NULL OR lease_until <= now())
      RETURNING id`.pipe(
      Effect.flatMap(decodeIds),
      Effect.map((rows) => rows.length > 0)
    )

  /**
   * Opens the item's attempt number `attempt`, leased to `owner`, in one statement with the
   * item locked: only while the item is still publishing with the search-first flag the job
   * read (the flag is spent here), no attempt is open and none numbered `attempt` or later
   * exists. Another job that opened one since our read took that number: the unique
   * (item, attempt) makes ours insert nothing. The attempt's id, or None when the item
   * changed under us.
   */
  const openAttempt = (input: Omit<AttemptToOpen, "attemptId">) =>
    Effect.map(openAttempts([{ ...input, attemptId: crypto.randomUUID() }]), (opened) => Option.fromNullable([...opened][0]))

  /**
   * openAttempt for several items in one statement (publishBatches.ts), each with the same
   * guards: the item still publishing with the search-first flag its job read and its post
   * not deleted, no attempt open and none numbered as this one or later. Items are locked
   * in id order, so two batches never wait on each other crosswise. An item appears once
   * per call (the caller keeps the others for a later batch). The attempt ids that opened.
   */
  const openAttempts = (inputs: ReadonlyArray<AttemptToOpen>) =>
    inputs.length === 0
      ? Effect.succeed(new Set<string>())
      : sql`
      WITH wanted AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(
          inputs.map((i) => ({
            attempt_id: i.attemptId,
            item_id: i.itemId,
            workspace_id: i.workspaceId,
            attempt: i.attempt,
            search_first: i.searchFirst,
            owner: i.owner,
            lease_ms: i.leaseMs
          }))
        )}::jsonb) AS t(attempt_id uuid, item_id uuid, workspace_id uuid, attempt int, search_first boolean, owner uuid, lease_ms int)),
      item AS (
        SELECT i.id, w.attempt_id, w.workspace_id, w.attempt, w.owner, w.lease_ms
        FROM wanted w JOIN post_items i ON i.id = w.item_id AND i.status = 'publishing' AND i.search_first = w.search_first
        JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL
        ORDER BY i.id FOR UPDATE OF i),
      opened AS (
        INSERT INTO publish_attempts (id, item_id, workspace_id, attempt, lease_owner, lease_until)
        SELECT item.attempt_id, item.id, item.workspace_id, item.attempt, item.owner, now() + item.lease_ms * interval '1 millisecond' FROM item
        WHERE NOT EXISTS (SELECT 1 FROM publish_attempts a WHERE a.item_id = item.id AND (a.attempt >= item.attempt OR a.outcome IS NULL))
        ON CONFLICT (item_id, attempt) DO NOTHING
        RETURNING id, item_id),
      spent AS (
        UPDATE post_items SET search_first = false FROM opened WHERE post_items.id = opened.item_id AND post_items.search_first)
      SELECT id FROM opened`.pipe(
          Effect.flatMap(decodeIds),
          Effect.map((rows) => new Set(rows.map((r) => r.id)))
        )

  /** Extends the lease while the attempt is still ours and open; changes nothing otherwise. */
  const renewLease = (attemptId: string, owner: string, leaseMs: number) =>
    sql`UPDATE publish_attempts SET lease_until = ${leaseFor(leaseMs)}
      WHERE id = ${attemptId} AND lease_owner = ${owner} AND outcome IS NULL`.pipe(Effect.asVoid)

  /**
   * The channels' last successful call (GET /integrations/{id}/health), stamped once for the
   * published items of an outcome transaction, in id order (two transactions never wait on
   * each other crosswise for the same channels).
   */
  const stampSuccess = (channelIds: ReadonlyArray<string>) =>
    channelIds.length === 0
      ? Effect.void
      : sql`UPDATE channels SET last_success_at = now() WHERE id IN (
          SELECT id FROM channels WHERE id IN ${sql.in([...new Set(channelIds)].sort())} ORDER BY id FOR NO KEY UPDATE)`.pipe(Effect.asVoid)

  /** renewLease for every attempt this process holds, in one statement (publishBatches.ts). */
  const renewLeases = (held: ReadonlyArray<{ readonly attemptId: string; readonly owner: string; readonly leaseMs: number }>) =>
    held.length === 0
      ? Effect.void
      : sql`UPDATE publish_attempts a SET lease_until = now() + t.lease_ms * interval '1 millisecond'
          FROM jsonb_to_recordset(${JSON.stringify(held.map((h) => ({ id: h.attemptId, owner: h.owner, lease_ms: h.leaseMs })))}::jsonb)
            AS t(id uuid, owner uuid, lease_ms int)
          WHERE a.id = t.id AND a.lease_owner = t.owner AND a.outcome IS NULL`.pipe(Effect.asVoid)

  /** Closes an attempt that sent nothing; the item is left as it is. */
  const closeUnsent = (attemptId: string, outcome: "rate_limited" | "not_sent", reason: string, trace?: AttemptTrace) =>
    sql`UPDATE publish_attempts SET finished_at = now(), outcome = ${outcome}, error = ${JSON.stringify({ message: reason, fix: "" })},
        operation = ${trace?.operation ?? null}, calls = ${callsJson(trace)}::jsonb
      WHERE id = ${attemptId} AND outcome IS NULL`.pipe(Effect.asVoid)

  /**
   * An attempt that left the item not live yet, nothing wrong (docs/publishing.md, "Publishes in
   * several steps"): closed `pending`, and in the same statement the item keeps the
   * adapter's progress and shows why it waits (`held` = kind, `waiting_for`). Only while the
   * attempt is still open and the item still publishing.
   */
  const closePending = (input: {
    readonly attemptId: string
    readonly itemId: string
    readonly progress: Readonly<Record<string, unknown>>
    readonly kind: "processing" | "network-limit"
    readonly waitingFor: string
    readonly trace?: AttemptTrace
  }) =>
    sql`
      WITH closed AS (
        UPDATE publish_attempts SET finished_at = now(), outcome = 'pending', error = ${JSON.stringify({ message: input.waitingFor, fix: "" })},
          operation = ${input.trace?.operation ?? null}, calls = ${callsJson(input.trace)}::jsonb
        WHERE id = ${input.attemptId} AND outcome IS NULL RETURNING item_id)
      UPDATE post_items SET network_progress = ${JSON.stringify(input.progress)}::jsonb, held = ${input.kind},
        held_at = CASE WHEN held IS NOT DISTINCT FROM ${input.kind} THEN held_at ELSE now() END, waiting_for = ${input.waitingFor}
      FROM closed WHERE post_items.id = closed.item_id AND post_items.id = ${input.itemId} AND post_items.status = 'publishing'`.pipe(Effect.asVoid)

  /** The network answered 429 for this channel: no call to it for `ms`, from any process. */
  const pauseChannel = (channelId: string, ms: number) =>
    sql`UPDATE channels SET publish_paused_until = greatest(coalesce(publish_paused_until, now()), now() + ${ms} * interval '1 millisecond')
      WHERE id = ${channelId}`.pipe(Effect.asVoid)

  /**
   * Records the attempts' outcomes and moves their items, in one statement for many
   * (recordOutcome.ts; an item at most once per call). An attempt: only while it has no
   * outcome, except that a real "published" wins over the "unconfirmed" a search recorded
   * meanwhile (a job that took over an attempt whose answer was only late). Its item: only
   * if the attempt is its latest and the item still waits for it (publishing, or
   * unconfirmed when it was published after all). The attempts that moved their item, with
   * the item's publish time; one concluded already, or whose item had moved, is left out.
   */
  const concludeAttempts = (
    inputs: ReadonlyArray<{ readonly itemId: string; readonly attemptId: string; readonly result: AttemptResult; readonly trace: AttemptTrace }>
  ) =>
    inputs.length === 0
      ? Effect.succeed(new Map<string, { readonly publishedAt: Date | null }>())
      : sql`
      WITH input AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(
          inputs.map((i) => ({
            item_id: i.itemId,
            attempt_id: i.attemptId,
            outcome: i.result.outcome,
            release_id: i.result.releaseId,
            release_url: i.result.releaseUrl,
            error: i.result.error,
            operation: i.trace.operation,
            calls: i.trace.calls
          }))
        )}::jsonb) AS t(item_id uuid, attempt_id uuid, outcome text, release_id text, release_url text, error jsonb, operation text, calls jsonb)),
      concluded AS (
        UPDATE publish_attempts a SET finished_at = now(), outcome = t.outcome, release_id = t.release_id, release_url = t.release_url,
          error = t.error, operation = coalesce(t.operation, a.operation), calls = coalesce(t.calls, a.calls)
        FROM input t
        WHERE a.id = t.attempt_id AND a.item_id = t.item_id AND (a.outcome IS NULL OR (t.outcome = 'published' AND a.outcome = 'unconfirmed'))
        RETURNING a.id, a.item_id, a.attempt, t.outcome, t.release_id, t.release_url, t.error),
      moved AS (
        UPDATE post_items SET
          status = CASE c.outcome WHEN 'published' THEN 'published' WHEN 'rejected' THEN 'error' ELSE 'unconfirmed' END,
          release_id = c.release_id, release_url = c.release_url,
          published_at = CASE WHEN c.outcome = 'published' THEN now() END, error = c.error,
          -- an unconfirmed item keeps its progress: the retry's search asks its container or session
          network_progress = CASE WHEN c.outcome = 'unconfirmed' THEN post_items.network_progress END,
          held = CASE WHEN post_items.held IN ('processing', 'network-limit') THEN NULL ELSE post_items.held END,
          held_at = CASE WHEN post_items.held IN ('processing', 'network-limit') THEN NULL ELSE post_items.held_at END,
          waiting_for = NULL
        FROM concluded c
        WHERE post_items.id = c.item_id AND (post_items.status = 'publishing' OR (c.outcome = 'published' AND post_items.status = 'unconfirmed'))
          AND NOT EXISTS (SELECT 1 FROM publish_attempts later WHERE later.item_id = c.item_id AND later.attempt > c.attempt)
        RETURNING c.id AS attempt_id, post_items.published_at)
      SELECT attempt_id, published_at FROM moved`.pipe(
          Effect.flatMap(decodeConcluded),
          Effect.map((rows) => new Map(rows.map((r) => [r.attemptId, { publishedAt: r.publishedAt }])))
        )

  /**
   * The item at `position` went live: follow-ups stopped because it had not (a late answer
   * that wins over `unconfirmed`) wait again, and the next one becomes due its `delay`
   * minutes from now.
   */
  const scheduleNextFollowUp = (postId: string, position: number) =>
    Effect.gen(function* () {
      yield* sql`UPDATE post_items SET status = 'queued', error = NULL, due_at = NULL
        WHERE post_id = ${postId} AND position > ${position} AND status = 'error' AND error = ${stoppedError}::jsonb`
      yield* sql`UPDATE post_items SET due_at = now() + make_interval(mins => delay_minutes)
        WHERE post_id = ${postId} AND position = ${position + 1} AND status = 'queued'`
    })

  /**
   * The item at `position` failed or is unconfirmed: the follow-ups still waiting behind it
   * end `error` with a message that says why (a retry of the post queues them again).
   */
  const stopFollowUpsAfter = (postId: string, position: number) =>
    sql`UPDATE post_items SET status = 'error', error = ${stoppedError}::jsonb, due_at = NULL
      WHERE post_id = ${postId} AND position > ${position} AND status = 'queued'`.pipe(Effect.asVoid)

  /**
   * The whole posts, locked in id order, each with the status of its channels and its
   * repeat; a post that is gone is left out.
   */
  const loadGroupsForOutcome = (groupIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      const ids = [...new Set(groupIds)].sort()
      if (ids.length === 0) return new Map<string, GroupForOutcome>()
      const groups =
        yield* sql`SELECT id, publish_at, approval_status, repeat_days FROM post_groups WHERE id IN ${sql.in(ids)} ORDER BY id FOR UPDATE`.pipe(
          Effect.flatMap(decodeGroups)
        )
      const channels = yield* sql`SELECT group_id, channel_id, status FROM posts WHERE group_id IN ${sql.in(ids)} AND deleted_at IS NULL`.pipe(
        Effect.flatMap(decodeChannels)
      )
      return new Map(
        groups.map((g): [string, GroupForOutcome] => [
          g.id,
          {
            publishAt: g.publishAt,
            approval: g.approvalStatus,
            channels: channels.filter((c) => c.groupId === g.id).map((c) => ({ channelId: c.channelId, status: c.status })),
            repeatDays: g.repeatDays
          }
        ])
      )
    })

  /**
   * Moves channels' posts to their new status with their attempt's release or error, sets
   * the whole posts' status and appends their activity (in the order given), in one statement.
   */
  const moveChannelPosts = (input: {
    readonly posts: ReadonlyArray<{ readonly postId: string; readonly status: ChannelStatus; readonly result: AttemptResult }>
    readonly groups: ReadonlyArray<{ readonly groupId: string; readonly status: WholePostStatus }>
    readonly activity: ReadonlyArray<ActivityEntry & { readonly groupId: string }>
  }) =>
    input.posts.length === 0 && input.groups.length === 0 && input.activity.length === 0
      ? Effect.void
      : sql`
      WITH moved AS (
        UPDATE posts SET status = t.status, release_id = t.release_id, release_url = t.release_url, error = t.error, updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(
          input.posts.map((p) => ({
            id: p.postId,
            status: p.status,
            release_id: p.result.releaseId,
            release_url: p.result.releaseUrl,
            error: p.result.error
          }))
        )}::jsonb) AS t(id uuid, status text, release_id text, release_url text, error jsonb)
        WHERE posts.id = t.id),
      grp AS (
        UPDATE post_groups SET status = t.status, updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(input.groups.map((g) => ({ id: g.groupId, status: g.status })))}::jsonb) AS t(id uuid, status text)
        WHERE post_groups.id = t.id)
      INSERT INTO post_activity (group_id, actor, action, detail)
      SELECT t.group_id, t.actor, t.action, t.detail
      FROM ROWS FROM (jsonb_to_recordset(${JSON.stringify(
        input.activity.map((a) => ({ group_id: a.groupId, actor: a.actor, action: a.action, detail: a.detail }))
      )}::jsonb) AS (group_id uuid, actor text, action text, detail text))
        WITH ORDINALITY AS t(group_id, actor, action, detail, n)
      ORDER BY t.n`.pipe(Effect.asVoid)

  /**
   * Removes the attempts of up to `limit` settled items (the retention job): an item published
   * or failed, with no attempt open and its last one finished more than `seconds` ago. An
   * item's attempts go all together, never some of them: the next attempt's number is the
   * count of those kept plus one (publishItem.ts), so a retry after the pruning starts again
   * at 1 instead of colliding with a kept one. An unconfirmed item keeps its attempts: they
   * are what a person reads to decide whether it went out. The item is locked (SKIP LOCKED)
   * so a retry or a new attempt waits for this statement, and this statement skips an item
   * they hold.
   */
  const pruneSettledBatch = (seconds: number, limit: number) =>
    sql`
      WITH settled AS (
        SELECT i.id FROM post_items i
        WHERE i.id IN (SELECT a.item_id FROM publish_attempts a WHERE a.finished_at < now() - make_interval(secs => ${seconds}))
          AND i.status IN ('published', 'error')
          AND NOT EXISTS (
            SELECT 1 FROM publish_attempts a
            WHERE a.item_id = i.id AND (a.finished_at IS NULL OR a.finished_at >= now() - make_interval(secs => ${seconds})))
        LIMIT ${limit} FOR NO KEY UPDATE OF i SKIP LOCKED),
      gone AS (
        DELETE FROM publish_attempts a USING settled WHERE a.item_id = settled.id RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return {
    pruneSettledBatch,
    loadItem,
    loadItems,
    takeOver,
    openAttempt,
    openAttempts,
    renewLease,
    renewLeases,
    stampSuccess,
    closeUnsent,
    closePending,
    pauseChannel,
    concludeAttempts,
    scheduleNextFollowUp,
    stopFollowUpsAfter,
    loadGroupsForOutcome,
    moveChannelPosts
  }
})

export class AttemptsRepo extends Context.Tag("publisher/AttemptsRepo")<AttemptsRepo, Effect.Effect.Success<typeof makeAttemptsRepo>>() {
  static readonly Live = Layer.effect(AttemptsRepo, makeAttemptsRepo)
}
