import { SqlError } from "@effect/sql"
import { Context, Effect, String as Str } from "effect"
import type pg from "pg"

/** The process's Postgres pool itself (services/platform/db.ts), the one under its SqlClient. */
export class PgPool extends Context.Tag("platform/PgPool")<PgPool, pg.Pool>() {}

/**
 * Runs a named statement: each pooled connection parses and plans it once, then only binds
 * and executes it (node-postgres keeps the names per connection). For the hot writes whose
 * text never changes, where Postgres spent more time planning a many-CTE statement than
 * running it. On a pooled connection of its own, so never inside a transaction: only for a
 * statement that commits by itself. Column names come back camelCase, as SqlClient's do.
 */
export const runPrepared = (pool: pg.Pool) => (name: string, text: string, values: ReadonlyArray<unknown>) =>
  Effect.async<ReadonlyArray<Record<string, unknown>>, SqlError.SqlError>((resume) => {
    pool.query({ name, text, values: [...values] }, (error, result) => {
      if (error) return resume(Effect.fail(new SqlError.SqlError({ cause: error, message: `Failed to execute prepared statement ${name}` })))
      resume(
        Effect.succeed(
          result.rows.map((row: Record<string, unknown>) => {
            const named: Record<string, unknown> = {}
            for (const key in row) named[Str.snakeToCamel(key)] = row[key]
            return named
          })
        )
      )
    })
  })
