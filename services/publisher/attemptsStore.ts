import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { ActivityEntry, ChannelStatus, PostSnapshot, WholePostStatus } from "../../domain/posts/states.js"
import { PublishMessages } from "../../domain/posts/messages.js"
import { ChannelStatusLiteral, StoredMedia } from "../posts/rows.js"

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
  pausedMs: Schema.Number
})
export type ItemToPublish = typeof ItemToPublish.Type

/** The attempt of an item that has no outcome yet, and how long its job's lease still runs. */
const OpenAttemptRow = Schema.Struct({ id: Schema.String, leaseOwner: Schema.NullOr(Schema.String), leaseLeftMs: Schema.Number })
export type OpenAttempt = typeof OpenAttemptRow.Type

/** How many attempts an item had, and how many of them reached nothing. */
const AttemptHistoryRow = Schema.Struct({ n: Schema.Number, reachedNothing: Schema.Number })

const ConcludedRow = Schema.Struct({ attempt: Schema.Number })
const MovedItemRow = Schema.Struct({ publishedAt: Schema.NullOr(Schema.DateFromSelf) })

/** The whole post as the outcome of its root item sees it (domain/posts/states.ts afterAttempt). */
const GroupForOutcomeRow = Schema.Struct({
  publishAt: Schema.DateFromSelf,
  approvalStatus: Schema.NullOr(Schema.Literal("requested", "approved", "changes")),
  repeatDays: Schema.NullOr(Schema.Number)
})
const ChannelOfGroupRow = Schema.Struct({ channelId: Schema.String, status: ChannelStatusLiteral })

// decoders built once: building a schema on every query costs more than the query's decode
const decodeItems = Schema.decodeUnknown(Schema.Array(ItemToPublish))
const decodeOpenAttempts = Schema.decodeUnknown(Schema.Array(OpenAttemptRow))
const decodeHistory = Schema.decodeUnknown(Schema.Array(AttemptHistoryRow))
const decodeConcluded = Schema.decodeUnknown(Schema.Array(ConcludedRow))
const decodeMovedItems = Schema.decodeUnknown(Schema.Array(MovedItemRow))
const decodeGroups = Schema.decodeUnknown(Schema.Array(GroupForOutcomeRow))
const decodeChannels = Schema.decodeUnknown(Schema.Array(ChannelOfGroupRow))

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
 * Publish attempts and the state they move (DESIGN "Publisher": an attempt row committed
 * before the network is called, its outcome after). SQL only; every method runs in the
 * caller's transaction.
 */
export const makeAttemptsStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const leaseFor = (leaseMs: number) => sql`now() + ${leaseMs} * interval '1 millisecond'`

  /** The item with what its attempt needs, locked so one job at a time starts an attempt on it. */
  const lockItem = (itemId: string) =>
    sql`
      SELECT i.id, i.post_id, p.group_id, i.workspace_id, p.channel_id, c.name AS channel_name, c.network,
             i.position, i.content, i.media, i.status, p.settings, c.credentials,
             (SELECT prev.release_id FROM post_items prev WHERE prev.post_id = i.post_id AND prev.position = i.position - 1) AS reply_to,
             (SELECT root.release_id FROM post_items root WHERE root.post_id = i.post_id AND root.position = 0 AND i.position > 0) AS root_release_id,
             i.search_first,
             greatest(0, coalesce(ceil(extract(epoch FROM (c.publish_paused_until - now())) * 1000), 0))::int AS paused_ms
      FROM post_items i JOIN posts p ON p.id = i.post_id JOIN channels c ON c.id = p.channel_id
      WHERE i.id = ${itemId} AND p.deleted_at IS NULL
      FOR UPDATE OF i`.pipe(
      Effect.flatMap(decodeItems),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  /** The item's latest attempt without an outcome, if any. */
  const findOpenAttempt = (itemId: string) =>
    sql`
      SELECT id, lease_owner, greatest(0, ceil(extract(epoch FROM (lease_until - now())) * 1000))::int AS lease_left_ms
      FROM publish_attempts WHERE item_id = ${itemId} AND outcome IS NULL ORDER BY attempt DESC LIMIT 1`.pipe(
      Effect.flatMap(decodeOpenAttempts),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  /** How many attempts the item had, and how many of them reached nothing (`not_sent`). */
  const attemptHistory = (itemId: string) =>
    sql`
      SELECT count(*)::int AS n, (count(*) FILTER (WHERE outcome = 'not_sent'))::int AS reached_nothing
      FROM publish_attempts WHERE item_id = ${itemId}`.pipe(
      Effect.flatMap(decodeHistory),
      Effect.map((rows) => ({ attempts: rows[0]?.n ?? 0, reachedNothing: rows[0]?.reachedNothing ?? 0 }))
    )

  /** The search-first flag is spent by the attempt that reads it (a crash after it searches anyway: a taken-over attempt never sends). */
  const clearSearchFirst = (itemId: string) => sql`UPDATE post_items SET search_first = false WHERE id = ${itemId} AND search_first`.pipe(Effect.asVoid)

  /** Makes an open attempt whose job died ours, with a fresh lease. */
  const takeOver = (attemptId: string, owner: string, leaseMs: number) =>
    sql`UPDATE publish_attempts SET lease_owner = ${owner}, lease_until = ${leaseFor(leaseMs)} WHERE id = ${attemptId}`.pipe(Effect.asVoid)

  /** Opens the item's next attempt, leased to `owner`. */
  const openAttempt = (input: {
    readonly itemId: string
    readonly workspaceId: string
    readonly attempt: number
    readonly owner: string
    readonly leaseMs: number
  }) =>
    Effect.gen(function* () {
      const attemptId = crypto.randomUUID()
      yield* sql`INSERT INTO publish_attempts (id, item_id, workspace_id, attempt, lease_owner, lease_until)
        VALUES (${attemptId}, ${input.itemId}, ${input.workspaceId}, ${input.attempt}, ${input.owner}, ${leaseFor(input.leaseMs)})`
      return attemptId
    })

  /** Extends the lease while the attempt is still ours and open; changes nothing otherwise. */
  const renewLease = (attemptId: string, owner: string, leaseMs: number) =>
    sql`UPDATE publish_attempts SET lease_until = ${leaseFor(leaseMs)}
      WHERE id = ${attemptId} AND lease_owner = ${owner} AND outcome IS NULL`.pipe(Effect.asVoid)

  /** Closes an attempt that sent nothing; the item is left as it is. */
  const closeUnsent = (attemptId: string, outcome: "rate_limited" | "not_sent", reason: string) =>
    sql`UPDATE publish_attempts SET finished_at = now(), outcome = ${outcome}, error = ${JSON.stringify({ message: reason, fix: "" })}
      WHERE id = ${attemptId} AND outcome IS NULL`.pipe(Effect.asVoid)

  /** The network answered 429 for this channel: no call to it for `ms`, from any process. */
  const pauseChannel = (channelId: string, ms: number) =>
    sql`UPDATE channels SET publish_paused_until = greatest(coalesce(publish_paused_until, now()), now() + ${ms} * interval '1 millisecond')
      WHERE id = ${channelId}`.pipe(Effect.asVoid)

  /**
   * Records the attempt's outcome; its number, or None when another job concluded it
   * already. A real "published" wins over the "unconfirmed" a search recorded meanwhile (a
   * job that took over an attempt whose answer was only late); any other outcome stays.
   */
  const concludeAttempt = (attemptId: string, result: AttemptResult) =>
    sql`UPDATE publish_attempts SET finished_at = now(), outcome = ${result.outcome},
      release_id = ${result.releaseId}, release_url = ${result.releaseUrl}, error = ${errorJson(result.error)}
      WHERE id = ${attemptId} AND (outcome IS NULL ${result.outcome === "published" ? sql`OR outcome = 'unconfirmed'` : sql``})
      RETURNING attempt`.pipe(
      Effect.flatMap(decodeConcluded),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.attempt))
    )

  /**
   * Moves the item to its attempt's outcome, only if the attempt is the item's latest and
   * the item still waits for it (publishing, or unconfirmed when it was published after all).
   * Its publish time, or None when it had moved meanwhile.
   */
  const moveItem = (itemId: string, attempt: number, result: AttemptResult) => {
    const status = result.outcome === "published" ? "published" : result.outcome === "rejected" ? "error" : "unconfirmed"
    const fromUnconfirmed = result.outcome === "published" ? sql`OR status = 'unconfirmed'` : sql``
    return sql`
      UPDATE post_items SET status = ${status}, release_id = ${result.releaseId}, release_url = ${result.releaseUrl},
        published_at = ${result.outcome === "published" ? sql`now()` : null}, error = ${errorJson(result.error)}
      WHERE id = ${itemId} AND (status = 'publishing' ${fromUnconfirmed})
        AND NOT EXISTS (SELECT 1 FROM publish_attempts later WHERE later.item_id = ${itemId} AND later.attempt > ${attempt})
      RETURNING published_at`.pipe(
      Effect.flatMap(decodeMovedItems),
      Effect.map((rows) => Option.fromNullable(rows[0]))
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
      return Option.map(
        Option.fromNullable(groups[0]),
        (g): PostSnapshot & { readonly repeatDays: number | null } => ({ publishAt: g.publishAt, approval: g.approvalStatus, channels, repeatDays: g.repeatDays })
      )
    })

  /** Moves the channel's post to its new status with the attempt's release or error. */
  const moveChannelPost = (postId: string, status: ChannelStatus, result: AttemptResult) =>
    sql`UPDATE posts SET status = ${status}, release_id = ${result.releaseId}, release_url = ${result.releaseUrl},
      error = ${errorJson(result.error)}, updated_at = now() WHERE id = ${postId}`.pipe(Effect.asVoid)

  /** Sets the whole post's status. */
  const setGroupStatus = (groupId: string, status: WholePostStatus) =>
    sql`UPDATE post_groups SET status = ${status}, updated_at = now() WHERE id = ${groupId}`.pipe(Effect.asVoid)

  /** Appends entries to the post's activity. */
  const addActivity = (groupId: string, entries: ReadonlyArray<ActivityEntry>) =>
    entries.length === 0
      ? Effect.void
      : sql`INSERT INTO post_activity ${sql.insert(entries.map((a) => ({ groupId, actor: a.actor, action: a.action, detail: a.detail })))}`.pipe(
          Effect.asVoid
        )

  return {
    lockItem,
    clearSearchFirst,
    findOpenAttempt,
    attemptHistory,
    takeOver,
    openAttempt,
    renewLease,
    closeUnsent,
    pauseChannel,
    concludeAttempt,
    moveItem,
    scheduleNextFollowUp,
    stopFollowUpsAfter,
    loadGroupForOutcome,
    moveChannelPost,
    setGroupStatus,
    addActivity
  }
})

export class AttemptsStore extends Context.Tag("publisher/AttemptsStore")<AttemptsStore, Effect.Effect.Success<typeof makeAttemptsStore>>() {
  static readonly Live = Layer.effect(AttemptsStore, makeAttemptsStore)
}
