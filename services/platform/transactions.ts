import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { Nats } from "./nats.js"
import * as Outbox from "./outbox.js"

type Run = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Outbox.OutboxTransaction>>

/**
 * Runs effects in an outbox transaction with the SqlClient (and NATS, when the process has
 * it) captured where this is built. A failed BEGIN or COMMIT is a defect: the work is not
 * known to be saved.
 */
export const outboxTransactions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const nats = yield* Effect.serviceOption(Nats)
  const run: Run = (effect) => {
    const inTransaction = Outbox.transaction(effect).pipe(
      Effect.catchIf(
        (e): e is Extract<typeof e, { readonly _tag: "SqlError" }> => typeof e === "object" && e !== null && "_tag" in e && e._tag === "SqlError",
        Effect.die
      ),
      Effect.provideService(SqlClient.SqlClient, sql)
    )
    const withNats = Option.match(nats, { onNone: () => inTransaction, onSome: (n) => Effect.provideService(inTransaction, Nats, n) })
    // the services provided here were captured at build time; only the outbox collector leaves the requirements
    return withNats as Effect.Effect<Effect.Effect.Success<typeof effect>, Effect.Effect.Error<typeof effect>, never>
  }
  return run
})

/**
 * One Postgres transaction around a feature service's work: rows, activity and the outbox
 * rows of its events commit together, and the events go to EVENTS right after the commit
 * (Outbox.transaction). A service of its own so feature services hold no SqlClient and
 * their Test layers run without a database; the actor host provides a fenced one.
 */
export class Transactions extends Context.Tag("platform/Transactions")<Transactions, { readonly run: Run }>() {
  static readonly Live = Layer.effect(
    Transactions,
    Effect.map(outboxTransactions, (inTransaction): { readonly run: Run } => ({ run: inTransaction }))
  )
  /** No database: the effect runs as it is, with a collector whose rows nobody publishes. */
  static readonly Test = Layer.succeed(Transactions, {
    run: (effect) => Effect.provideService(effect, Outbox.OutboxTransaction, { rowIds: [] })
  })
}
