import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Redacted, Schedule } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pgClientLayer } from "../../services/platform/db.js"
import { migrations } from "../../services/platform/migrations/index.js"
import { runMigrations } from "../../services/platform/migrations/migrator.js"
import { createWorld, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * A database is repaired at its next start: the migrator runs every migration it has not
 * recorded, not only those above the newest. 0012 was committed (and run by every database
 * then) before 0007-0010 existed; @effect/sql's migrator, which runs only ids above the
 * newest recorded, never ran them there. The schema such a database ends with is the one
 * a fresh database gets.
 */

const run = <A, E>(world: TestWorld, effect: Effect.Effect<A, E, SqlClient.SqlClient>) =>
  Effect.runPromise(Effect.scoped(Effect.provide(effect, pgClientLayer(Redacted.make(world.databaseUrl), 2))))

/** The migrations as @effect/sql's migrator was given them (`<id>_<name>`: effect). */
const record = (list: ReadonlyArray<(typeof migrations)[number]>) => Object.fromEntries(list.map((m) => [`${m.id}_${m.name}`, m.run]))

/** What @effect/sql's migrator did at a start: run the ids above the newest recorded. */
const oldMigrator = (world: TestWorld, list: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>) =>
  run(world, PgMigrator.run({ loader: PgMigrator.fromRecord(list) }).pipe(Effect.provide(NodeContext.layer)))

const upTo12 = migrations.filter((m) => m.id <= 12)
const first6And12 = migrations.filter((m) => m.id <= 6 || m.id === 12)

/** 0012 as first committed: the authentication triggers, before the trace_parent columns were added to it. */
const first0012 = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
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
`)
)

/** The schema as the catalog has it: columns in order, constraints, indexes, triggers, functions. */
const schemaOf = (world: TestWorld) =>
  withDb(world, async (c) => {
    const rows = async (text: string) => (await c.query(text)).rows
    return {
      columns: await rows(
        `SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default
           FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`
      ),
      constraints: await rows(
        `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
           FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2`
      ),
      indexes: await rows(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2`),
      triggers: await rows(
        `SELECT tgrelid::regclass::text AS table_name, tgname, pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1, 2`
      ),
      functions: await rows(
        `SELECT proname, pg_get_functiondef(oid) AS definition FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`
      )
    }
  })

const recordedIds = (world: TestWorld) =>
  withDb(world, async (c) => (await c.query("SELECT migration_id FROM effect_sql_migrations ORDER BY 1")).rows.map((r) => Number(r.migration_id)))

const ids = (ran: ReadonlyArray<{ readonly id: number }>) => ran.map((m) => m.id)

let fresh: TestWorld
let oldOrder: TestWorld
let oldOrderFirst0012: TestWorld
let raced: TestWorld

beforeAll(async () => {
  ;[fresh, oldOrder, oldOrderFirst0012, raced] = await Promise.all([
    createWorld("migfresh"),
    createWorld("migoldorder"),
    createWorld("migold0012"),
    createWorld("migraced")
  ])
})
afterAll(async () => {
  await Promise.all([fresh?.drop(), oldOrder?.drop(), oldOrderFirst0012?.drop(), raced?.drop()])
})

describe("migrations: a database migrated while 0012 was the newest gets 0007-0010 at its next start", () => {
  it("a fresh database runs every migration, in id order, and a second start runs none", async () => {
    expect(ids(await run(fresh, runMigrations()))).toEqual(migrations.map((m) => m.id))
    expect(await run(fresh, runMigrations())).toEqual([])
    expect(await recordedIds(fresh)).toEqual(migrations.map((m) => m.id))
  })

  it("0001-0006 and 0012 applied by the old migrator: it never runs 0007-0010, this one does, and the schema is a fresh one's", async () => {
    await oldMigrator(oldOrder, record(first6And12))
    // the old rule, given every migration up to 12: nothing to do, 0007-0010 stay missing
    expect(await oldMigrator(oldOrder, record(upTo12))).toEqual([])
    expect(await recordedIds(oldOrder)).toEqual([1, 2, 3, 4, 5, 6, 12])
    expect(await schemaOf(oldOrder)).not.toEqual(await schemaOf(fresh))

    const ran = await run(oldOrder, runMigrations())
    expect(ids(ran)).toEqual(migrations.filter((m) => m.id > 6 && m.id !== 12).map((m) => m.id))
    expect(await recordedIds(oldOrder)).toEqual(migrations.map((m) => m.id))
    expect(await schemaOf(oldOrder)).toEqual(await schemaOf(fresh))
  })

  it("with 0012 as first committed (no trace_parent columns), 0013 adds them: the schema is a fresh one's", async () => {
    await oldMigrator(oldOrderFirst0012, { ...record(first6And12.filter((m) => m.id !== 12)), "12_auth_invalidation": first0012 })
    const before = await schemaOf(oldOrderFirst0012)
    expect(before.columns.filter((c) => c.column_name === "trace_parent")).toEqual([])

    await run(oldOrderFirst0012, runMigrations())
    expect(await schemaOf(oldOrderFirst0012)).toEqual(await schemaOf(fresh))
  })

  it("two processes starting at once on an empty database: each migration runs once (DatabaseLive retries the loser of the table's creation)", async () => {
    const start = () => run(raced, runMigrations().pipe(Effect.retry(Schedule.recurs(3))))
    const [a, b] = await Promise.all([start(), start()])
    expect([...ids(a), ...ids(b)].sort((x, y) => x - y)).toEqual(migrations.map((m) => m.id))
    expect(await recordedIds(raced)).toEqual(migrations.map((m) => m.id))
  })
})
