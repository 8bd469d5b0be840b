import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Media facts and renditions (services/media/README.md, docs/media-rules.md).
 *
 * `media.facts`: what the probe read from the file at upload or import (domain/media/
 * preparation.ts MediaFacts), null for files stored before it existed.
 *
 * `media_renditions`: one row per file and target (domain/media/preparation.ts targetKey),
 * made once and shared by every channel whose network asks the same. `pending` until the
 * preparation job stores the rendition next to the original (`ready`, with its key, size,
 * type and cover) or gives up (`failed`, with a plain reason and a fix for the post's items).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE media ADD COLUMN facts jsonb;

CREATE TABLE media_renditions (
  media_id uuid NOT NULL REFERENCES media(id) ON DELETE CASCADE,
  target_key text NOT NULL,
  target jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
  storage_key text,
  bytes bigint,
  mime text,
  cover_key text,
  error jsonb,
  -- the preparation job working on it holds it until then (another job leaves it alone)
  lease_until timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (media_id, target_key)
);
`)
})
