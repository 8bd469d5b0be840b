import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Webhooks (README: Webhooks):
 * - webhooks: a workspace's receivers; the secret encrypted with SECRET_KEY. Whether one
 *   is paused by the plan is not stored: it is derived from the plan and the webhook's
 *   rank by creation time, so a plan change pauses or resumes it without a write.
 * - webhook_deliveries: one per (event, webhook), inserted before the first attempt (the
 *   unique key makes a redelivered event a no-op); the next attempt's number and time are
 *   rows, so a restart keeps the schedule. `lease_until` claims it for one dispatcher;
 *   `started_at` marks an attempt under way, so an attempt cut off by a crash is logged.
 * - webhook_attempts: the delivery log, one row per attempt, kept 30 days.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL DEFAULT '{}',
  channel_ids text[] NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  -- AES-256-GCM with SECRET_KEY
  secret bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX webhooks_by_workspace ON webhooks (workspace_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  webhook_id uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  -- the outbox row; null for a Send Test
  event_id uuid,
  event text NOT NULL,
  data text NOT NULL,
  -- the number of the next (or running) attempt
  attempt integer NOT NULL DEFAULT 1,
  max_attempts integer NOT NULL DEFAULT 6,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending','delivered','failed','stopped')),
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  lease_until timestamptz,
  -- set by each claim; the outcome is written only under the same claim
  claim_token uuid,
  started_at timestamptz,
  event_created_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at timestamptz,
  UNIQUE (event_id, webhook_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (webhook_id) WHERE state = 'pending' AND lease_until IS NOT NULL;
CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (finished_at) WHERE state <> 'pending';

CREATE TABLE webhook_attempts (
  id uuid PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  webhook_id uuid NOT NULL,
  event text NOT NULL,
  attempt integer NOT NULL,
  status integer,
  error text,
  ok boolean NOT NULL,
  created_at timestamptz NOT NULL,
  UNIQUE (delivery_id, attempt)
);
CREATE INDEX webhook_attempts_log ON webhook_attempts (webhook_id, created_at DESC);
CREATE INDEX webhook_attempts_age ON webhook_attempts (created_at);
`)
})
