import { SqlClient } from "@effect/sql"
import { Duration, Effect, Option, Schedule, Schema } from "effect"
import { freshCredentials } from "../networks/credentialsStore.js"
import { NetworkAdapters } from "../networks/registry.js"
import { withSpan } from "../platform/tracing.js"

/** Networks whose access tokens expire: their channels are refreshed ahead, not only before a post. */
export const EXPIRING_TOKEN_NETWORKS = ["x", "linkedin"] as const

const ChannelRow = Schema.Struct({ id: Schema.String, network: Schema.String })
const decodeChannels = Schema.decodeUnknown(Schema.Array(ChannelRow))

/**
 * One pass of the regular token refresh (spec: channel.disconnected "the regular token
 * refresh for a channel failed"): every connected channel of a network whose tokens expire
 * goes through freshCredentials, which refreshes only what expires soon, under the
 * channel's lock (replicas doing the same pass wait, then see fresh tokens), and
 * disconnects a channel whose refresh the network refuses. Answers how many were looked at.
 */
export const refreshExpiringTokens = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const adapters = yield* NetworkAdapters
  const channels = yield* sql`
    SELECT id, network FROM channels
    WHERE network IN ${sql.in([...EXPIRING_TOKEN_NETWORKS])} AND credentials IS NOT NULL
      AND deleted_at IS NULL AND NOT refresh_needed AND NOT disabled`.pipe(Effect.flatMap(decodeChannels))
  for (const channel of channels) {
    const adapter = adapters.find(channel.network)
    if (Option.isNone(adapter)) continue
    yield* freshCredentials(channel.id, adapter.value).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("token refresh of a channel failed; next pass tries again", cause).pipe(Effect.annotateLogs({ channelId: channel.id })))
    )
  }
  return channels.length
}).pipe(withSpan("publisher.refreshExpiringTokens"))

/** The pass every `intervalMs` (shorter than the adapters' refresh margin, so no expiry is missed). */
export const runTokenRefresher = (intervalMs: number) =>
  refreshExpiringTokens.pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("token refresh pass failed", cause).pipe(Effect.as(0))),
    Effect.repeat(Schedule.spaced(Duration.millis(intervalMs))),
    Effect.asVoid
  )
