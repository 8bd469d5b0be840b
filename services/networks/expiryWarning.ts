import { Effect, Option, Redacted } from "effect"
import { expiryToWarnOf } from "../../domain/channelHealth.js"
import * as Outbox from "../platform/outbox.js"
import { withSpan } from "../platform/tracing.js"
import { markExpiryWarned } from "../repos/channelHealthRepo.js"
import type { Credentials, NetworkAdapter } from "./adapter.js"

/**
 * The warning ahead of a token's expiry (docs/networks.md, "Channel health and expiry
 * warnings"): a connected channel whose token expires within `warningDays` gets
 * `channel.expiring` (and its notification) once per expiry, recorded on the channel in
 * the same transaction. Answers whether this call warned.
 */
export const warnOfExpiry = (channelId: string, adapter: NetworkAdapter, credentials: Redacted.Redacted<Credentials>, warningDays: number) =>
  Effect.gen(function* () {
    const expiresAt = expiryToWarnOf({
      credentials: Redacted.value(credentials),
      now: new Date(),
      warningDays,
      shortLivedTokens: adapter.shortLivedTokens === true
    })
    if (expiresAt === null) return false
    return yield* Outbox.transaction(
      Effect.gen(function* () {
        const channel = yield* markExpiryWarned(channelId, expiresAt)
        if (Option.isNone(channel)) return false
        const { name, network, workspaceId } = channel.value
        yield* Outbox.write(workspaceId, [{ event: "channel.expiring", data: { channelId, provider: network, name, expiresAt } }])
        yield* Effect.logInfo("channel expiring: warned").pipe(Effect.annotateLogs({ channelId, network, expiresAt: expiresAt.toISOString() }))
        return true
      })
    )
  }).pipe(withSpan("networks.warnOfExpiry", { attributes: { channelId } }))
