import { SqlClient } from "@effect/sql"
import { Data, Effect, Option, Schema } from "effect"
import { isPlan } from "../../domain/billing.js"
import { checkChannelLimit } from "../../domain/plans.js"
import type { Connected } from "../networks/adapter.js"
import { sealCredentials } from "../networks/credentialsStore.js"
import { AppConfig } from "../platform/config.js"
import { withSpan } from "../platform/tracing.js"

/** The channel to reconnect is gone, or it belongs to another account of the network. */
export class ReconnectRefused extends Data.TaggedError("ReconnectRefused")<{ readonly message: string }> {}

const IdRow = Schema.Struct({ id: Schema.String })
const decodeIds = Schema.decodeUnknown(Schema.Array(IdRow))

const profileSlug = (text: string) => text.toLowerCase().replace(/[^a-z0-9@._-]+/g, "_").slice(0, 100) || "channel"

/**
 * Stores a verified connection (GET /social's callback, the admin CLI): the credentials
 * sealed with SECRET_KEY, the name, handle and picture the network gave. Reconnecting
 * (`refresh`) updates that channel and clears refreshNeeded; connecting an account the
 * workspace has already connected updates its channel instead of adding a second one.
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
    const fields = {
      credentials: sealCredentials(secretKey, connected.credentials),
      name: input.name ?? connected.profile.name,
      profile: profileSlug(connected.profile.profile),
      picture: connected.profile.picture,
      accountId: connected.profile.accountId,
      defaultSettings: JSON.stringify(connected.defaultSettings ?? {})
    }
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const update = (where: ReturnType<typeof sql<never>>) =>
          sql`
            UPDATE channels SET credentials = ${fields.credentials}, name = ${fields.name}, profile = ${fields.profile},
              picture = ${fields.picture}, account_id = ${fields.accountId}, default_settings = ${fields.defaultSettings}::jsonb,
              refresh_needed = false, in_between_steps = false
            WHERE workspace_id = ${input.workspaceId} AND network = ${input.network} AND deleted_at IS NULL AND ${where}
            RETURNING id`.pipe(Effect.flatMap(decodeIds))
        if (input.refreshChannelId !== null) {
          const rows = yield* update(sql`id = ${input.refreshChannelId} AND (account_id IS NULL OR account_id = ${fields.accountId})`)
          const row = rows[0]
          if (row === undefined) {
            return yield* new ReconnectRefused({
              message: "This channel is connected to another account of the network, or it was removed. Sign in with the channel's own account, or connect a new channel."
            })
          }
          return { channelId: row.id, created: false }
        }
        const same = yield* update(sql`account_id = ${fields.accountId}`)
        if (same[0] !== undefined) return { channelId: same[0].id, created: false }
        // a new channel: within the plan's limit (the workspace row locked, so two at once cannot both pass)
        const overLimit = yield* channelLimitReached(input.workspaceId, true)
        if (Option.isSome(overLimit)) return yield* Effect.fail(overLimit.value)
        const channelId = crypto.randomUUID()
        yield* sql`INSERT INTO channels ${sql.insert({
          id: channelId,
          workspaceId: input.workspaceId,
          customerId: input.customerId,
          network: input.network,
          name: fields.name,
          profile: fields.profile,
          picture: fields.picture,
          credentials: fields.credentials,
          accountId: fields.accountId,
          defaultSettings: fields.defaultSettings,
          postingTimes: [...input.postingTimes]
        })}`
        return { channelId, created: true }
      })
    )
  }).pipe(withSpan("channels.saveConnection"))

/** The customer exists in the workspace. */
export const customerExists = (workspaceId: string, customerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT id FROM customers WHERE id = ${customerId} AND workspace_id = ${workspaceId}`.pipe(
      Effect.flatMap(decodeIds),
      Effect.map((rows) => rows.length > 0)
    )
  )

/** The channel to reconnect, when it is the workspace's and on this network. */
export const channelToReconnect = (workspaceId: string, channelId: string, network: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT id FROM channels WHERE id = ${channelId} AND workspace_id = ${workspaceId} AND network = ${network} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(decodeIds),
      Effect.map((rows) => Option.fromNullable(rows[0]?.id))
    )
  )

const PlanRow = Schema.Struct({ plan: Schema.String })
const CountRow = Schema.Struct({ channels: Schema.Number })

/**
 * 402 (domain/plans.ts) when one more channel would exceed the workspace's plan. `lock`
 * takes the workspace row for the caller's transaction, so concurrent connections count
 * one after the other.
 */
export const channelLimitReached = (workspaceId: string, lock: boolean) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const plans = yield* sql`SELECT plan FROM workspaces WHERE id = ${workspaceId} ${lock ? sql`FOR UPDATE` : sql``}`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(PlanRow)))
    )
    const plan = plans[0]?.plan
    if (plan === undefined || !isPlan(plan)) return Option.none()
    const counts = yield* sql`SELECT count(*)::int AS channels FROM channels WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(Schema.decodeUnknown(Schema.Array(CountRow)))
    )
    return Option.fromNullable(checkChannelLimit(plan, counts[0]?.channels ?? 0))
  })
