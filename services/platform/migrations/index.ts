import type { SqlClient, SqlError } from "@effect/sql"
import type { Effect } from "effect"
import m0001 from "./0001_core.js"
import m0002 from "./0002_posts.js"
import m0003 from "./0003_publishing.js"
import m0004 from "./0004_publish_jobs.js"
import m0005 from "./0005_actor_fencing.js"
import m0006 from "./0006_networks.js"
import m0007 from "./0007_repeats_and_pauses.js"
import m0008 from "./0008_webhooks.js"
import m0009 from "./0009_oauth.js"
import m0010 from "./0010_billing_links.js"
import m0012 from "./0012_operations.js"
import m0013 from "./0013_trace_parent_repair.js"
import m0014 from "./0014_media_facts.js"
import m0015 from "./0015_network_progress.js"
import m0016 from "./0016_event_log.js"
import m0017 from "./0017_attempt_timeline.js"
import m0018 from "./0018_channel_health.js"
import m0020 from "./0020_retention_indexes.js"

/** One schema change: `id` and `name` are its file's (NNNN_name.ts). */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly run: Effect.Effect<void, SqlError.SqlError, SqlClient.SqlClient>
}

/**
 * Every migration, ids growing; the migrator (./migrator.ts) runs each one a database has
 * not recorded, in this order. A migration on main is never edited: a change is a new one
 * (checksums.json holds each file's sha256; test/unit/houseRules/migrationsOnlyGrow.test.ts).
 *
 * There is no 11: 0007 to 0012 were numbered for features built at the same time, 0012 was
 * committed first and the feature numbered 11 landed without a schema change, so no file
 * 0011 was ever committed (docs/house-rules.md, "Migrations").
 */
export const migrations: ReadonlyArray<Migration> = [
  { id: 1, name: "core", run: m0001 },
  { id: 2, name: "posts", run: m0002 },
  { id: 3, name: "publishing", run: m0003 },
  { id: 4, name: "publish_jobs", run: m0004 },
  { id: 5, name: "actor_fencing", run: m0005 },
  { id: 6, name: "networks", run: m0006 },
  { id: 7, name: "repeats_and_pauses", run: m0007 },
  { id: 8, name: "webhooks", run: m0008 },
  { id: 9, name: "oauth", run: m0009 },
  { id: 10, name: "billing_links", run: m0010 },
  { id: 12, name: "operations", run: m0012 },
  { id: 13, name: "trace_parent_repair", run: m0013 },
  { id: 14, name: "media_facts", run: m0014 },
  { id: 15, name: "network_progress", run: m0015 },
  { id: 16, name: "event_log", run: m0016 },
  { id: 17, name: "attempt_timeline", run: m0017 },
  { id: 18, name: "channel_health", run: m0018 },
  { id: 20, name: "retention_indexes", run: m0020 }
]
