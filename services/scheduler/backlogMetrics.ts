import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { observeDueItemsWaiting, observeOutboxLag, scrapeWith } from "../platform/metrics.js"
import * as OutboxRepo from "../platform/outboxRepo.js"
import { makeDueItemsRepo } from "./dueItemsRepo.js"

/**
 * The scheduler's backlog on /metrics, asked of Postgres when scraped: items due and not
 * claimed yet (scheduler_due_items_waiting) and the age of the oldest event the outbox
 * has not published yet (outbox_lag_seconds). Both are the database's, so any scheduler
 * replica answers the same.
 */
export const BacklogMetricsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const dueItems = yield* makeDueItemsRepo
    const scrape = scrapeWith(yield* Effect.runtime<never>())
    observeDueItemsWaiting(scrape(dueItems.waitingCount))
    observeOutboxLag(scrape(OutboxRepo.lagSeconds.pipe(Effect.provideService(SqlClient.SqlClient, sql))))
  })
)
