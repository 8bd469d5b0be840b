import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

export const CustomerRow = Schema.Struct({ id: Schema.String, name: Schema.String, approval: Schema.Boolean })

/** Customers (groups) of a workspace. SQL only. */
export const makeCustomersRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const list = SqlSchema.findAll({
    Request: Schema.String,
    Result: CustomerRow,
    execute: (workspaceId) => sql`
      SELECT id, name, approval FROM customers WHERE workspace_id = ${workspaceId}
      ORDER BY lower(name), name, id`
  })
  return { list }
})

export class CustomersRepo extends Context.Tag("CustomersRepo")<CustomersRepo, Effect.Effect.Success<typeof makeCustomersRepo>>() {
  static readonly Live = Layer.effect(CustomersRepo, makeCustomersRepo)
}

/** The customer exists in the workspace (in the caller's transaction, when there is one). */
export const customerExists = (workspaceId: string, customerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`SELECT id FROM customers WHERE id = ${customerId} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((rows) => rows.length > 0)
    )
  )

export type NewCustomerRow = { readonly id: string; readonly workspaceId: string; readonly name: string; readonly approval: boolean }

export const insertCustomer = (row: NewCustomerRow) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO customers ${sql.insert(row)}`)
