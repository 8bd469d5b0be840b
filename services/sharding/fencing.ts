import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Data, Effect, Layer, Option } from "effect"
import { makeCommandLogRepo } from "./commandLogRepo.js"
import { makeShardFencesRepo } from "./shardFencesRepo.js"

/**
 * The lease a command runs under (docs/architecture.md: every write is fenced by the lease's
 * epoch) and the command's own id (a retried or buffered copy runs once). Provided by the
 * actor host for each command; the actor side's transactions check both.
 */
export class CurrentLease extends Context.Tag("sharding/CurrentLease")<CurrentLease, { readonly shard: number; readonly epoch: number }>() {}
export class CurrentCommand extends Context.Tag("sharding/CurrentCommand")<
  CurrentCommand,
  { readonly workspaceId: string; readonly commandId: string }
>() {}

/** The shard's epoch is no longer this host's: it must not commit, and says so instead of answering. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{ readonly shard: number }> {}
/** The command committed already (another owner, an earlier copy): its answer is replayed. */
export class AlreadyRan extends Data.TaggedError("AlreadyRan")<{ readonly commandId: string }> {}

/** Shard epochs and the command log. */
export interface FenceStoreShape {
  /**
   * Takes the shard: its epoch goes up by one and is this host's. Waits (bounded) for a
   * write of the previous owner that is still under way; then that owner can commit no more.
   */
  readonly claim: (shard: number, host: string) => Effect.Effect<number, SqlError>
  /** In the caller's transaction: the lease still holds (a new owner's claim waits for this commit). */
  readonly check: (shard: number, epoch: number) => Effect.Effect<void, LeaseLost | SqlError>
  /**
   * In the caller's transaction, after the command's work: records the command with what it
   * produced (to answer a copy from); AlreadyRan when it committed before, and the caller's
   * transaction rolls back.
   */
  readonly record: (workspaceId: string, commandId: string, answer: unknown) => Effect.Effect<void, AlreadyRan | SqlError>
  /** Whether the command committed, with its kept answer (null when it keeps none). */
  readonly find: (workspaceId: string, commandId: string) => Effect.Effect<Option.Option<{ readonly answer: unknown }>, SqlError>
}

/** The store on Postgres: shard_fences and command_log. */
export const makeFenceStore: Effect.Effect<FenceStoreShape, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const fences = yield* makeShardFencesRepo
  const log = yield* makeCommandLogRepo
  return {
    claim: fences.raise,
    check: (shard, epoch) =>
      Effect.flatMap(fences.lockedEpoch(shard), (current) => (current === epoch ? Effect.void : Effect.fail(new LeaseLost({ shard })))),
    record: (workspaceId, commandId, answer) =>
      Effect.flatMap(log.insert(workspaceId, commandId, answer), (inserted) => (inserted ? Effect.void : Effect.fail(new AlreadyRan({ commandId })))),
    find: log.find
  }
})

/**
 * The store in memory, for tests of the engine without Postgres: the same epochs and
 * records, with no transaction to roll back (a refused record writes nothing).
 */
export const makeMemoryFenceStore = (): FenceStoreShape => {
  const epochs = new Map<number, number>()
  const log = new Map<string, { readonly answer: unknown; readonly at: number }>()
  const key = (workspaceId: string, commandId: string) => `${workspaceId}:${commandId}`
  return {
    claim: (shard) =>
      Effect.sync(() => {
        const epoch = (epochs.get(shard) ?? 0) + 1
        epochs.set(shard, epoch)
        return epoch
      }),
    check: (shard, epoch) => Effect.suspend(() => (epochs.get(shard) === epoch ? Effect.void : Effect.fail(new LeaseLost({ shard })))),
    record: (workspaceId, commandId, answer) =>
      Effect.suspend(() => {
        const k = key(workspaceId, commandId)
        if (log.has(k)) return Effect.fail(new AlreadyRan({ commandId }))
        // kept as it would come back from the JSON column
        log.set(k, { answer: JSON.parse(JSON.stringify(answer ?? null)), at: Date.now() })
        return Effect.void
      }),
    find: (workspaceId, commandId) => Effect.sync(() => Option.fromNullable(log.get(key(workspaceId, commandId))))
  }
}

export class FenceStore extends Context.Tag("sharding/FenceStore")<FenceStore, FenceStoreShape>() {
  static readonly Live = Layer.effect(FenceStore, makeFenceStore)
  static readonly Memory = Layer.sync(FenceStore, makeMemoryFenceStore)
}
