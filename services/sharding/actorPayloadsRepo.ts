import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"

/** actor_payloads: commands and answers passed by id. SQL only. */
export const makeActorPayloadsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insert = (id: string, body: string) => sql`INSERT INTO actor_payloads ${sql.insert({ id, body })}`.pipe(Effect.asVoid)
  const get = (id: string) =>
    sql<{ body: string }>`SELECT body FROM actor_payloads WHERE id = ${id}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.body)))
  const remove = (id: string) => sql`DELETE FROM actor_payloads WHERE id = ${id}`.pipe(Effect.asVoid)
  const expire = (before: Date) => sql`DELETE FROM actor_payloads WHERE created_at < ${before}`.pipe(Effect.asVoid)
  return { insert, get, remove, expire }
})
