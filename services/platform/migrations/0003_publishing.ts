import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Publishing attempts (recorded before the network is called) and the test network's own store. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE post_items ADD COLUMN claimed_at timestamptz;
CREATE INDEX post_items_publishing ON post_items (claimed_at) WHERE status = 'publishing';

-- one row per call to a network; an attempt without an outcome means "we may have sent it"
CREATE TABLE publish_attempts (
  id uuid PRIMARY KEY,
  item_id uuid NOT NULL REFERENCES post_items(id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL,
  attempt integer NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  outcome text CHECK (outcome IN ('published','rejected','unconfirmed','found','not_found')),
  release_id text,
  release_url text,
  error jsonb,
  UNIQUE (item_id, attempt)
);

-- what the built-in test network holds: it publishes nowhere else
CREATE TABLE test_network_posts (
  id uuid PRIMARY KEY,
  channel_id uuid NOT NULL,
  item_id uuid NOT NULL,
  content text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX test_network_posts_item ON test_network_posts (item_id);
`)
})
