import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

/*
 * Channel health (docs/networks.md, "Channel health and expiry warnings"): single
 * statements that take the SqlClient of their caller, so each runs in its transaction.
 */

/** What a token refresh that asked the network found. */
export type RefreshResult = "refreshed" | "refused" | "unavailable"

/** A refresh asked the network: when, and what it answered. */
export const recordRefresh = (channelId: string, result: RefreshResult) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE channels SET last_refresh_at = now(), last_refresh_result = ${result} WHERE id = ${channelId}`
  ).pipe(Effect.asVoid)

const WarnedRow = Schema.Struct({ workspaceId: Schema.String, network: Schema.String, name: Schema.String })
const decodeWarned = Schema.decodeUnknown(Schema.Array(WarnedRow))

/**
 * Records that the channel's expiry `expiresAt` is being warned about: only while the
 * channel is connected and this expiry was not warned about yet, so each expiry is warned
 * about once, also with several publishers. The channel, when this call is the one to warn.
 */
export const markExpiryWarned = (channelId: string, expiresAt: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      UPDATE channels SET expiry_warned_for = ${expiresAt}
      WHERE id = ${channelId} AND deleted_at IS NULL AND NOT refresh_needed
        AND expiry_warned_for IS DISTINCT FROM ${expiresAt}
      RETURNING workspace_id, network, name`.pipe(
      Effect.flatMap(decodeWarned),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  )

const HealthRow = Schema.Struct({
  network: Schema.String,
  credentials: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  refreshNeeded: Schema.Boolean,
  lastSuccessAt: Schema.NullOr(Schema.DateFromSelf),
  lastRefreshAt: Schema.NullOr(Schema.DateFromSelf),
  lastRefreshResult: Schema.NullOr(Schema.Literal("refreshed", "refused", "unavailable"))
})
const decodeHealth = Schema.decodeUnknown(Schema.Array(HealthRow))

/** The workspace's channel as its health reads it; None when it has no such channel. */
export const channelHealthRow = (workspaceId: string, channelId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT network, credentials, refresh_needed, last_success_at, last_refresh_at, last_refresh_result FROM channels
      WHERE id = ${channelId} AND workspace_id = ${workspaceId} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(decodeHealth),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  )

const decodeCount = Schema.decodeUnknown(Schema.Array(Schema.Struct({ n: Schema.Number })))

/** How many of the channel's queued posts are due before `before`. */
export const queuedPostsBefore = (channelId: string, before: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT count(*)::int AS n FROM posts
      WHERE channel_id = ${channelId} AND deleted_at IS NULL AND status = 'queued' AND publish_date < ${before}`.pipe(
      Effect.flatMap(decodeCount),
      Effect.map((rows) => rows[0]?.n ?? 0)
    )
  )
