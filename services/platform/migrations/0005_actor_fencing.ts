import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Fencing of actor hosts and commands that run once (DESIGN: Workspace actors):
 * - shard_fences: each shard's epoch, raised by a host when it takes the shard's lease;
 *   every write of a workspace's command checks (FOR SHARE) that the epoch is still its
 *   host's, in the same transaction, so a host that lost its lease can no longer commit
 *   and a new owner's raise waits for a write already under way;
 * - command_log: each command's id (given by the gateway) recorded in the transaction of
 *   its change, so a command sent again (a retry, a buffered copy) runs once;
 * - actor_payloads: commands and answers too large for a NATS message, passed by reference.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE shard_fences (
  shard integer PRIMARY KEY,
  epoch bigint NOT NULL,
  host text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE command_log (
  workspace_id uuid NOT NULL,
  command_id uuid NOT NULL,
  -- the answer to replay when it cannot be read again from the rows (POST /posts)
  answer json,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, command_id)
);
CREATE INDEX command_log_created ON command_log (created_at);

CREATE TABLE actor_payloads (
  id uuid PRIMARY KEY,
  body text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX actor_payloads_created ON actor_payloads (created_at);
`)
})
