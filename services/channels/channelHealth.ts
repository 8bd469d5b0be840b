import { Duration, Effect, Option, Redacted } from "effect"
import { expiresAtOf } from "../../domain/channelHealth.js"
import { Errors } from "../../domain/errors.js"
import type { Quota } from "../networks/adapter.js"
import { openCredentials } from "../networks/credentials.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { AppConfig } from "../platform/config.js"
import { channelHealthRow, queuedPostsBefore } from "../repos/channelHealthRepo.js"

/** How long the health answer waits for the network's quota (it is shown as null after that). */
const QUOTA_TIMEOUT = Duration.seconds(5)

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

const quotaResource = (q: Quota) => ({ remaining: q.remaining, limit: q.limit, resetsAt: iso(q.resetsAt), unit: q.unit })

/**
 * GET /integrations/{id}/health (docs/networks.md, "Channel health and expiry warnings"):
 * the expiry of the stored token (read generically: `expiresAt` of the credentials), what
 * the publisher and the token refresh recorded on the channel, the quota where the
 * adapter can tell it (asked with the stored token, best effort) and the queued posts due
 * before the expiry.
 */
export const channelHealth = (workspaceId: string, channelId: string) =>
  Effect.gen(function* () {
    const found = yield* channelHealthRow(workspaceId, channelId).pipe(Effect.orDie)
    if (Option.isNone(found)) return yield* Effect.fail(Errors.channelNotFound())
    const row = found.value
    const { secretKey } = yield* AppConfig
    const credentials = openCredentials(secretKey, row.credentials)
    const expiresAt = Option.match(credentials, { onNone: () => null, onSome: (c) => expiresAtOf(Redacted.value(c)) })
    const adapter = (yield* NetworkAdapters).find(row.network)
    const ask = Option.isSome(adapter) && Option.isSome(credentials) && !row.refreshNeeded ? adapter.value.quota : undefined
    const quota =
      ask === undefined || Option.isNone(credentials)
        ? null
        : yield* ask(credentials.value).pipe(
            Effect.timeout(QUOTA_TIMEOUT),
            Effect.map(Option.match({ onNone: () => null, onSome: quotaResource })),
            Effect.catchAllCause(() => Effect.succeed(null))
          )
    return {
      expiresAt: iso(expiresAt),
      lastSuccessAt: iso(row.lastSuccessAt),
      lastRefreshAt: iso(row.lastRefreshAt),
      lastRefreshResult: row.lastRefreshResult,
      quota,
      postsDueBeforeExpiry: expiresAt === null ? null : yield* queuedPostsBefore(channelId, expiresAt).pipe(Effect.orDie)
    }
  })
