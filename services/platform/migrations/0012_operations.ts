import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * What operations need in the schema (README: Operations).
 *
 * Invalidation of the gateways' authentication caches (services/gateway/tokenCache.ts):
 * every change to a table the token lookup reads (api_tokens, memberships, users,
 * workspaces) notifies AUTH_CHANGED_CHANNEL when it commits. A trigger rather than a
 * message from each writer, so every writer (the admin CLI, OAuth and CLI token issue
 * and revoke, member pause, billing events, plain SQL by an operator) invalidates without
 * knowing about the cache. Statement-level: one notification per statement, and
 * Postgres folds identical ones of a transaction into one.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE FUNCTION auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('auth_changed', TG_TABLE_NAME);
  RETURN NULL;
END $$;

CREATE TRIGGER api_tokens_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON api_tokens
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
CREATE TRIGGER memberships_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memberships
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
CREATE TRIGGER users_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();
CREATE TRIGGER workspaces_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON workspaces
  FOR EACH STATEMENT EXECUTE FUNCTION auth_changed();

-- Traces (services/platform/tracing.ts): work that waits in Postgres keeps the W3C trace
-- context of the request that made it. The actor's transaction sets app.trace_parent
-- (only while tracing is on), so the writers need not know: the defaults pick it up.
ALTER TABLE post_items ADD COLUMN trace_parent text DEFAULT nullif(current_setting('app.trace_parent', true), '');
ALTER TABLE outbox ADD COLUMN trace_parent text DEFAULT nullif(current_setting('app.trace_parent', true), '');
`)
})
