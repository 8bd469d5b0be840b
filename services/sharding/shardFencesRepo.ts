import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { currentTraceparent } from "../platform/tracing.js"

/** shard_fences: each shard's epoch and the host that raised it last. SQL only. */
export const makeShardFencesRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Raises the shard's epoch by one and returns it. Waits (bounded) for a write of the
   * previous owner that is still under way (it holds the row FOR SHARE).
   */
  const raise = (shard: number, host: string) =>
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

  /** In the caller's transaction: the shard's epoch, its row locked FOR SHARE (a raise waits for this commit). */
  const lockedEpoch = (shard: number) =>
    Effect.flatMap(currentTraceparent, (traceparent) =>
      traceparent === null
        ? sql<{ epoch: number }>`SELECT epoch FROM shard_fences WHERE shard = ${shard} FOR SHARE`
        : // tracing on: the rows this transaction writes keep its trace (trace_parent defaults, migration 0012)
          sql<{
            epoch: number
          }>`SELECT epoch, set_config('app.trace_parent', ${traceparent}, true) FROM shard_fences WHERE shard = ${shard} FOR SHARE`
    ).pipe(Effect.map((rows) => rows[0]?.epoch))

  return { raise, lockedEpoch }
})
