import { SqlClient } from "@effect/sql"
import { Context, Effect, Exit, Layer } from "effect"

/** The one name: savepoints of this repository are never nested in each other, each is released before the next. */
const NAME = "one_of_many"

/**
 * A part of a larger transaction that may fail alone (a row of an import): run in a
 * savepoint, rolled back to it when it fails, and released at its end either way.
 *
 * Not `sql.withTransaction` nested, although @effect/sql makes that a savepoint too: it
 * never releases one, so each part stays open under the next, and every part that wrote
 * keeps the lock on its own transaction id until the commit. A 5000-row import then held
 * 5004 locks of the server's shared lock table (max_locks_per_transaction 64 × 100
 * connections), two such imports at once would exhaust it ("out of shared memory") for
 * every session, and 20000 did alone. A released savepoint hands its locks back.
 */
export const makeSavepointRepo = Effect.map(SqlClient.SqlClient, (sql) => {
  /**
   * Runs `part` in a savepoint of the caller's transaction and answers its Exit: on a
   * failure (typed, a refused statement, a defect) what it wrote is rolled back, the rest of
   * the transaction goes on. Fails (SqlError) only when the savepoint itself cannot be made,
   * rolled back to or released: then the whole transaction is lost.
   */
  const attempt = <A, E, R>(part: Effect.Effect<A, E, R>) =>
    Effect.uninterruptibleMask((restore) =>
      sql.unsafe(`SAVEPOINT ${NAME}`).pipe(
        Effect.zipRight(Effect.exit(restore(part))),
        Effect.tap((exit) =>
          Exit.isSuccess(exit)
            ? sql.unsafe(`RELEASE SAVEPOINT ${NAME}`)
            : sql.unsafe(`ROLLBACK TO SAVEPOINT ${NAME}`).pipe(Effect.zipRight(sql.unsafe(`RELEASE SAVEPOINT ${NAME}`)))
        )
      )
    )
  return { attempt }
})

export class SavepointRepo extends Context.Tag("platform/SavepointRepo")<SavepointRepo, Effect.Effect.Success<typeof makeSavepointRepo>>() {
  static readonly Live = Layer.effect(SavepointRepo, makeSavepointRepo)
  /** No database (Transactions.Test): a part runs as it is, and nothing it wrote is there to roll back. */
  static readonly Test = Layer.succeed(SavepointRepo, { attempt: <A, E, R>(part: Effect.Effect<A, E, R>) => Effect.exit(part) })
}
