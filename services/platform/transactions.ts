import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
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
 * The SqlClient (and NATS, when the process has it) captured where a runner is built,
 * provided to an effect; a SqlError left is a defect (a failed BEGIN, COMMIT or statement:
 * the work is not known to be saved). Only the outbox collector is left to the caller.
 */
const capturedServices = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const nats = yield* Effect.serviceOption(Nats)
  // both in one context: provided with one copy of the caller's context, not one per service
  const captured: Context.Context<SqlClient.SqlClient> = Option.match(nats, {
    onNone: () => Context.make(SqlClient.SqlClient, sql),
    onSome: (n) => Context.make(SqlClient.SqlClient, sql).pipe(Context.add(Nats, n))
  })
  return <A, E, R>(effect: Effect.Effect<A, E, R>) => {
    const withServices = effect.pipe(
      Effect.catchIf(
        (e): e is Extract<typeof e, { readonly _tag: "SqlError" }> => typeof e === "object" && e !== null && "_tag" in e && e._tag === "SqlError",
        Effect.die
      ),
      Effect.provide(captured)
    )
    // the services provided here were captured at build time
    return withServices as Effect.Effect<A, Exclude<E, SqlError>, Exclude<R, SqlClient.SqlClient | Nats>>
  }
})

/** Runs effects in an outbox transaction with the services captured where this is built. */
export const outboxTransactions = Effect.map(
  capturedServices,
  (provide): Run =>
    (effect) =>
      provide(Outbox.transaction(effect))
)

/**
 * Runs a one-statement write (see Fence) with the services captured here: its tracked
 * outbox rows are published after it, as after a transaction. Refusals of the fence are
 * defects for `refuse` to name (the actor host's LeaseLost, AlreadyRan).
 */
export const outboxStatements = (
  fenceOf: Effect.Effect<Fence>,
  refuse: { readonly leaseLost: (fence: Fence) => unknown; readonly alreadyRan: (fence: Fence) => unknown }
) =>
  Effect.map(
    capturedServices,
    (provide): Statement =>
      (write) =>
        provide(
          Outbox.statement(
            Effect.flatMap(fenceOf, (fence) =>
              Effect.flatMap(write(fence), (outcome) =>
                !outcome.leaseHeld
                  ? Effect.die(refuse.leaseLost(fence))
                  : outcome.wentAhead && !outcome.recorded
                    ? Effect.die(refuse.alreadyRan(fence))
                    : Effect.succeed(outcome.value)
              )
            )
          )
        )
  )

/**
 * One Postgres transaction around a feature service's work: rows, activity and the outbox
 * rows of its events commit together, and the events go to EVENTS right after the commit
 * (Outbox.transaction). A service of its own so feature services hold no SqlClient and
 * their Test layers run without a database; the actor host provides a fenced one.
 * `statement`: the same guarantees for a write done in one statement (Fence).
 */
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
    statement: (write) => Effect.map(Effect.provideService(write(noFence), Outbox.OutboxTransaction, { rowIds: [] }), (outcome) => outcome.value)
  })
}
