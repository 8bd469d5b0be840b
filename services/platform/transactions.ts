import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { Nats } from "./nats.js"
import * as Outbox from "./outbox.js"

type Run = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, Exclude<R, Outbox.OutboxTransaction>>

/**
 * What a write done in ONE statement (data-modifying CTEs, no BEGIN/COMMIT) must check and
 * record itself, in that statement: the lease it runs under (its epoch, row locked FOR
 * SHARE, so a new owner's claim waits for it) and the command's id (a copy runs once).
 * Null outside the actor host.
 */
export interface Fence {
  readonly lease: { readonly shard: number; readonly epoch: number } | null
  readonly command: { readonly workspaceId: string; readonly commandId: string } | null
}

/**
 * What such a statement reports: whether the lease held, whether the work went ahead (false:
 * the caller's own condition refused it and nothing was written), whether the command's
 * record was written, and the caller's value.
 */
export interface FencedOutcome<A> {
  readonly leaseHeld: boolean
  readonly wentAhead: boolean
  readonly recorded: boolean
  readonly value: A
}

type Statement = <A, E, R>(
  write: (fence: Fence) => Effect.Effect<FencedOutcome<A>, E, R>
) => Effect.Effect<A, E, Exclude<R, Outbox.OutboxTransaction>>

const noFence: Fence = { lease: null, command: null }

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
/**
 * Runs a one-statement write (see Fence) with the SqlClient (and NATS) captured here: its
 * tracked outbox rows are published after it, as after a transaction. Refusals of the fence
 * are defects for `refuse` to name (the actor host's LeaseLost, AlreadyRan).
 */
export const outboxStatements = (
  fenceOf: Effect.Effect<Fence>,
  refuse: { readonly leaseLost: (fence: Fence) => unknown; readonly alreadyRan: (fence: Fence) => unknown }
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const nats = yield* Effect.serviceOption(Nats)
    const statement: Statement = (write) => {
      const checked = Effect.gen(function* () {
        const fence = yield* fenceOf
        const outcome = yield* write(fence)
        if (!outcome.leaseHeld) return yield* Effect.die(refuse.leaseLost(fence))
        if (outcome.wentAhead && !outcome.recorded) return yield* Effect.die(refuse.alreadyRan(fence))
        return outcome.value
      })
      const once = Outbox.statement(checked).pipe(
        Effect.catchIf(
          (e): e is Extract<typeof e, { readonly _tag: "SqlError" }> => typeof e === "object" && e !== null && "_tag" in e && e._tag === "SqlError",
          Effect.die
        ),
        Effect.provideService(SqlClient.SqlClient, sql)
      )
      const withNats = Option.match(nats, { onNone: () => once, onSome: (n) => Effect.provideService(once, Nats, n) })
      return withNats as Effect.Effect<Effect.Effect.Success<typeof withNats>, Exclude<Effect.Effect.Error<typeof withNats>, never>, never>
    }
    return statement
  })

export class Transactions extends Context.Tag("platform/Transactions")<Transactions, { readonly run: Run; readonly statement: Statement }>() {
  static readonly Live = Layer.effect(
    Transactions,
    Effect.all({
      run: outboxTransactions,
      statement: outboxStatements(Effect.succeed(noFence), {
        leaseLost: () => new Error("a statement without a lease reported a lost lease"),
        alreadyRan: () => new Error("a statement without a command reported it ran before")
      })
    })
  )
  /** No database: the effect runs as it is, with a collector whose rows nobody publishes. */
  static readonly Test = Layer.succeed(Transactions, {
    run: (effect) => Effect.provideService(effect, Outbox.OutboxTransaction, { rowIds: [] }),
    statement: (write) =>
      Effect.map(Effect.provideService(write(noFence), Outbox.OutboxTransaction, { rowIds: [] }), (outcome) => outcome.value)
  })
}
