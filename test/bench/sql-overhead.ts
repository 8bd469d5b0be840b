/**
 * One statement through @effect/sql next to the same statement on a raw pg pool, and a
 * statement in a transaction: the per-statement overhead under every service query.
 *   DATABASE_URL=… npm run bench -- sql-overhead
 */
import { SqlClient } from "@effect/sql"
import { Effect, Redacted } from "effect"
import pg from "pg"
import { pgClientLayer } from "../../services/platform/db.js"
const url = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
const n = 2000
const pool = new pg.Pool({ connectionString: url, max: 4 })
for (let i = 0; i < 100; i++) await pool.query("SELECT 1")
const t = performance.now()
for (let i = 0; i < n; i++) await pool.query("SELECT $1::int AS x", [i])
console.log("raw pg pool.query", (((performance.now() - t) / n) * 1000).toFixed(0), "µs")
await pool.end()
const program = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (let i = 0; i < 100; i++) yield* sql`SELECT 1`
  const t0 = performance.now()
  for (let i = 0; i < n; i++) yield* sql`SELECT ${i}::int AS x`
  console.log("effect sql", (((performance.now() - t0) / n) * 1000).toFixed(0), "µs")
  const t1 = performance.now()
  for (let i = 0; i < n / 4; i++) yield* sql.withTransaction(sql`SELECT ${i}::int AS x`)
  console.log("effect sql in a transaction (BEGIN, SELECT, COMMIT)", (((performance.now() - t1) / (n / 4)) * 1000).toFixed(0), "µs")
})
await Effect.runPromise(program.pipe(Effect.provide(pgClientLayer(Redacted.make(url)))))
