import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Real networks (README: Networks):
 * - network_apps: this server's app registration per network server (Mastodon registers
 *   an app on each instance with POST /api/v1/apps); the client secret encrypted;
 * - channels.account_id: the network's own id of the connected account, so connecting the
 *   same account again updates its channel instead of adding a second one;
 * - channels.default_settings: settings the connection already answers (a Discord channel
 *   connected with its channel id needs no `channel` setting on each post);
 * - post_items.search_first: an unconfirmed item queued again by POST /posts/{id}/retry
 *   asks the network first and is linked instead of sent when the post is there.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE network_apps (
  network text NOT NULL,
  instance text NOT NULL,
  redirect_uri text NOT NULL,
  client_id text NOT NULL,
  -- AES-256-GCM with SECRET_KEY
  client_secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network, instance, redirect_uri)
);

ALTER TABLE channels ADD COLUMN account_id text;
ALTER TABLE channels ADD COLUMN default_settings jsonb NOT NULL DEFAULT '{}';
ALTER TABLE post_items ADD COLUMN search_first boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX channels_one_per_account ON channels (workspace_id, network, account_id)
  WHERE deleted_at IS NULL AND account_id IS NOT NULL;
`)
})
