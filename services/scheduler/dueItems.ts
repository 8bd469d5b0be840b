import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schema } from "effect"
import { headers as natsHeaders } from "nats"
import { publishingPaused } from "../../domain/billing.js"
import { PublishJobJson } from "../../protocol/jobs.js"
import { Nats } from "../platform/nats.js"

/**
 * Due items → jobs on PUBLISH. Each claim of an item writes, in the claim transaction, one
 * publish job (item, claim) that is marked enqueued once JetStream acknowledged its message;
 * the message id is `<item>:<claim>`, so a repeated publish of the same claim is dropped by
 * the stream. Two sweepers repair from Postgres instead of guessing from the clock:
 * - a job whose enqueue was never acknowledged is published again (same message id);
 * - a job whose message has left the stream while its item is still publishing under that
 *   claim (NATS lost it, or it was settled without an outcome) is claimed again.
 */

const PublishJobRow = Schema.Struct({
  itemId: Schema.String,
  claim: Schema.Number,
  workspaceId: Schema.String,
  channelId: Schema.String
})
type PublishJobRow = typeof PublishJobRow.Type
const decodeJobs = Schema.decodeUnknown(Schema.Array(PublishJobRow))
const encodeJob = Schema.encodeSync(PublishJobJson)

/** The PUBLISH message id of a claim: the stream drops a repeat of it. */
export const publishMessageId = (job: { readonly itemId: string; readonly claim: number }) => `${job.itemId}:${job.claim}`

/** A new claim's job is left to its claimer this long before the sweeper publishes it too. */
export const ENQUEUE_GRACE_MS = 5_000

/** Puts one job on PUBLISH and records JetStream's acknowledgement (with the message's sequence). */
const enqueue = (job: PublishJobRow) =>
  Effect.gen(function* () {
    const nats = yield* Nats
    const sql = yield* SqlClient.SqlClient
    const h = natsHeaders()
    h.set("Nats-Msg-Id", publishMessageId(job))
    const ack = yield* Effect.tryPromise(() =>
      nats.jetstream.publish(nats.names.publishSubject(job.channelId), encodeJob({ itemId: job.itemId, workspaceId: job.workspaceId }), { headers: h })
    )
    yield* sql`UPDATE publish_jobs SET enqueued_at = coalesce(enqueued_at, now()), stream_sequence = ${ack.seq}
      WHERE item_id = ${job.itemId} AND claim = ${job.claim}`
  })

/** Enqueues each job; one that fails stays unacknowledged for the sweeper. */
const enqueueAll = (jobs: ReadonlyArray<PublishJobRow>) =>
  Effect.forEach(
    jobs,
    (job) => enqueue(job).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`publish job ${publishMessageId(job)} not enqueued; the sweeper retries`, cause))),
    { discard: true }
  )

const BillingRow = Schema.Struct({
  id: Schema.String,
  billingState: Schema.Literal("active", "past_due", "grace_over", "ended"),
  pastDueSince: Schema.NullOr(Schema.DateFromSelf)
})

/**
 * Holds the due items of workspaces whose publishing billing pauses, and releases the held
 * items of workspaces that may publish again (domain/billing.ts decides which).
 */
const applyBillingHolds = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const now = new Date(yield* Clock.currentTimeMillis)
  const workspaces = yield* sql`
    SELECT DISTINCT w.id, w.billing_state, w.past_due_since
    FROM workspaces w JOIN post_items i ON i.workspace_id = w.id
    WHERE (i.status = 'queued' AND i.due_at <= now() AND i.held IS NULL) OR i.held = 'billing'`.pipe(
    Effect.flatMap(Schema.decodeUnknown(Schema.Array(BillingRow)))
  )
  const paused = workspaces.filter((w) => publishingPaused(w.billingState, w.pastDueSince, now)).map((w) => w.id)
  const publishing = workspaces.filter((w) => !paused.includes(w.id)).map((w) => w.id)
  if (paused.length > 0) {
    yield* sql`UPDATE post_items SET held = 'billing', held_at = coalesce(held_at, now())
      WHERE workspace_id IN ${sql.in(paused)} AND status = 'queued' AND due_at <= now() AND held IS NULL`
  }
  if (publishing.length > 0) {
    yield* sql`UPDATE post_items SET held = NULL, held_at = NULL WHERE workspace_id IN ${sql.in(publishing)} AND held = 'billing'`
  }
})

/**
 * Claims due items (FOR UPDATE SKIP LOCKED, so schedulers share the work), marks them
 * publishing, writes their jobs and, after commit, puts the jobs on PUBLISH. Workspaces
 * whose publishing is paused by billing are skipped: their items wait, marked held.
 */
export const claimDueItems = (batch = 100) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* applyBillingHolds
        const rows = yield* sql`
          WITH due AS (
            SELECT i.id FROM post_items i JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL
            WHERE i.status = 'queued' AND i.due_at <= now() AND i.held IS NULL
            ORDER BY i.due_at LIMIT ${batch} FOR UPDATE OF i SKIP LOCKED)
          UPDATE post_items i SET status = 'publishing', claimed_at = now(), attempts = i.attempts + 1
          FROM due, posts p WHERE i.id = due.id AND p.id = i.post_id
          RETURNING i.id AS item_id, i.attempts AS claim, i.workspace_id, p.channel_id, i.position, i.post_id`.pipe(
          Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.extend(PublishJobRow, Schema.Struct({ position: Schema.Number, postId: Schema.String })))))
        )
        if (rows.length === 0) return []
        const roots = rows.filter((r) => r.position === 0).map((r) => r.postId)
        if (roots.length > 0) {
          yield* sql`UPDATE posts SET status = 'publishing', attempts = attempts + 1, updated_at = now() WHERE id IN ${sql.in(roots)} AND status = 'queued'`
        }
        const jobs = rows.map(({ channelId, claim, itemId, workspaceId }) => ({ itemId, claim, workspaceId, channelId }))
        yield* sql`INSERT INTO publish_jobs ${sql.insert(jobs)} ON CONFLICT DO NOTHING`
        return jobs
      })
    )
    yield* enqueueAll(jobs)
    return jobs.length
  })

/**
 * Jobs whose enqueue JetStream never acknowledged (the publish failed, or the process died
 * between commit and publish) are published again under the same message id.
 */
export const enqueueUnacknowledgedJobs = (options: { readonly graceMs?: number; readonly batch?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const jobs = yield* sql`
          SELECT item_id, claim, workspace_id, channel_id FROM publish_jobs
          WHERE enqueued_at IS NULL AND created_at < now() - ${options.graceMs ?? ENQUEUE_GRACE_MS} * interval '1 millisecond'
          ORDER BY created_at LIMIT ${options.batch ?? 100} FOR UPDATE SKIP LOCKED`.pipe(Effect.flatMap(decodeJobs))
        yield* enqueueAll(jobs)
        return jobs.length
      })
    )
  })

/** Whether the stream still holds the message of a job (same sequence and message id); unknown on other errors. */
const stillInStream = (job: PublishJobRow, sequence: number) =>
  Effect.gen(function* () {
    const nats = yield* Nats
    return yield* Effect.tryPromise({
      try: async () => {
        try {
          const stored = await nats.manager.streams.getMessage(nats.names.publishStream, { seq: sequence })
          return stored.header?.get("Nats-Msg-Id") === publishMessageId(job) ? ("present" as const) : ("gone" as const)
        } catch (e) {
          if ((e as { api_error?: { err_code?: number } }).api_error?.err_code === 10037) return "gone" as const
          throw e
        }
      },
      catch: (cause) => cause
    }).pipe(Effect.orElseSucceed(() => "unknown" as const))
  })

/**
 * Claims again the items whose job left PUBLISH without settling them: the stream is a work
 * queue, so an enqueued job's message is gone only once a publisher acknowledged or
 * terminated it, and a publisher acknowledges only after the item left `publishing` (or
 * was not publishing). A message gone while the item is still publishing under that claim
 * was lost (nats-server 2.9 can lose acknowledged writes on an OS crash) or settled without
 * an outcome. The new claim's job makes the publisher search if an attempt is open.
 */
export const requeueLostJobs = (options: { readonly minAgeMs?: number; readonly batch?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const candidates = yield* sql`
      SELECT j.item_id, j.claim, j.workspace_id, j.channel_id, j.stream_sequence
      FROM publish_jobs j JOIN post_items i ON i.id = j.item_id
      WHERE i.status = 'publishing' AND i.attempts = j.claim AND j.enqueued_at IS NOT NULL
        AND j.enqueued_at < now() - ${options.minAgeMs ?? 15_000} * interval '1 millisecond'
      ORDER BY j.enqueued_at LIMIT ${options.batch ?? 200}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(Schema.extend(PublishJobRow, Schema.Struct({ streamSequence: Schema.NullOr(Schema.Number) })))))
    )
    const lost: Array<PublishJobRow> = []
    for (const job of candidates) {
      if (job.streamSequence === null || (yield* stillInStream(job, job.streamSequence)) === "gone") lost.push(job)
    }
    if (lost.length === 0) return 0
    const reclaimed = yield* sql.withTransaction(
      Effect.forEach(lost, (job) =>
        Effect.gen(function* () {
          // the item decides: if its job settled it meanwhile, nothing is claimed again
          const rows = yield* sql<{ attempts: number }>`
            UPDATE post_items SET attempts = attempts + 1, claimed_at = now()
            WHERE id = ${job.itemId} AND status = 'publishing' AND attempts = ${job.claim} RETURNING attempts`
          const claim = rows[0]?.attempts
          if (claim === undefined) return []
          const next = { itemId: job.itemId, claim, workspaceId: job.workspaceId, channelId: job.channelId }
          yield* sql`INSERT INTO publish_jobs ${sql.insert(next)} ON CONFLICT DO NOTHING`
          yield* Effect.logWarning(`publish job ${publishMessageId(job)} left the stream without settling its item; claimed again`)
          return [next]
        })
      ).pipe(Effect.map((jobs) => jobs.flat()))
    )
    yield* enqueueAll(reclaimed)
    return reclaimed.length
  })
