import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Channel health (docs/networks.md, "Channel health and expiry warnings"): the last call
 * that published, the last token refresh that asked the network and what it answered
 * (`refreshed`, `refused`, `unavailable`), and the token expiry already warned about with
 * `channel.expiring`, so each expiry is warned about once and a refreshed token's new
 * expiry can be warned about again.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE channels ADD COLUMN last_success_at timestamptz;
ALTER TABLE channels ADD COLUMN last_refresh_at timestamptz;
ALTER TABLE channels ADD COLUMN last_refresh_result text CHECK (last_refresh_result IN ('refreshed', 'refused', 'unavailable'));
ALTER TABLE channels ADD COLUMN expiry_warned_for timestamptz;
`)
})
