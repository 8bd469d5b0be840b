import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Publishing job state written where it is decided, instead of guessed from the clock:
 * - an attempt carries a lease renewed while its job runs, so another delivery of the same
 *   item waits instead of concluding an attempt whose network answer is still coming;
 * - attempts that sent nothing (rate limited, failed before sending) are closed as such;
 * - one publish job per claim of an item, written in the claim transaction and marked
 *   enqueued once JetStream acknowledged it (with the message's stream sequence), so a
 *   sweeper re-enqueues exactly the claims whose job never reached or left the stream.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE publish_attempts ADD COLUMN lease_owner uuid, ADD COLUMN lease_until timestamptz;
ALTER TABLE publish_attempts DROP CONSTRAINT publish_attempts_outcome_check;
ALTER TABLE publish_attempts ADD CONSTRAINT publish_attempts_outcome_check
  CHECK (outcome IN ('published','rejected','unconfirmed','found','not_found','rate_limited','not_sent'));

CREATE TABLE publish_jobs (
  item_id uuid NOT NULL REFERENCES post_items(id) ON DELETE CASCADE,
  -- post_items.attempts when the item was claimed: one job per claim
  claim integer NOT NULL,
  workspace_id uuid NOT NULL,
  channel_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- JetStream acknowledged the message (null: the enqueue may not have happened)
  enqueued_at timestamptz,
  stream_sequence bigint,
  PRIMARY KEY (item_id, claim)
);
CREATE INDEX publish_jobs_not_enqueued ON publish_jobs (created_at) WHERE enqueued_at IS NULL;

-- items claimed before this table existed get a job the sweeper enqueues (deduplicated by id)
INSERT INTO publish_jobs (item_id, claim, workspace_id, channel_id)
  SELECT i.id, i.attempts, i.workspace_id, p.channel_id FROM post_items i JOIN posts p ON p.id = i.post_id
  WHERE i.status = 'publishing'
  ON CONFLICT DO NOTHING;
`)
})
