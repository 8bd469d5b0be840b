import { SqlClient, type SqlError } from "@effect/sql"
import { Data, Effect } from "effect"
import { type Migration, migrations } from "./index.js"

/** The table @effect/sql's migrator made and this one keeps using, so a database migrated by either reads the same. */
const TABLE = "effect_sql_migrations"

export class MigrationFailed extends Data.TaggedError("MigrationFailed")<{ readonly message: string; readonly cause: SqlError.SqlError }> {}

/**
 * Runs every migration whose id the database has not recorded, in id order, and records
 * it; all in one transaction, under a lock on the table, so of two processes starting at
 * once one migrates and the other then finds nothing left. Not "every id above the
 * newest": a database migrated while 0012 was the newest had 0007-0010 still to come,
 * and gets them here at its next start (docs/house-rules.md, "Migrations").
 * Answers the migrations it ran.
 */
export const runMigrations = (list: ReadonlyArray<Migration> = migrations) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql.unsafe(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (migration_id integer PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(), name text NOT NULL)`
    )
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql.unsafe(`LOCK TABLE ${TABLE} IN ACCESS EXCLUSIVE MODE`)
        const rows = yield* sql.unsafe<{ readonly id: number }>(`SELECT migration_id AS id FROM ${TABLE}`)
        const applied = new Set(rows.map((r) => r.id))
        const newest = Math.max(0, ...applied)
        const pending = [...list].sort((a, b) => a.id - b.id).filter((m) => !applied.has(m.id))
        for (const m of pending) {
          yield* m.run.pipe(
            Effect.mapError((cause) => new MigrationFailed({ message: `Migration ${m.id}_${m.name} failed: ${cause.message}`, cause }))
          )
          yield* sql.unsafe(`INSERT INTO ${TABLE} (migration_id, name) VALUES ($1, $2)`, [m.id, m.name])
          if (m.id < newest) yield* Effect.logInfo(`migration ${m.id}_${m.name} applied late: the database had ${newest} but not ${m.id}`)
        }
        return pending.map((m) => ({ id: m.id, name: m.name }))
      })
    )
  })
