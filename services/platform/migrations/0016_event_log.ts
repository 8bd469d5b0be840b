import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The replayable event log (docs/webhooks.md, "The event log"): every event the outbox
 * writes gets a per-workspace sequence number with no gaps, from a counter row taken in the
 * same transaction as the event (a trigger, so every writer of the outbox numbers its rows
 * the same way, the one-statement POST /posts included). A rolled-back transaction rolls its
 * numbers back with it: what a reader sees is 1, 2, 3 … without holes. Events already kept
 * are numbered in the order they were written.
 * A webhook delivery reads its event's number from here (`X-Service-Sequence`).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
CREATE TABLE workspace_event_counters (
  workspace_id uuid PRIMARY KEY,
  last bigint NOT NULL
);

ALTER TABLE outbox ADD COLUMN sequence bigint;
WITH numbered AS (
  SELECT id, row_number() OVER (PARTITION BY workspace_id ORDER BY created_at, id) AS n FROM outbox)
UPDATE outbox SET sequence = numbered.n FROM numbered WHERE outbox.id = numbered.id;
INSERT INTO workspace_event_counters (workspace_id, last)
  SELECT workspace_id, max(sequence) FROM outbox GROUP BY workspace_id;
ALTER TABLE outbox ALTER COLUMN sequence SET NOT NULL;
CREATE UNIQUE INDEX outbox_workspace_sequence ON outbox (workspace_id, sequence);
CREATE INDEX outbox_age ON outbox (created_at);

CREATE FUNCTION outbox_next_sequence() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO workspace_event_counters AS c (workspace_id, last) VALUES (NEW.workspace_id, 1)
  ON CONFLICT (workspace_id) DO UPDATE SET last = c.last + 1
  RETURNING last INTO NEW.sequence;
  RETURN NEW;
END $$;
CREATE TRIGGER outbox_sequence BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION outbox_next_sequence();
`)
})
