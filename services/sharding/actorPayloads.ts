import type { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { makeActorPayloadsRepo } from "./actorPayloadsRepo.js"

/**
 * Commands and answers too large for a NATS message (protocol/actors.ts
 * INLINE_PAYLOAD_BYTES), kept aside and passed by id. The reader of an answer removes it;
 * the gateway removes its request once answered; the scheduler's retention job removes what
 * nobody came for (actorPayloadsRepo.ts pruneBatch).
 */
export interface ActorPayloadsShape {
  readonly put: (body: string) => Effect.Effect<string>
  readonly get: (id: string) => Effect.Effect<Option.Option<string>>
  readonly remove: (id: string) => Effect.Effect<void>
}

/** The payloads in Postgres (actor_payloads). */
export const makeActorPayloads: Effect.Effect<ActorPayloadsShape, never, SqlClient.SqlClient> = Effect.map(makeActorPayloadsRepo, (repo) => ({
  put: (body) =>
    Effect.suspend(() => {
      const id = crypto.randomUUID()
      return Effect.as(repo.insert(id, body), id)
    }).pipe(Effect.orDie),
  get: (id) => Effect.orDie(repo.get(id)),
  remove: (id) => Effect.orDie(repo.remove(id))
}))

/** The payloads in memory, for tests of the engine without Postgres. */
export const makeMemoryActorPayloads = () => {
  const bodies = new Map<string, { readonly body: string; readonly at: number }>()
  let written = 0
  const payloads: ActorPayloadsShape = {
    put: (body) =>
      Effect.sync(() => {
        written++
        const id = crypto.randomUUID()
        bodies.set(id, { body, at: Date.now() })
        return id
      }),
    get: (id) => Effect.sync(() => Option.map(Option.fromNullable(bodies.get(id)), (kept) => kept.body)),
    remove: (id) => Effect.sync(() => void bodies.delete(id))
  }
  return {
    payloads,
    /** How many payloads were ever put, and how many are kept now: what travelled by reference, and that it was removed. */
    written: () => written,
    kept: () => bodies.size
  }
}

export class ActorPayloads extends Context.Tag("sharding/ActorPayloads")<ActorPayloads, ActorPayloadsShape>() {
  static readonly Live = Layer.effect(ActorPayloads, makeActorPayloads)
}
