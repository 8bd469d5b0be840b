import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { removedCount } from "../platform/pruning.js"

/** command_log: the commands that committed, with what a copy is answered. SQL only. */
export const makeCommandLogRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Records the command with its answer; false when it was recorded before (nothing written). */
  const insert = (workspaceId: string, commandId: string, answer: unknown) =>
    sql`
      INSERT INTO command_log (workspace_id, command_id, answer) VALUES (${workspaceId}, ${commandId}, ${JSON.stringify(answer)})
      ON CONFLICT DO NOTHING RETURNING command_id`.pipe(Effect.map((rows) => rows.length > 0))

  const find = (workspaceId: string, commandId: string) =>
    sql<{ answer: unknown }>`SELECT answer FROM command_log WHERE workspace_id = ${workspaceId} AND command_id = ${commandId}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  /** Removes up to `limit` records older than `seconds` (the retention job); a copy of their command can no longer come. */
  const pruneBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM command_log WHERE (workspace_id, command_id) IN (
          SELECT workspace_id, command_id FROM command_log WHERE created_at < now() - make_interval(secs => ${seconds})
          ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return { insert, find, pruneBatch }
})
