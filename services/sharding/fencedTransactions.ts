import { Effect, Layer, Option } from "effect"
import { outboxStatements, outboxTransactions, Transactions, type Fence } from "../platform/transactions.js"
import { AlreadyRan, CurrentCommand, CurrentLease, FenceStore, LeaseLost } from "./fencing.js"

/**
 * The actor host's transactions: an outbox transaction (events after commit) that first
 * checks the command's lease epoch (a host that lost its shard cannot commit) and last
 * records the command's id with what the transaction produced (a copy of a command that
 * committed cannot commit again, and is answered from the record). Both refusals are
 * defects here: the host answers them (NotOwner, or a replay), never as the command's result.
 */
export const FencedTransactions = Layer.effect(
  Transactions,
  Effect.gen(function* () {
    const inTransaction = yield* outboxTransactions
    const fences = yield* FenceStore
    const fenced = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const lease = yield* Effect.serviceOption(CurrentLease)
        const command = yield* Effect.serviceOption(CurrentCommand)
        if (Option.isSome(lease)) yield* fences.check(lease.value.shard, lease.value.epoch).pipe(Effect.orDie)
        const result = yield* effect
        // one statement, at the end: the record and what to answer a copy with (a conflict rolls it all back)
        if (Option.isSome(command)) yield* fences.record(command.value.workspaceId, command.value.commandId, result ?? null).pipe(Effect.orDie)
        return result
      })
    // a one-statement write checks the same epoch and records the same command in its statement
    const fenceOf = Effect.all({ lease: Effect.serviceOption(CurrentLease), command: Effect.serviceOption(CurrentCommand) }).pipe(
      Effect.map(({ command, lease }): Fence => ({ lease: Option.getOrNull(lease), command: Option.getOrNull(command) }))
    )
    const statement = yield* outboxStatements(fenceOf, {
      leaseLost: (fence) => new LeaseLost({ shard: fence.lease?.shard ?? -1 }),
      alreadyRan: (fence) => new AlreadyRan({ commandId: fence.command?.commandId ?? "" })
    })
    return { run: (effect) => inTransaction(fenced(effect)), statement }
  })
).pipe(Layer.provide(FenceStore.Live))
