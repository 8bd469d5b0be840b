import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The attempt timeline (docs/publishing.md, "The attempt timeline"): what each attempt asked
 * of its network, written with the attempt's outcome. `operation`: publish, follow-up,
 * continue (a later step of a publish in several steps) or search; `calls`: the network
 * calls it made, in order (method, host, masked path, status, the network's error text,
 * start and duration); never a credential.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`
ALTER TABLE publish_attempts ADD COLUMN operation text;
ALTER TABLE publish_attempts ADD COLUMN calls jsonb;
`)
})
