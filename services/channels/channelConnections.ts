import { SqlClient } from "@effect/sql"
import { Data, Effect, Option, type Redacted } from "effect"
import { isPlan } from "../../domain/billing.js"
import { checkChannelLimit } from "../../domain/plans.js"
import type { Connected } from "../networks/adapter.js"
import { sealCredentials } from "../networks/credentials.js"
import { AppConfig } from "../platform/config.js"
import { withSpan } from "../platform/tracing.js"
import {
  countConnectedChannels,
  findChannelForChoice,
  insertChannel,
  removeInBetweenChannel,
  writeInBetweenReconnection,
  writeReconnection,
  writeSameAccountConnection
} from "../repos/channelsRepo.js"
import { findPlan } from "../repos/workspacesRepo.js"

/** The channel to reconnect is gone, or it belongs to another account of the network. */
export class ReconnectRefused extends Data.TaggedError("ReconnectRefused")<{ readonly message: string }> {}

const profileSlug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9@._-]+/g, "_")
    .slice(0, 100) || "channel"

/** What a connection writes on its channel: the credentials sealed, the network's name (or the given one), handle and picture. */
const connectionFields = (secretKey: Redacted.Redacted, connected: Connected, name: string | null) => ({
  credentials: sealCredentials(secretKey, connected.credentials),
  name: name ?? connected.profile.name,
  profile: profileSlug(connected.profile.profile),
  picture: connected.profile.picture,
  accountId: connected.profile.accountId,
  defaultSettings: JSON.stringify(connected.defaultSettings ?? {})
})

/**
 * Stores a verified connection (GET /social's callback, the admin CLI): the credentials
 * sealed with SECRET_KEY, the name, handle and picture the network gave. Reconnecting
 * (`refresh`) updates that channel and clears refreshNeeded; connecting an account the
 * workspace has already connected updates its channel instead of adding a second one.
 * A connection that answers several choices (pages, organizations, locations) is saved
 * `inBetweenSteps` with the sign-in's credentials and no account yet (saveChoice finishes it).
 */
export const saveConnection = (input: {
  readonly workspaceId: string
  readonly network: string
  readonly customerId: string | null
  readonly refreshChannelId: string | null
  readonly connected: Connected
  /** The admin CLI's --name; otherwise the network's name of the account. */
  readonly name: string | null
  readonly postingTimes: ReadonlyArray<string>
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { secretKey } = yield* AppConfig
    const { connected } = input
    const fields = connectionFields(secretKey, connected, input.name)
    const choosing = (connected.choices?.length ?? 0) > 1
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        if (choosing && input.refreshChannelId !== null) {
          const held = yield* writeInBetweenReconnection(
            { workspaceId: input.workspaceId, network: input.network, channelId: input.refreshChannelId },
            fields.credentials
          )
          if (Option.isNone(held)) return yield* new ReconnectRefused({ message: "This channel was removed. Connect a new channel." })
          return { channelId: held.value, created: false }
        }
        if (input.refreshChannelId !== null) {
          const reconnected = yield* writeReconnection(
            { workspaceId: input.workspaceId, network: input.network, channelId: input.refreshChannelId },
            fields
          )
          if (Option.isNone(reconnected)) {
            return yield* new ReconnectRefused({
              message:
                "This channel is connected to another account of the network, or it was removed. Sign in with the channel's own account, or connect a new channel."
            })
          }
          return { channelId: reconnected.value, created: false }
        }
        // the account is not known until the choice: no "same account" channel to update yet
        const same = choosing
          ? Option.none<string>()
          : yield* writeSameAccountConnection({ workspaceId: input.workspaceId, network: input.network }, fields)
        if (Option.isSome(same)) return { channelId: same.value, created: false }
        // a new channel: within the plan's limit (the workspace row locked, so two at once cannot both pass)
        const overLimit = yield* channelLimitReached(input.workspaceId, true)
        if (Option.isSome(overLimit)) return yield* Effect.fail(overLimit.value)
        const channelId = crypto.randomUUID()
        yield* insertChannel({
          id: channelId,
          workspaceId: input.workspaceId,
          customerId: input.customerId,
          network: input.network,
          name: fields.name,
          profile: fields.profile,
          picture: fields.picture,
          credentials: fields.credentials,
          ...(choosing ? { inBetweenSteps: true } : { accountId: fields.accountId }),
          defaultSettings: fields.defaultSettings,
          postingTimes: [...input.postingTimes]
        })
        return { channelId, created: true }
      })
    )
  }).pipe(withSpan("channels.saveConnection"))

/**
 * The person chose the page, organization or location of a channel saved `inBetweenSteps`:
 * its credentials and profile, and the channel usable again. When the workspace already has
 * a channel of that account, that channel takes the connection and the one saved at sign-in
 * goes; a reconnected channel must keep its own account.
 */
export const saveChoice = (input: {
  readonly workspaceId: string
  readonly network: string
  readonly channelId: string
  readonly connected: Connected
}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { secretKey } = yield* AppConfig
    const { connected } = input
    const fields = connectionFields(secretKey, connected, null)
    const key = { workspaceId: input.workspaceId, network: input.network, channelId: input.channelId }
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const row = yield* findChannelForChoice(key)
        if (Option.isNone(row)) return yield* new ReconnectRefused({ message: "This channel was removed. Connect a new channel." })
        if (row.value.accountId === null) {
          const same = yield* writeSameAccountConnection({ workspaceId: input.workspaceId, network: input.network }, fields)
          if (Option.isSome(same)) {
            yield* removeInBetweenChannel(input.channelId)
            return { channelId: same.value }
          }
        }
        const written = yield* writeReconnection(key, fields)
        if (Option.isNone(written))
          return yield* new ReconnectRefused({
            message: "This channel is connected to another page or account. Choose the channel's own, or connect a new channel."
          })
        return { channelId: written.value }
      })
    )
  }).pipe(withSpan("channels.saveChoice"))

/**
 * 402 (domain/plans.ts) when one more channel would exceed the workspace's plan. `lock`
 * takes the workspace row for the caller's transaction, so concurrent connections count
 * one after the other.
 */
export const channelLimitReached = (workspaceId: string, lock: boolean) =>
  Effect.gen(function* () {
    const plan = yield* findPlan(workspaceId, lock)
    if (plan === undefined || !isPlan(plan)) return Option.none()
    return Option.fromNullable(checkChannelLimit(plan, yield* countConnectedChannels(workspaceId)))
  })
