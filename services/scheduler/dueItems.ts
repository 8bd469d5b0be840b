import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { headers as natsHeaders } from "nats"
import { PublishJobJson } from "../../protocol/jobs.js"
import { Nats } from "../platform/nats.js"

const Claimed = Schema.Array(
  Schema.Struct({ id: Schema.String, postId: Schema.String, position: Schema.Number, workspaceId: Schema.String, channelId: Schema.String, attempts: Schema.Number })
)
const encodeJob = Schema.encodeSync(PublishJobJson)

/** A claimed item whose job has not finished after this long is put on PUBLISH again. */
export const LOST_JOB_AFTER = "2 minutes"

const enqueue = (items: typeof Claimed.Type) =>
  Effect.gen(function* () {
    const nats = yield* Nats
    for (const item of items) {
      const h = natsHeaders()
      // the stream drops a repeat of the same claim; a new claim is a new message
      h.set("Nats-Msg-Id", `${item.id}:${item.attempts}`)
      yield* Effect.tryPromise(() =>
        nats.jetstream.publish(nats.names.publishSubject(item.channelId), encodeJob({ itemId: item.id, workspaceId: item.workspaceId }), { headers: h })
      )
    }
  })

/**
 * Claims due items (FOR UPDATE SKIP LOCKED, so schedulers share the work), marks them
 * publishing and puts a job on PUBLISH. Workspaces whose publishing is paused by
 * billing are skipped: their items wait, marked held.
 */
export const claimDueItems = (batch = 100) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const claimed = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`
          UPDATE post_items i SET held = 'billing', held_at = coalesce(i.held_at, now())
          FROM workspaces w
          WHERE w.id = i.workspace_id AND i.status = 'queued' AND i.due_at <= now() AND i.held IS NULL
            AND (w.billing_state IN ('ended', 'grace_over') OR (w.billing_state = 'past_due' AND w.past_due_since < now() - interval '7 days'))`
        yield* sql`
          UPDATE post_items i SET held = NULL, held_at = NULL
          FROM workspaces w
          WHERE w.id = i.workspace_id AND i.held = 'billing' AND w.billing_state IN ('active', 'past_due')
            AND (w.past_due_since IS NULL OR w.past_due_since >= now() - interval '7 days')`
        const rows = yield* sql`
          WITH due AS (
            SELECT i.id FROM post_items i JOIN posts p ON p.id = i.post_id AND p.deleted_at IS NULL
            WHERE i.status = 'queued' AND i.due_at <= now() AND i.held IS NULL
            ORDER BY i.due_at LIMIT ${batch} FOR UPDATE OF i SKIP LOCKED)
          UPDATE post_items i SET status = 'publishing', claimed_at = now(), attempts = i.attempts + 1
          FROM due, posts p WHERE i.id = due.id AND p.id = i.post_id
          RETURNING i.id, i.post_id, i.position, i.workspace_id, p.channel_id, i.attempts`.pipe(Effect.flatMap(Schema.decodeUnknown(Claimed)))
        const roots = rows.filter((r) => r.position === 0).map((r) => r.postId)
        if (roots.length > 0) {
          yield* sql`UPDATE posts SET status = 'publishing', attempts = attempts + 1, updated_at = now() WHERE id IN ${sql.in(roots)} AND status = 'queued'`
        }
        return rows
      })
    )
    yield* enqueue(claimed)
    return claimed.length
  })

/** Items claimed long ago whose job never finished (a lost message): enqueued again. */
export const requeueLostJobs = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql`
    UPDATE post_items i SET claimed_at = now(), attempts = i.attempts + 1
    FROM posts p
    WHERE p.id = i.post_id AND i.status = 'publishing' AND i.claimed_at < now() - ${LOST_JOB_AFTER}::interval
    RETURNING i.id, i.post_id, i.position, i.workspace_id, p.channel_id, i.attempts`.pipe(Effect.flatMap(Schema.decodeUnknown(Claimed)))
  yield* enqueue(rows)
  return rows.length
})
