import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** Posts (whole post = group), per-channel posts, items, activity, idempotency, outbox, notifications. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE post_groups (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  status text NOT NULL CHECK (status IN ('draft','review','scheduled','changes','published','partial','error')),
  approval_status text CHECK (approval_status IN ('requested','approved','changes')),
  approved_by text,
  publish_at timestamptz NOT NULL,
  repeat_days integer CHECK (repeat_days BETWEEN 1 AND 365),
  short_link boolean NOT NULL DEFAULT false,
  creation_method text NOT NULL,
  author text NOT NULL DEFAULT 'API',
  share_token text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX post_groups_workspace ON post_groups (workspace_id, publish_at) WHERE deleted_at IS NULL;

-- one row per channel of a post
CREATE TABLE posts (
  id uuid PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES post_groups(id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  channel_id uuid NOT NULL REFERENCES channels(id),
  ordinal integer NOT NULL,
  status text NOT NULL CHECK (status IN ('draft','queued','publishing','pending','published','error','unconfirmed')),
  settings jsonb NOT NULL DEFAULT '{}',
  publish_date timestamptz NOT NULL,
  release_id text,
  release_url text,
  error jsonb,
  published_at timestamptz,
  held text,
  held_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
-- a post has one row per channel, even when two actor owners race during a hand-over
CREATE UNIQUE INDEX posts_group_channel ON posts (group_id, channel_id) WHERE deleted_at IS NULL;
CREATE INDEX posts_workspace_date ON posts (workspace_id, publish_date) WHERE deleted_at IS NULL;
CREATE INDEX posts_channel ON posts (channel_id) WHERE deleted_at IS NULL;

-- position 0 is the post itself, 1.. the follow-up comments
CREATE TABLE post_items (
  id uuid PRIMARY KEY,
  post_id uuid NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  workspace_id uuid NOT NULL,
  position integer NOT NULL CHECK (position >= 0),
  content text NOT NULL,
  media jsonb NOT NULL DEFAULT '[]',
  delay_minutes integer NOT NULL DEFAULT 0,
  status text NOT NULL CHECK (status IN ('draft','queued','publishing','pending','published','error','unconfirmed')),
  due_at timestamptz,
  release_id text,
  release_url text,
  error jsonb,
  published_at timestamptz,
  held text,
  held_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  UNIQUE (post_id, position)
);
CREATE INDEX post_items_due ON post_items (due_at) WHERE status = 'queued';

CREATE TABLE post_tags (
  group_id uuid NOT NULL REFERENCES post_groups(id) ON DELETE CASCADE,
  tag_id uuid NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, tag_id)
);

CREATE TABLE post_activity (
  id bigserial PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES post_groups(id) ON DELETE CASCADE,
  actor text NOT NULL,
  action text NOT NULL,
  detail text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX post_activity_group ON post_activity (group_id, id);

CREATE TABLE post_comments (
  id uuid PRIMARY KEY,
  group_id uuid NOT NULL REFERENCES post_groups(id) ON DELETE CASCADE,
  author text NOT NULL,
  role text NOT NULL,
  content text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Idempotency-Key records: only successful answers are kept (spec rule 4)
CREATE TABLE idempotency_keys (
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  key text NOT NULL CHECK (length(key) <= 255),
  request_hash text NOT NULL,
  status_code integer NOT NULL,
  -- json, not jsonb: a replay answers the very same bytes
  response json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- events written in the same transaction as the change that causes them
CREATE TABLE outbox (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  event text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (created_at) WHERE published_at IS NULL;

CREATE TABLE notifications (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  type text NOT NULL CHECK (type IN ('success','fail','info')),
  title text NOT NULL,
  body text NOT NULL,
  link text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_workspace ON notifications (workspace_id, created_at DESC);
`)
})
