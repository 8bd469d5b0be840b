import { SqlClient } from "@effect/sql"
import { Context, Data, Effect, Layer, Option } from "effect"
import { currentTraceparent } from "../platform/tracing.js"

/**
 * The lease a command runs under (DESIGN: every write is fenced by the lease's epoch) and
 * the command's own id (a retried or buffered copy runs once). Provided by the actor host
 * for each command; the actor side's transactions check both.
 */
export class CurrentLease extends Context.Tag("actors/CurrentLease")<CurrentLease, { readonly shard: number; readonly epoch: number }>() {}
export class CurrentCommand extends Context.Tag("actors/CurrentCommand")<CurrentCommand, { readonly workspaceId: string; readonly commandId: string }>() {}

/** The shard's epoch is no longer this host's: it must not commit, and says so instead of answering. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{ readonly shard: number }> {}
/** The command committed already (another owner, an earlier copy): its answer is replayed. */
export class AlreadyRan extends Data.TaggedError("AlreadyRan")<{ readonly commandId: string }> {}

/** Shard epochs and the command log. SQL only. */
export const makeFenceStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Takes the shard: its epoch goes up by one and is this host's. Waits (bounded) for a
   * write of the previous owner that is still under way; then that owner can commit no more.
   */
  const claim = (shard: number, host: string) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SET LOCAL lock_timeout = '3s'`
        const rows = yield* sql<{ epoch: number }>`
          INSERT INTO shard_fences (shard, epoch, host) VALUES (${shard}, 1, ${host})
          ON CONFLICT (shard) DO UPDATE SET epoch = shard_fences.epoch + 1, host = EXCLUDED.host, taken_at = now()
          RETURNING epoch`
        const epoch = rows[0]?.epoch
        if (epoch === undefined) return yield* Effect.dieMessage("no epoch returned")
        return epoch
      })
    )

  /** In the caller's transaction: the lease still holds (FOR SHARE: a new owner's claim waits for this commit). */
  const check = (shard: number, epoch: number) =>
    Effect.flatMap(currentTraceparent, (traceparent) =>
      (traceparent === null
        ? sql<{ epoch: number }>`SELECT epoch FROM shard_fences WHERE shard = ${shard} FOR SHARE`
        : // tracing on: the rows this transaction writes keep its trace (trace_parent defaults, migration 0012)
          sql<{ epoch: number }>`SELECT epoch, set_config('app.trace_parent', ${traceparent}, true) FROM shard_fences WHERE shard = ${shard} FOR SHARE`
      ).pipe(Effect.flatMap((rows) => (rows[0]?.epoch === epoch ? Effect.void : Effect.fail(new LeaseLost({ shard })))))
    )

  /**
   * In the caller's transaction, after the command's work: records the command with what it
   * produced (to answer a copy from); AlreadyRan when it committed before, and the caller's
   * transaction rolls back.
   */
  const record = (workspaceId: string, commandId: string, answer: unknown) =>
    sql`
      INSERT INTO command_log (workspace_id, command_id, answer) VALUES (${workspaceId}, ${commandId}, ${JSON.stringify(answer)})
      ON CONFLICT DO NOTHING RETURNING command_id`.pipe(
      Effect.flatMap((rows) => (rows.length > 0 ? Effect.void : Effect.fail(new AlreadyRan({ commandId }))))
    )

  /** Whether the command committed, with its kept answer (null when it keeps none). */
  const find = (workspaceId: string, commandId: string) =>
    sql<{ answer: unknown }>`SELECT answer FROM command_log WHERE workspace_id = ${workspaceId} AND command_id = ${commandId}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  /** Commands are sent again within seconds; their records are kept an hour. */
  const expire = (before: Date) => sql`DELETE FROM command_log WHERE created_at < ${before}`.pipe(Effect.asVoid)

  return { claim, check, record, find, expire }
})

export class FenceStore extends Context.Tag("actors/FenceStore")<FenceStore, Effect.Effect.Success<typeof makeFenceStore>>() {
  static readonly Live = Layer.effect(FenceStore, makeFenceStore)
}
