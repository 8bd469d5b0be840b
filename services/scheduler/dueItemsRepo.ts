import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { removedCount } from "../platform/pruning.js"

/** One claim of an item: its job on PUBLISH. */
export const PublishJobRow = Schema.Struct({
  itemId: Schema.String,
  claim: Schema.Number,
  workspaceId: Schema.String,
  channelId: Schema.String
})
export type PublishJobRow = typeof PublishJobRow.Type

/** A workspace with due or billing-held items, with what decides whether it may publish (domain/billing.ts). */
const BillingRow = Schema.Struct({
  id: Schema.String,
  billingState: Schema.Literal("active", "past_due", "grace_over", "ended"),
  pastDueSince: Schema.NullOr(Schema.DateFromSelf)
})

/** A claimed item: its job, and where it stands in its channel's post. */
// traceParent: the request's trace the item was written in (services/platform/tracing.ts)
const ClaimedItemRow = Schema.extend(
  PublishJobRow,
  Schema.Struct({
    position: Schema.Number,
    postId: Schema.String,
    /** Its place in the claim's order (due second, then the workspace's turn): see claimDue. */
    rank: Schema.Number,
    traceParent: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
  })
)

/** An enqueued job, with the sequence of its message on PUBLISH. */
const EnqueuedJobRow = Schema.extend(
  PublishJobRow,
  Schema.Struct({ streamSequence: Schema.NullOr(Schema.Number), enqueuedMsAgo: Schema.Number, channelPaused: Schema.Boolean })
)

const ClaimRow = Schema.Struct({ attempts: Schema.Number })

// decoders built once: building a schema on every query costs more than the query's decode
const decodeBilling = Schema.decodeUnknown(Schema.Array(BillingRow))
const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedItemRow))
const decodeJobs = Schema.decodeUnknown(Schema.Array(PublishJobRow))
const decodeEnqueued = Schema.decodeUnknown(Schema.Array(EnqueuedJobRow))
const decodeClaims = Schema.decodeUnknown(Schema.Array(ClaimRow))

/**
 * Due items and their publish jobs (docs/architecture.md, "Scheduler"). SQL only; every method runs in the
 * caller's transaction.
 */
export const makeDueItemsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Due within `leadMs` from now (the claim's lead: see claimDue). */
  const dueBy = (leadMs: number) => sql`now() + ${leadMs} * interval '1 millisecond'`
  /** A set of ids as one parameter: a top-of-the-hour tick may name more workspaces than a statement may have parameters (65,535). */
  const anyOf = (ids: ReadonlyArray<string>) => sql`(SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`

  /** Workspaces that have items due within `leadMs` not held yet, or items held for billing. */
  const workspacesWithDueOrHeldItems = (leadMs: number) =>
    sql`
      SELECT DISTINCT w.id, w.billing_state, w.past_due_since
      FROM workspaces w JOIN post_items i ON i.workspace_id = w.id
      WHERE (i.status = 'queued' AND i.due_at <= ${dueBy(leadMs)} AND i.held IS NULL) OR i.held = 'billing'`.pipe(Effect.flatMap(decodeBilling))

  /** Holds the items of these workspaces due within `leadMs` for billing. */
  const holdForBilling = (workspaceIds: ReadonlyArray<string>, leadMs = 0) =>
    workspaceIds.length === 0
      ? Effect.void
      : sql`UPDATE post_items SET held = 'billing', held_at = coalesce(held_at, now())
          WHERE workspace_id IN ${anyOf(workspaceIds)} AND status = 'queued' AND due_at <= ${dueBy(leadMs)} AND held IS NULL`.pipe(Effect.asVoid)

  /** Releases the items these workspaces had held for billing. */
  const releaseBillingHolds = (workspaceIds: ReadonlyArray<string>) =>
    workspaceIds.length === 0
      ? Effect.void
      : sql`UPDATE post_items SET held = NULL, held_at = NULL WHERE workspace_id IN ${anyOf(workspaceIds)} AND held = 'billing'`.pipe(Effect.asVoid)

  /**
   * Claims up to `batch` items not held that are due within `leadMs` (FOR UPDATE SKIP
   * LOCKED, so schedulers share the work): each is marked publishing and its claim counted.
   * The lead puts the jobs in the publishers before the due second; they send at it.
   * Fair between workspaces: within a due second, items are taken in turns, each
   * workspace's first, then each one's second… so an agency's 9,000 posts due at 09:00 go
   * after the first posts of everyone else due then, not before them (the jobs reach the
   * publishers in this order). Only items of `workspaceIds` are taken: those whose billing
   * the caller checked in the same transaction.
   */
  const claimDue = (batch: number, leadMs: number, workspaceIds: ReadonlyArray<string>) =>
    workspaceIds.length === 0
      ? Effect.succeed([])
      : sql`
      WITH waiting AS (
        SELECT i.id, i.due_at, (row_number() OVER (PARTITION BY i.workspace_id ORDER BY i.due_at, i.id))::int AS turn
        FROM post_items i JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL
        WHERE i.status = 'queued' AND i.due_at <= ${dueBy(leadMs)} AND i.held IS NULL AND i.workspace_id IN ${anyOf(workspaceIds)}),
      due AS (
        SELECT i.id, extract(epoch FROM date_trunc('second', w.due_at))::bigint * 1000000 + w.turn AS rank
        FROM waiting w JOIN post_items i ON i.id = w.id
        WHERE i.status = 'queued' AND i.held IS NULL
        ORDER BY date_trunc('second', w.due_at), w.turn, w.due_at LIMIT ${batch} FOR UPDATE OF i SKIP LOCKED)
      UPDATE post_items i SET status = 'publishing', claimed_at = now(), attempts = i.attempts + 1
      FROM due, posts p WHERE i.id = due.id AND p.id = i.post_id
      RETURNING i.id AS item_id, i.attempts AS claim, i.workspace_id, p.channel_id, i.position, i.post_id, i.trace_parent, due.rank::float8`.pipe(
          Effect.flatMap(decodeClaimed),
          // RETURNING keeps no order: the jobs go to PUBLISH in the turns' order
          Effect.map((rows) => [...rows].sort((a, b) => a.rank - b.rank))
        )

  /** Channel posts whose first item was claimed: publishing, one more attempt. */
  const markPostsPublishing = (postIds: ReadonlyArray<string>) =>
    postIds.length === 0
      ? Effect.void
      : sql`UPDATE posts SET status = 'publishing', attempts = attempts + 1, updated_at = now()
          WHERE id IN ${sql.in(postIds)} AND status = 'queued'`.pipe(Effect.asVoid)

  /** Writes the jobs of new claims (a job already written stays as it is). */
  const recordJobs = (jobs: ReadonlyArray<PublishJobRow>) =>
    jobs.length === 0 ? Effect.void : sql`INSERT INTO publish_jobs ${sql.insert(jobs)} ON CONFLICT DO NOTHING`.pipe(Effect.asVoid)

  /** JetStream acknowledged these jobs' messages, each stored at its `sequence`. */
  const markEnqueued = (jobs: ReadonlyArray<PublishJobRow & { readonly sequence: number }>) =>
    jobs.length === 0
      ? Effect.void
      : sql`UPDATE publish_jobs j SET enqueued_at = coalesce(j.enqueued_at, now()), stream_sequence = t.sequence
          FROM jsonb_to_recordset(${JSON.stringify(jobs.map((j) => ({ item_id: j.itemId, claim: j.claim, sequence: j.sequence })))}::jsonb)
            AS t(item_id uuid, claim int, sequence bigint)
          WHERE j.item_id = t.item_id AND j.claim = t.claim`.pipe(Effect.asVoid)

  /** Jobs older than `graceMs` whose enqueue was never acknowledged, locked (SKIP LOCKED) for this sweeper. */
  const unacknowledgedJobs = (options: { readonly graceMs: number; readonly batch: number }) =>
    sql`
      SELECT item_id, claim, workspace_id, channel_id FROM publish_jobs
      WHERE enqueued_at IS NULL AND created_at < now() - ${options.graceMs} * interval '1 millisecond'
      ORDER BY created_at LIMIT ${options.batch} FOR UPDATE SKIP LOCKED`.pipe(Effect.flatMap(decodeJobs))

  /**
   * Enqueued jobs older than `minAgeMs` whose item is still publishing under their claim, with
   * how long ago they were enqueued and whether their channel is paused (a network's Retry-After).
   */
  const jobsOfPublishingItems = (options: { readonly minAgeMs: number; readonly batch: number }) =>
    sql`
      SELECT j.item_id, j.claim, j.workspace_id, j.channel_id, j.stream_sequence,
        (extract(epoch FROM now() - j.enqueued_at) * 1000)::float8 AS enqueued_ms_ago,
        coalesce(c.publish_paused_until > now(), false) AS channel_paused
      FROM publish_jobs j JOIN post_items i ON i.id = j.item_id LEFT JOIN channels c ON c.id = j.channel_id
      WHERE i.status = 'publishing' AND i.attempts = j.claim AND j.enqueued_at IS NOT NULL
        AND j.enqueued_at < now() - ${options.minAgeMs} * interval '1 millisecond'
      ORDER BY j.enqueued_at LIMIT ${options.batch}`.pipe(Effect.flatMap(decodeEnqueued))

  /** Claims the item again if it is still publishing under the job's claim; the new claim, or None. */
  const claimAgain = (job: PublishJobRow) =>
    sql`
      UPDATE post_items SET attempts = attempts + 1, claimed_at = now()
      WHERE id = ${job.itemId} AND status = 'publishing' AND attempts = ${job.claim} RETURNING attempts`.pipe(
      Effect.flatMap(decodeClaims),
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.attempts))
    )

  /** Items due and not claimed yet (scheduler_due_items_waiting on /metrics). */
  const waitingCount = sql<{
    n: number
  }>`SELECT count(*)::int AS n FROM post_items WHERE status = 'queued' AND due_at <= now() AND held IS NULL`.pipe(
    Effect.map((rows) => rows[0]?.n ?? 0)
  )

  /**
   * Removes up to `limit` publish jobs the sweepers can no longer need (the retention job):
   * enqueued more than `seconds` ago, and their item no longer publishing under their claim.
   * A claim's number only grows (post_items.attempts), so such a job never becomes current
   * again; one never acknowledged is left to the sweeper, whatever its age.
   */
  const pruneSettledJobsBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM publish_jobs WHERE (item_id, claim) IN (
          SELECT j.item_id, j.claim FROM publish_jobs j JOIN post_items i ON i.id = j.item_id
          WHERE j.enqueued_at < now() - make_interval(secs => ${seconds})
            AND (i.status <> 'publishing' OR i.attempts <> j.claim)
          ORDER BY j.enqueued_at LIMIT ${limit} FOR UPDATE OF j SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return {
    pruneSettledJobsBatch,
    waitingCount,
    workspacesWithDueOrHeldItems,
    holdForBilling,
    releaseBillingHolds,
    claimDue,
    markPostsPublishing,
    recordJobs,
    markEnqueued,
    unacknowledgedJobs,
    jobsOfPublishingItems,
    claimAgain
  }
})

export class DueItemsRepo extends Context.Tag("scheduler/DueItemsRepo")<DueItemsRepo, Effect.Effect.Success<typeof makeDueItemsRepo>>() {
  static readonly Live = Layer.effect(DueItemsRepo, makeDueItemsRepo)
}
