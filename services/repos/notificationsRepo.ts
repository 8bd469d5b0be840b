import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { removedCount } from "../platform/pruning.js"

export const NotificationRow = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal("success", "fail", "info"),
  title: Schema.String,
  body: Schema.String,
  link: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type NotificationRow = typeof NotificationRow.Type

/** Notifications of a workspace (written with their events by the outbox writer). SQL only. */
export const makeNotificationsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  /** One page, newest first (ties by id, so pages never overlap). */
  const page = SqlSchema.findAll({
    Request: Schema.Struct({ workspaceId: Schema.String, limit: Schema.Number, offset: Schema.Number }),
    Result: NotificationRow,
    execute: ({ limit, offset, workspaceId }) => sql`
      SELECT id, type, title, body, link, created_at FROM notifications
      WHERE workspace_id = ${workspaceId}
      ORDER BY created_at DESC, id DESC
      LIMIT ${limit} OFFSET ${offset}`
  })
  /** Removes up to `limit` notifications older than `seconds` (the retention job, 90 days by default). */
  const pruneBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM notifications WHERE id IN (
          SELECT id FROM notifications WHERE created_at < now() - make_interval(secs => ${seconds})
          ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))
  return { page, pruneBatch }
})

export class NotificationsRepo extends Context.Tag("NotificationsRepo")<NotificationsRepo, Effect.Effect.Success<typeof makeNotificationsRepo>>() {
  static readonly Live = Layer.effect(NotificationsRepo, makeNotificationsRepo)
}
