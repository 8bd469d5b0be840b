import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * OAuth apps (RFC 7591 registrations) and the link from a person's token to the app it
 * was issued to. Tokens stay in api_tokens (kind oat / cli, stored as SHA-256 hashes),
 * so revoking one is a row change every gateway sees at once. Client secrets are stored
 * only as hashes; codes and device codes live in Redis (services/oauth/shortLivedState.ts).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE oauth_clients (
  id uuid PRIMARY KEY,
  client_name text NOT NULL,
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) >= 1),
  token_endpoint_auth_method text NOT NULL CHECK (token_endpoint_auth_method IN ('none','client_secret_post')),
  secret_hash bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((token_endpoint_auth_method = 'client_secret_post') = (secret_hash IS NOT NULL))
);

ALTER TABLE api_tokens ADD COLUMN oauth_client_id uuid REFERENCES oauth_clients(id) ON DELETE CASCADE;
-- Approved Apps: a person's tokens that still work
CREATE INDEX api_tokens_person ON api_tokens (user_id, created_at) WHERE user_id IS NOT NULL AND revoked_at IS NULL;
`)
})
