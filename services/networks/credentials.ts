import { Effect, Either, Option, Redacted, Schema } from "effect"
import { AppConfig } from "../platform/config.js"
import * as Outbox from "../platform/outbox.js"
import { lockChannelCredentials, markRefreshNeeded, saveChannelCredentials } from "../repos/channelsRepo.js"
import { recordRefresh } from "../repos/channelHealthRepo.js"
import { decryptSecret, encryptSecret } from "../platform/secrets.js"
import type { Credentials, NetworkAdapter } from "./adapter.js"
import { withSpan } from "../platform/tracing.js"

const CredentialsJson = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const decodeCredentials = Schema.decodeUnknownEither(CredentialsJson)

/** Credentials sealed for the channels.credentials column (AES-256-GCM with SECRET_KEY). */
export const sealCredentials = (secretKey: Redacted.Redacted, credentials: Credentials): Buffer =>
  encryptSecret(secretKey, JSON.stringify(credentials))

/**
 * The column opened: {} for a channel without credentials (the test network), None when
 * it cannot be read (another SECRET_KEY, a damaged value).
 */
export const openCredentials = (secretKey: Redacted.Redacted, sealed: Uint8Array | null): Option.Option<Redacted.Redacted<Credentials>> => {
  if (sealed === null) return Option.some(Redacted.make<Credentials>({}))
  const plain = Either.try(() => decryptSecret(secretKey, Buffer.from(sealed)))
  return Either.isLeft(plain) ? Option.none() : Option.map(Either.getRight(decodeCredentials(plain.right)), (c) => Redacted.make<Credentials>(c))
}

/** Why a channel's credentials cannot be used now. */
export type NotUsable =
  | { readonly _tag: "Unreadable" }
  | { readonly _tag: "Disconnected"; readonly reason: string }
  | { readonly _tag: "Unavailable"; readonly reason: string }

/** A channel whose refresh failed is used again only once it is reconnected. */
const mustReconnect: NotUsable = { _tag: "Disconnected", reason: "the channel must be reconnected" }

/**
 * The credentials a publish read with its item, usable as they are when the network's
 * tokens never expire (no refresh, so no channel lock); None when they must go through
 * freshCredentials.
 */
export const storedCredentials = (adapter: NetworkAdapter, channel: { readonly credentials: Uint8Array | null; readonly refreshNeeded: boolean }) =>
  Effect.map(AppConfig, ({ secretKey }): Option.Option<Either.Either<Redacted.Redacted<Credentials>, NotUsable>> => {
    if (adapter.tokensNeverExpire !== true) return Option.none()
    if (channel.refreshNeeded) return Option.some(Either.left(mustReconnect))
    return Option.some(
      Option.match(openCredentials(secretKey, channel.credentials), {
        onNone: () => Either.left<NotUsable>({ _tag: "Unreadable" }),
        onSome: (c) => Either.right(c)
      })
    )
  })

/**
 * A channel's credentials as publishing and tools use them: read, refreshed when the
 * adapter says they expire, the new ones saved. The channel row is locked while a refresh
 * runs, so two jobs never spend the same single-use refresh token (X rotates them). A
 * refresh the network refuses marks the channel `refreshNeeded` and writes
 * `channel.disconnected` in the same transaction. A refresh that asked the network is
 * recorded on the channel with its result (GET /integrations/{id}/health).
 */
export const freshCredentials = (channelId: string, adapter: NetworkAdapter) =>
  Effect.gen(function* () {
    const { secretKey } = yield* AppConfig
    return yield* Outbox.transaction(
      Effect.gen(function* () {
        const locked = yield* lockChannelCredentials(channelId)
        if (Option.isNone(locked)) return Either.left<NotUsable>({ _tag: "Disconnected", reason: "the channel was removed" })
        const row = locked.value
        if (row.refreshNeeded) {
          return Either.left(mustReconnect)
        }
        const credentials = openCredentials(secretKey, row.credentials)
        if (Option.isNone(credentials)) return Either.left<NotUsable>({ _tag: "Unreadable" })
        const refresh = yield* adapter.refresh(credentials.value)
        switch (refresh._tag) {
          case "Unchanged":
            return Either.right(credentials.value)
          case "Refreshed":
            yield* saveChannelCredentials(channelId, sealCredentials(secretKey, refresh.credentials))
            yield* recordRefresh(channelId, "refreshed")
            return Either.right(Redacted.make(refresh.credentials))
          case "Unavailable":
            yield* recordRefresh(channelId, "unavailable")
            return Either.left<NotUsable>({ _tag: "Unavailable", reason: refresh.reason })
          case "Failed":
            yield* markRefreshNeeded(channelId)
            yield* recordRefresh(channelId, "refused")
            yield* Outbox.write(row.workspaceId, [{ event: "channel.disconnected", data: { channelId, provider: row.network, name: row.name } }])
            yield* Effect.logWarning("channel disconnected: the network refused its token refresh").pipe(
              Effect.annotateLogs({ channelId, network: row.network, reason: refresh.reason })
            )
            return Either.left<NotUsable>({ _tag: "Disconnected", reason: refresh.reason })
        }
      })
    )
  }).pipe(withSpan("networks.freshCredentials", { attributes: { channelId } }))
