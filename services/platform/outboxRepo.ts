import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { NotificationType } from "../../domain/notifications.js"

/**
 * SQL of the outbox (migration 0001) and of the notifications its events imply: every
 * statement runs in the caller's transaction. The rules (when rows are written, published
 * and marked) are services/platform/outbox.ts.
 */

export const OutboxRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  event: Schema.String,
  data: Schema.Unknown,
  createdAt: Schema.DateFromSelf,
  traceParent: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null })
})
export type OutboxRow = typeof OutboxRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(OutboxRow))

/** An event row as written: `data` is its encoded JSON text. */
export type NewOutboxRow = {
  readonly id: string
  readonly workspaceId: string
  readonly event: string
  readonly data: string
}

/** A notification row as written (domain/notifications.ts notificationFor, with its ids). */
export type NewNotificationRow = {
  readonly id: string
  readonly workspaceId: string
  readonly type: NotificationType
  readonly title: string
  readonly body: string
  readonly link: string
}

export const insertEvents = (rows: ReadonlyArray<NewOutboxRow>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO outbox ${sql.insert(rows)}`)

/** The names of these channels of the workspace (a notification names its channel). */
export const channelNames = (workspaceId: string, channelIds: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: string; name: string }>`
            SELECT id, name FROM channels WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(channelIds)}`
  )

export const insertNotifications = (rows: ReadonlyArray<NewNotificationRow>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO notifications ${sql.insert(rows)}`)

/** These rows, those of them still unpublished (ids of a rolled-back savepoint find nothing). */
export const unpublished = (rowIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT id, workspace_id, event, data, created_at, trace_parent FROM outbox WHERE id IN ${sql.in(rowIds)} AND published_at IS NULL`.pipe(
      Effect.flatMap(decodeRows)
    )
  )

/** Marks rows published after a commit, unless the sweeper marked them meanwhile. */
export const markPublishedIfNot = (rowIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE outbox SET published_at = now() WHERE id IN ${sql.in(rowIds)} AND published_at IS NULL`)

/**
 * Up to `batch` rows unpublished for longer than `olderThanSeconds`, oldest first, locked
 * with FOR UPDATE SKIP LOCKED so sweepers on several replicas share them.
 */
export const claimLeftBehind = (olderThanSeconds: number, batch: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
          SELECT id, workspace_id, event, data, created_at, trace_parent FROM outbox
          WHERE published_at IS NULL AND created_at < now() - make_interval(secs => ${olderThanSeconds})
          ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`.pipe(Effect.flatMap(decodeRows))
  )

/** Marks rows the sweeper claimed (and holds locked) published. */
export const markPublished = (rowIds: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE outbox SET published_at = now() WHERE id IN ${sql.in(rowIds)}`)

/** The age in seconds of the oldest row not published yet (0 when none waits). */
export const lagSeconds = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ lag: number }>`
          SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS lag FROM outbox WHERE published_at IS NULL`.pipe(
    Effect.map((rows) => rows[0]?.lag ?? 0)
  )
)
