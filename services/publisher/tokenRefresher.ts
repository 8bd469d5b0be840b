import { Duration, Effect, Either, Option, Schedule } from "effect"
import { freshCredentials } from "../networks/credentials.js"
import { warnOfExpiry } from "../networks/expiryWarning.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { withSpan } from "../platform/tracing.js"
import { connectedChannelsOf } from "../repos/channelsRepo.js"

/**
 * One pass of the regular token refresh (spec: channel.disconnected "the regular token
 * refresh for a channel failed"): every connected channel of a network whose tokens expire
 * goes through freshCredentials, which refreshes only what expires soon, under the
 * channel's lock (replicas doing the same pass wait, then see fresh tokens), and
 * disconnects a channel whose refresh the network refuses. A channel still connected whose
 * token expires within `warningDays` is warned about once per expiry (channel.expiring).
 * Answers how many were looked at.
 */
export const refreshExpiringTokens = (warningDays: number) =>
  Effect.gen(function* () {
    const adapters = yield* NetworkAdapters
    // networks whose access tokens expire (every adapter without tokensNeverExpire): refreshed ahead, not only before a post
    const channels = yield* connectedChannelsOf(adapters.expiringTokenNetworks)
    for (const channel of channels) {
      const adapter = adapters.find(channel.network)
      if (Option.isNone(adapter)) continue
      yield* freshCredentials(channel.id, adapter.value).pipe(
        Effect.flatMap((credentials) =>
          Either.isRight(credentials) ? warnOfExpiry(channel.id, adapter.value, credentials.right, warningDays) : Effect.succeed(false)
        ),
        Effect.catchAllCause((cause) =>
          Effect.logWarning("token refresh of a channel failed; next pass tries again", cause).pipe(Effect.annotateLogs({ channelId: channel.id }))
        )
      )
    }
    return channels.length
  }).pipe(withSpan("publisher.refreshExpiringTokens"))

/** The pass every `intervalMs` (shorter than the adapters' refresh margin, so no expiry is missed). */
export const runTokenRefresher = (intervalMs: number, warningDays: number) =>
  refreshExpiringTokens(warningDays).pipe(
    Effect.catchAllCause((cause) => Effect.logWarning("token refresh pass failed", cause).pipe(Effect.as(0))),
    Effect.repeat(Schedule.spaced(Duration.millis(intervalMs))),
    Effect.asVoid
  )
