import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { observeDueItemsWaiting, observeOutboxLag, scrapeWith } from "../platform/metrics.js"

/**
 * The scheduler's backlog on /metrics, asked of Postgres when scraped: items due and not
 * claimed yet (scheduler_due_items_waiting) and the age of the oldest event the outbox
 * has not published yet (outbox_lag_seconds). Both are the database's, so any scheduler
 * replica answers the same.
 */
export const BacklogMetricsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scrape = scrapeWith(yield* Effect.runtime<never>())
    observeDueItemsWaiting(
      scrape(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM post_items WHERE status = 'queued' AND due_at <= now() AND held IS NULL`.pipe(
          Effect.map((rows) => rows[0]?.n ?? 0)
        )
      )
    )
    observeOutboxLag(
      scrape(
        sql<{ lag: number }>`
          SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS lag FROM outbox WHERE published_at IS NULL`.pipe(
          Effect.map((rows) => rows[0]?.lag ?? 0)
        )
      )
    )
  })
)
