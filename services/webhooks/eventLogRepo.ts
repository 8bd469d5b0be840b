import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { EVENT_LOG_DAYS } from "../../domain/eventLog.js"
import { removedCount } from "../platform/pruning.js"

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

  /**
   * Removes up to `limit` events older than `seconds` (the retention job, with the log's
   * 30 days): only events already on EVENTS (an unpublished one still waits for the
   * sweeper, whatever its age) and none a delivery still pending reads its sequence from.
   */
  const pruneBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM outbox WHERE id IN (
          SELECT o.id FROM outbox o
          WHERE o.published_at IS NOT NULL AND o.created_at < now() - make_interval(secs => ${seconds})
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.state = 'pending')
          ORDER BY o.created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return { after, pruneBatch }
})

export type EventLogRepo = Effect.Effect.Success<typeof makeEventLogRepo>
