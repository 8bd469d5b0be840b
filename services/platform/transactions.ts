import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"

/**
 * One Postgres transaction around a feature service's work (rows, activity and outbox
 * commit together). A service of its own so feature services hold no SqlClient and their
 * Test layers run without a database.
 */
export class Transactions extends Context.Tag("platform/Transactions")<
  Transactions,
  { readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
>() {
  static readonly Live = Layer.effect(
    Transactions,
    Effect.map(SqlClient.SqlClient, (sql) => ({
      // a failed COMMIT or BEGIN is a defect: the work is not known to be saved
      run: <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.catchTag("SqlError", Effect.die))
    }))
  )
  /** No database: the effect runs as it is. */
  static readonly Test = Layer.succeed(Transactions, { run: (effect) => effect })
}
