import type { SqlClient } from "@effect/sql"
import type pg from "pg"

/**
 * Statements about the Postgres server itself rather than a table: whether it answers
 * and which databases it has. They run on a client or pool of the caller's (the database
 * may not exist yet, the pool may not be a SqlClient yet).
 */

/** Answers once the server runs a statement on this connection (readiness). */
export const ping = (sql: SqlClient.SqlClient) => sql`SELECT 1`

/** Answers once the server runs a statement on a connection of this pool. */
export const pingPool = (pool: pg.Pool) => pool.query("SELECT 1")

export const databaseExists = (client: pg.Client, name: string) =>
  client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]).then((found) => found.rowCount !== 0)

/** CREATE DATABASE, the name quoted as an identifier. */
export const createDatabase = (client: pg.Client, name: string) => client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`)
