import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Billing as a state machine, plan limits, short links (README: Billing and plans, Short links):
 * - workspaces: the plan picked during the trial or scheduled for the period's end
 *   (pending_plan), a cancellation at the period's end, and the period's end;
 * - memberships.paused_by_plan: people paused because the plan has no team, resumed when it
 *   has one again (a pause for another reason stays);
 * - short_links: one code per link and channel post, its address and the clicks flushed
 *   from Redis; short_link_flushes: each flushed batch once, so a flush repeated after a
 *   crash never counts twice.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE workspaces ADD COLUMN pending_plan text CHECK (pending_plan IN ('standard','team','pro','ultimate'));
ALTER TABLE workspaces ADD COLUMN cancel_at_period_end boolean NOT NULL DEFAULT false;
ALTER TABLE workspaces ADD COLUMN period_end timestamptz;
ALTER TABLE memberships ADD COLUMN paused_by_plan boolean NOT NULL DEFAULT false;

CREATE TABLE short_links (
  code text PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  url text NOT NULL,
  clicks bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (post_id, url)
);

CREATE TABLE short_link_flushes (
  id uuid PRIMARY KEY,
  flushed_at timestamptz NOT NULL DEFAULT now()
);
`)
})
