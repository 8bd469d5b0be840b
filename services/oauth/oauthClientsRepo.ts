import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

export const OAuthClientRow = Schema.Struct({
  id: Schema.String,
  clientName: Schema.String,
  redirectUris: Schema.Array(Schema.String),
  tokenEndpointAuthMethod: Schema.Literal("none", "client_secret_post"),
  secretHash: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  createdAt: Schema.DateFromSelf
})
export type OAuthClientRow = typeof OAuthClientRow.Type

/** Registered OAuth apps (RFC 7591). SQL only. */
export const makeOAuthClientsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insert = (row: Omit<OAuthClientRow, "createdAt">) =>
    SqlSchema.single({
      Request: Schema.Unknown,
      Result: OAuthClientRow,
      execute: () => sql`
        INSERT INTO oauth_clients ${sql.insert({ ...row, redirectUris: [...row.redirectUris], secretHash: row.secretHash === null ? null : Buffer.from(row.secretHash) })}
        RETURNING id, client_name, redirect_uris, token_endpoint_auth_method, secret_hash, created_at`
    })(row)
  const findById = SqlSchema.findOne({
    Request: Schema.String,
    Result: OAuthClientRow,
    execute: (id) => sql`
      SELECT id, client_name, redirect_uris, token_endpoint_auth_method, secret_hash, created_at
      FROM oauth_clients WHERE id = ${id}`
  })
  return { insert, findById }
})

export class OAuthClientsRepo extends Context.Tag("OAuthClientsRepo")<OAuthClientsRepo, Effect.Effect.Success<typeof makeOAuthClientsRepo>>() {
  static readonly Live = Layer.effect(OAuthClientsRepo, makeOAuthClientsRepo)
}
