import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Publishes that take several steps on the network (docs/publishing.md, "Publishes in
 * several steps"): containers that are created, processed, then published; uploads in
 * chunks; an account's daily cap.
 *
 * `post_items.network_progress`: the adapter's own record of where the item's publish
 * stands on the network (a container id, an upload session's address), written with the
 * attempt that learned it, so the next step continues it and never starts a second copy.
 * `post_items.waiting_for`: what a held item (`held` = 'processing' or 'network-limit')
 * waits for, in plain language.
 *
 * `pending`: an attempt that left the item not live yet, with nothing wrong (the network
 * is processing, or the cap is full); like `rate_limited` it is not a failure.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE post_items ADD COLUMN network_progress jsonb;
ALTER TABLE post_items ADD COLUMN waiting_for text;

ALTER TABLE publish_attempts DROP CONSTRAINT publish_attempts_outcome_check;
ALTER TABLE publish_attempts ADD CONSTRAINT publish_attempts_outcome_check
  CHECK (outcome IN ('published','rejected','unconfirmed','found','not_found','rate_limited','not_sent','pending'));
`)
})
