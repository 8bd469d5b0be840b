import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"

/**
 * Commands and answers too large for a NATS message (protocol/actors.ts
 * INLINE_PAYLOAD_BYTES), kept in Postgres and passed by id. The reader of an answer
 * removes it; the gateway removes its request once answered; the scheduler removes what
 * nobody came for. SQL only.
 */
export const makeActorPayloads = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const put = (body: string) =>
    Effect.gen(function* () {
      const id = crypto.randomUUID()
      yield* sql`INSERT INTO actor_payloads ${sql.insert({ id, body })}`
      return id
    }).pipe(Effect.orDie)
  const get = (id: string) =>
    sql<{ body: string }>`SELECT body FROM actor_payloads WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]?.body)),
      Effect.orDie
    )
  const remove = (id: string) => sql`DELETE FROM actor_payloads WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
  /** Answers and commands nobody came for (a gateway that gave up, a crash). */
  const expire = (before: Date) => sql`DELETE FROM actor_payloads WHERE created_at < ${before}`.pipe(Effect.asVoid)
  return { put, get, remove, expire }
})

export class ActorPayloads extends Context.Tag("platform/ActorPayloads")<ActorPayloads, Effect.Effect.Success<typeof makeActorPayloads>>() {
  static readonly Live = Layer.effect(ActorPayloads, makeActorPayloads)
}
