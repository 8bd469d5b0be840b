import { Effect, Schema } from "effect"
import { retentionRowsRemoved } from "./metrics.js"

/**
 * Pruning a table that grows with traffic (docs/operations.md, "Retention"): a batch at a
 * time, each batch one short statement (its own transaction) that locks only the rows it
 * removes and skips rows another transaction holds (FOR UPDATE SKIP LOCKED), so no writer
 * waits on more than one batch of rows its rule already covers, and replicas running the
 * same job share the work instead of queueing behind each other.
 */
export interface PruneJob<E, R> {
  /** The table (the metric's label and the log's word). */
  readonly table: string
  /** Removes up to `limit` rows its rule lets go; answers how many. */
  readonly removeBatch: (limit: number) => Effect.Effect<number, E, R>
}

export interface PruneOptions {
  /** Rows per statement. */
  readonly batchSize: number
  /** Batches per run and table: a backlog (a first run on an old database) is cleared over several runs. */
  readonly maxBatches: number
  /** A pause between batches, so the job never holds the database's attention for long. */
  readonly pauseMs: number
}

/** Runs the job's batches until one comes back short (or `maxBatches`); answers the rows removed. */
export const pruneInBatches = <E, R>(job: PruneJob<E, R>, options: PruneOptions): Effect.Effect<number, E, R> => {
  const loop = (batches: number, removed: number): Effect.Effect<number, E, R> =>
    job.removeBatch(options.batchSize).pipe(
      Effect.tap((n) => Effect.sync(() => (n > 0 ? retentionRowsRemoved.inc({ table: job.table }, n) : undefined))),
      Effect.flatMap((n) =>
        n < options.batchSize || batches + 1 >= options.maxBatches
          ? Effect.succeed(removed + n)
          : Effect.sleep(options.pauseMs).pipe(Effect.zipRight(Effect.suspend(() => loop(batches + 1, removed + n))))
      )
    )
  return Effect.suspend(() => loop(0, 0))
}

/** The count a pruning statement answers (`SELECT count(*)::int AS n FROM gone`), decoded. */
const RemovedRows = Schema.Array(Schema.Struct({ n: Schema.Number }))
const decodeRemoved = Schema.decodeUnknown(RemovedRows)
export const removedCount = (rows: unknown) => Effect.map(decodeRemoved(rows), (r) => r[0]?.n ?? 0)
