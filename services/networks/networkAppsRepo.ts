import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

/** This server's app registrations on networks' servers (table network_apps, migration 0006); the secret comes and goes sealed. */

const AppRow = Schema.Struct({ clientId: Schema.String, clientSecret: Schema.Uint8ArrayFromSelf })
const decodeApps = Schema.decodeUnknown(Schema.Array(AppRow))

export interface AppKey {
  readonly network: string
  readonly instance: string
  readonly redirectUri: string
}

export const makeNetworkAppsRepo = Effect.map(SqlClient.SqlClient, (sql) => ({
  find: ({ instance, network, redirectUri }: AppKey) =>
    sql`SELECT client_id, client_secret FROM network_apps
          WHERE network = ${network} AND instance = ${instance} AND redirect_uri = ${redirectUri}`.pipe(
      Effect.flatMap(decodeApps),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    ),
  /** Keeps the first registration for a key: a second one made meanwhile is dropped. */
  save: ({ instance, network, redirectUri }: AppKey, app: { readonly clientId: string; readonly sealedSecret: Buffer }) =>
    sql`INSERT INTO network_apps ${sql.insert({ network, instance, redirectUri, clientId: app.clientId, clientSecret: app.sealedSecret })}
          ON CONFLICT (network, instance, redirect_uri) DO NOTHING`.pipe(Effect.asVoid)
}))
