import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * - Repeat posting (README: Publishing → Repeat posting): each occurrence of a repeating post
 * names the occurrence it repeats. The unique constraint makes "the next occurrence is
 * created once" hold whoever creates it, however often (two publisher replicas, a job
 * redelivered after a crash, a restart): a second insert for the same occurrence does nothing.
 * - A network's 429 (README: Publishing → Limits): the channel's publishing pauses until
 *   its Retry-After has passed, for every publisher process, without holding any job.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE post_groups ADD COLUMN repeat_of uuid REFERENCES post_groups(id) ON DELETE CASCADE;
ALTER TABLE post_groups ADD CONSTRAINT post_groups_repeat_of_once UNIQUE (repeat_of);
ALTER TABLE channels ADD COLUMN publish_paused_until timestamptz;
`)
})
