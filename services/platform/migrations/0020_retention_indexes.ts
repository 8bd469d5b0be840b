import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Retention (docs/operations.md, "Retention"): the pruning jobs find what a rule lets go by
 * age, oldest first, a batch at a time. These tables had no index on the age the rule reads,
 * so each batch would scan the whole table: notifications by created_at (90 days),
 * short-link click batches by flushed_at (7 days), publish attempts by finished_at (an
 * item's attempts go together, 90 days after its last one finished; open attempts never),
 * publish jobs by enqueued_at (a day after JetStream took them, once their claim is over).
 * IF NOT EXISTS: an operator with large tables may build them first with CREATE INDEX
 * CONCURRENTLY (docs/operations.md, "Retention"), as this transaction holds their writes
 * while it builds. Number 20, not 19: 19 was left to a change built at the same time.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE INDEX IF NOT EXISTS notifications_age ON notifications (created_at);
CREATE INDEX IF NOT EXISTS short_link_flushes_age ON short_link_flushes (flushed_at);
CREATE INDEX IF NOT EXISTS publish_attempts_finished ON publish_attempts (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS publish_jobs_enqueued ON publish_jobs (enqueued_at) WHERE enqueued_at IS NOT NULL;
`)
})
