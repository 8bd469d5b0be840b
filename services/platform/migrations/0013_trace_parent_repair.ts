import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The trace_parent columns for a database that ran 0012 before they were added to it
 * (0012 was edited once on main, which is why migrations now never are: docs/house-rules.md,
 * "Migrations"). Everywhere else they exist already and this changes nothing.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE post_items ADD COLUMN IF NOT EXISTS trace_parent text DEFAULT nullif(current_setting('app.trace_parent', true), '');
ALTER TABLE outbox ADD COLUMN IF NOT EXISTS trace_parent text DEFAULT nullif(current_setting('app.trace_parent', true), '');
`)
})
