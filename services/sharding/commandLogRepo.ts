import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

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

  const expire = (before: Date) => sql`DELETE FROM command_log WHERE created_at < ${before}`.pipe(Effect.asVoid)

  return { insert, find, expire }
})
