import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { EVENT_LOG_DAYS } from "../../domain/eventLog.js"

/**
 * SQL of the event log (migration 0016): the outbox's rows of one workspace in the order of
 * their sequence numbers, within the log's window.
 */

export const EventLogRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  /** bigint, read as text */
  sequence: Schema.NumberFromString,
  event: Schema.String,
  data: Schema.Unknown,
  /** The data as JSON text, exactly as stored (a replayed delivery sends it). */
  dataText: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type EventLogRow = typeof EventLogRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(EventLogRow))

export const makeEventLogRepo = Effect.map(SqlClient.SqlClient, (sql) => {
  /** Up to `limit` events of the workspace after `after`, oldest first, kept EVENT_LOG_DAYS. */
  const after = (workspaceId: string, after: number, limit: number) =>
    sql`
      SELECT id, workspace_id, sequence::text AS sequence, event, data, data::text AS data_text, created_at FROM outbox
      WHERE workspace_id = ${workspaceId} AND sequence > ${after}
        AND created_at > now() - make_interval(days => ${EVENT_LOG_DAYS})
      ORDER BY sequence LIMIT ${limit}`.pipe(Effect.flatMap(decodeRows))

  /** Forgets published events older than the log's window; answers how many. */
  const prune = sql`
      DELETE FROM outbox WHERE published_at IS NOT NULL AND created_at < now() - make_interval(days => ${EVENT_LOG_DAYS})`.raw.pipe(
    Effect.map((raw) => (typeof raw === "object" && raw !== null && "rowCount" in raw && typeof raw.rowCount === "number" ? raw.rowCount : 0))
  )

  return { after, prune }
})

export type EventLogRepo = Effect.Effect.Success<typeof makeEventLogRepo>
