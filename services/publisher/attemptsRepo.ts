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

/** A concluded attempt: whether it moved its item, and the item's publish time. */
const ConcludedRow = Schema.Struct({ moved: Schema.Boolean, publishedAt: Schema.NullOr(Schema.DateFromSelf) })

/** The whole post as the outcome of its root item sees it (domain/posts/states.ts afterAttempt). */
const GroupForOutcomeRow = Schema.Struct({
  publishAt: Schema.DateFromSelf,
  approvalStatus: Schema.NullOr(Schema.Literal("requested", "approved", "changes")),
  repeatDays: Schema.NullOr(Schema.Number)
})
const ChannelOfGroupRow = Schema.Struct({ channelId: Schema.String, status: ChannelStatusLiteral })

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

const errorJson = (error: AttemptResult["error"]) => (error === null ? null : JSON.stringify(error))

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
   * Records the attempt's outcome and moves its item, in one statement. The attempt: only
   * while it has no outcome, except that a real "published" wins over the "unconfirmed" a
   * search recorded meanwhile (a job that took over an attempt whose answer was only late).
   * The item: only if the attempt is its latest and the item still waits for it
   * (publishing, or unconfirmed when it was published after all). Its publish time, or None when the attempt
   * was concluded already or the item had moved meanwhile.
   */
  const concludeAttempt = (itemId: string, attemptId: string, result: AttemptResult, trace?: AttemptTrace) => {
    const published = result.outcome === "published"
    const status = published ? "published" : result.outcome === "rejected" ? "error" : "unconfirmed"
    return sql`
      WITH concluded AS (
        UPDATE publish_attempts SET finished_at = now(), outcome = ${result.outcome},
          release_id = ${result.releaseId}, release_url = ${result.releaseUrl}, error = ${errorJson(result.error)},
          operation = coalesce(${trace?.operation ?? null}, operation), calls = coalesce(${callsJson(trace)}::jsonb, calls)
        WHERE id = ${attemptId} AND (outcome IS NULL ${published ? sql`OR outcome = 'unconfirmed'` : sql``})
        RETURNING attempt),
      moved AS (
        UPDATE post_items SET status = ${status}, release_id = ${result.releaseId}, release_url = ${result.releaseUrl},
          published_at = ${published ? sql`now()` : null}, error = ${errorJson(result.error)},
          -- an unconfirmed item keeps its progress: the retry's search asks its container or session
          network_progress = ${result.outcome === "unconfirmed" ? sql`post_items.network_progress` : null},
          held = CASE WHEN post_items.held IN ('processing', 'network-limit') THEN NULL ELSE post_items.held END,
          held_at = CASE WHEN post_items.held IN ('processing', 'network-limit') THEN NULL ELSE post_items.held_at END,
          waiting_for = NULL
        FROM concluded
        WHERE post_items.id = ${itemId} AND (post_items.status = 'publishing' ${published ? sql`OR post_items.status = 'unconfirmed'` : sql``})
          AND NOT EXISTS (SELECT 1 FROM publish_attempts later WHERE later.item_id = ${itemId} AND later.attempt > concluded.attempt)
        RETURNING post_items.published_at, post_items.post_id)
      SELECT EXISTS (SELECT 1 FROM moved) AS moved, (SELECT published_at FROM moved) AS published_at`.pipe(
      Effect.flatMap(decodeConcluded),
      Effect.map((rows) => (rows[0]?.moved === true ? Option.some({ publishedAt: rows[0].publishedAt }) : Option.none()))
    )
  }

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

  /** The whole post, locked, with the status of each of its channels and its repeat; None when it is gone. */
  const loadGroupForOutcome = (groupId: string) =>
    Effect.gen(function* () {
      const groups = yield* sql`SELECT publish_at, approval_status, repeat_days FROM post_groups WHERE id = ${groupId} FOR UPDATE`.pipe(
        Effect.flatMap(decodeGroups)
      )
      const channels = yield* sql`SELECT channel_id, status FROM posts WHERE group_id = ${groupId} AND deleted_at IS NULL`.pipe(
        Effect.flatMap(decodeChannels)
      )
      return Option.map(Option.fromNullable(groups[0]), (g): PostSnapshot & { readonly repeatDays: number | null } => ({
        publishAt: g.publishAt,
        approval: g.approvalStatus,
        channels,
        repeatDays: g.repeatDays
      }))
    })

  /**
   * Moves the channel's post to its new status with the attempt's release or error, sets
   * the whole post's status and appends its activity, in one statement.
   */
  const moveChannelPost = (input: {
    readonly postId: string
    readonly groupId: string
    readonly status: ChannelStatus
    readonly groupStatus: WholePostStatus
    readonly result: AttemptResult
    readonly activity: ReadonlyArray<ActivityEntry>
  }) => {
    const { groupId, result } = input
    const activity = input.activity.map((a) => ({ groupId, actor: a.actor, action: a.action, detail: a.detail }))
    return sql`
      WITH post AS (
        UPDATE posts SET status = ${input.status}, release_id = ${result.releaseId}, release_url = ${result.releaseUrl},
          error = ${errorJson(result.error)}, updated_at = now() WHERE id = ${input.postId}),
      grp AS (
        UPDATE post_groups SET status = ${input.groupStatus}, updated_at = now() WHERE id = ${groupId})
      ${activity.length === 0 ? sql`SELECT 1` : sql`INSERT INTO post_activity ${sql.insert(activity)}`}`.pipe(Effect.asVoid)
  }

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
    concludeAttempt,
    scheduleNextFollowUp,
    stopFollowUpsAfter,
    loadGroupForOutcome,
    moveChannelPost
  }
})

export class AttemptsRepo extends Context.Tag("publisher/AttemptsRepo")<AttemptsRepo, Effect.Effect.Success<typeof makeAttemptsRepo>>() {
  static readonly Live = Layer.effect(AttemptsRepo, makeAttemptsRepo)
}
