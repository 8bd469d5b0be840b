import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { removedCount } from "../platform/pruning.js"

/** actor_payloads: commands and answers passed by id. SQL only. */
export const makeActorPayloadsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insert = (id: string, body: string) => sql`INSERT INTO actor_payloads ${sql.insert({ id, body })}`.pipe(Effect.asVoid)
  const get = (id: string) =>
    sql<{ body: string }>`SELECT body FROM actor_payloads WHERE id = ${id}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.body)))
  const remove = (id: string) => sql`DELETE FROM actor_payloads WHERE id = ${id}`.pipe(Effect.asVoid)
  /** Removes up to `limit` payloads older than `seconds` that nobody came for (a gateway that gave up, a crash). */
  const pruneBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM actor_payloads WHERE id IN (
          SELECT id FROM actor_payloads WHERE created_at < now() - make_interval(secs => ${seconds})
          ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))
  return { insert, get, remove, pruneBatch }
})
