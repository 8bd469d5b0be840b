import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Workspaces, people, tokens, customers, channels, tags, media. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE workspaces (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL DEFAULT 'standard' CHECK (plan IN ('standard','team','pro','ultimate')),
  -- what the billing gate reads: active (incl. trial and the 7-day grace), grace_over, ended
  billing_state text NOT NULL DEFAULT 'active' CHECK (billing_state IN ('active','past_due','grace_over','ended')),
  billing_event text,
  past_due_since timestamptz,
  trial_ends_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  email text NOT NULL,
  password_hash text NOT NULL,
  timezone text,
  email_verified boolean NOT NULL DEFAULT true,
  suspended boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE memberships (
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('owner','admin','editor','client')),
  paused boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, user_id)
);
CREATE UNIQUE INDEX memberships_one_owner ON memberships (workspace_id) WHERE role = 'owner';

-- Tokens are stored only as SHA-256 hashes. kind: live (workspace key), oat (OAuth), cli (device flow).
CREATE TABLE api_tokens (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  user_id uuid REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('live','oat','cli')),
  token_hash bytea NOT NULL UNIQUE,
  label text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  CHECK (kind = 'live' OR user_id IS NOT NULL)
);
-- one live workspace key at a time
CREATE UNIQUE INDEX api_tokens_one_live_key ON api_tokens (workspace_id) WHERE kind = 'live' AND revoked_at IS NULL;

CREATE TABLE customers (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  approval boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customers_workspace ON customers (workspace_id, name);

CREATE TABLE channels (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  customer_id uuid REFERENCES customers(id) ON DELETE SET NULL,
  network text NOT NULL,
  name text NOT NULL,
  profile text NOT NULL DEFAULT '',
  picture text,
  disabled boolean NOT NULL DEFAULT false,
  refresh_needed boolean NOT NULL DEFAULT false,
  in_between_steps boolean NOT NULL DEFAULT false,
  -- local times of day, 'HH:MM'
  posting_times text[] NOT NULL DEFAULT '{}',
  -- AES-256-GCM encrypted network credentials
  credentials bytea,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- a disconnected channel keeps its row so published posts keep their channel
  deleted_at timestamptz
);
CREATE INDEX channels_workspace ON channels (workspace_id) WHERE deleted_at IS NULL;

CREATE TABLE tags (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  color text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX tags_name_key ON tags (workspace_id, lower(name));

CREATE TABLE media (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  name text NOT NULL,
  original_name text NOT NULL,
  storage_key text NOT NULL,
  path text NOT NULL,
  mime text NOT NULL,
  type text NOT NULL,
  size bigint NOT NULL,
  width integer,
  height integer,
  alt text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'ready',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX media_workspace_newest ON media (workspace_id, created_at DESC, id DESC);
`)
})
