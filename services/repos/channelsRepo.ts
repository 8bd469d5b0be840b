import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { Fragment } from "@effect/sql/Statement"

export const ChannelRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  customerName: Schema.NullOr(Schema.String),
  customerApproval: Schema.NullOr(Schema.Boolean),
  network: Schema.String,
  name: Schema.String,
  profile: Schema.String,
  picture: Schema.NullOr(Schema.String),
  disabled: Schema.Boolean,
  refreshNeeded: Schema.Boolean,
  inBetweenSteps: Schema.Boolean,
  postingTimes: Schema.Array(Schema.String),
  /** Settings the connection answers when a post leaves them out (channels.default_settings). */
  defaultSettings: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type ChannelRow = typeof ChannelRow.Type

/**
 * A channel row with its version: the row versions (xmin) of the channel and of its
 * customer, which change with every update of either. A write that checked rules against
 * a remembered row proves in its own statement that the row is still this version.
 */
export const VersionedChannelRow = Schema.extend(ChannelRow, Schema.Struct({ version: Schema.String }))
export type VersionedChannelRow = typeof VersionedChannelRow.Type

/** The SQL expression of a channel's version (channels c LEFT JOIN customers cu): checked again where it is used. */
export const channelVersionSql = `c.id::text || '@' || c.xmin::text || '@' || coalesce(cu.xmin::text, '')`

/** Channels of a workspace (disconnected ones are invisible). SQL only. */
export const makeChannelsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql.literal(`c.id, c.workspace_id, c.customer_id, cu.name AS customer_name, cu.approval AS customer_approval,
           c.network, c.name, c.profile, c.picture, c.disabled, c.refresh_needed, c.in_between_steps, c.posting_times, c.default_settings`)
  const from = sql.literal("FROM channels c LEFT JOIN customers cu ON cu.id = c.customer_id")
  const select = sql`SELECT ${columns} ${from}`
  const list = SqlSchema.findAll({
    Request: Schema.Struct({ workspaceId: Schema.String, customerId: Schema.NullOr(Schema.String) }),
    Result: ChannelRow,
    execute: ({ customerId, workspaceId }) => sql`
      ${select}
      WHERE c.workspace_id = ${workspaceId} AND c.deleted_at IS NULL
        ${customerId === null ? sql`` : sql`AND c.customer_id = ${customerId}`}
      ORDER BY c.created_at, c.id`
  })
  const findById = SqlSchema.findOne({
    Request: Schema.Struct({ workspaceId: Schema.String, id: Schema.String }),
    Result: ChannelRow,
    execute: ({ id, workspaceId }) => sql`
      ${select}
      WHERE c.workspace_id = ${workspaceId} AND c.id = ${id} AND c.deleted_at IS NULL`
  })
  const findMany = SqlSchema.findAll({
    Request: Schema.Struct({ workspaceId: Schema.String, ids: Schema.Array(Schema.String) }),
    Result: ChannelRow,
    execute: ({ ids, workspaceId }) => sql`
      ${select}
      WHERE c.workspace_id = ${workspaceId} AND c.id IN ${sql.in(ids)} AND c.deleted_at IS NULL`
  })
  const findManyVersioned = SqlSchema.findAll({
    Request: Schema.Struct({ workspaceId: Schema.String, ids: Schema.Array(Schema.String) }),
    Result: VersionedChannelRow,
    execute: ({ ids, workspaceId }) => sql`
      SELECT ${columns}, ${sql.literal(channelVersionSql)} AS version ${from}
      WHERE c.workspace_id = ${workspaceId} AND c.id IN ${sql.in(ids)} AND c.deleted_at IS NULL`
  })
  /** Marks the channel disconnected; None when the workspace has no such channel. */
  const disconnect = (workspaceId: string, id: string) =>
    sql<{ id: string }>`
      UPDATE channels SET deleted_at = now()
      WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL
      RETURNING id`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]?.id)))
  return { list, findById, findMany, findManyVersioned, disconnect }
})

export class ChannelsRepo extends Context.Tag("ChannelsRepo")<ChannelsRepo, Effect.Effect.Success<typeof makeChannelsRepo>>() {
  static readonly Live = Layer.effect(ChannelsRepo, makeChannelsRepo)
}

/*
 * Connections and credentials: single statements that take the SqlClient of their caller,
 * so each runs in the caller's transaction (several run under a lock the caller took).
 */

const IdRow = Schema.Struct({ id: Schema.String })
const decodeIds = Schema.decodeUnknown(Schema.Array(IdRow))
const firstId = (rows: ReadonlyArray<{ readonly id: string }>) => Option.fromNullable(rows[0]?.id)

/** What a verified connection writes on its channel (credentials sealed, settings as JSON text). */
export type ConnectionFields = {
  readonly credentials: Buffer
  readonly name: string
  readonly profile: string
  readonly picture: string | null
  readonly accountId: string
  readonly defaultSettings: string
}

/** A new channel row (columns left out take their defaults: no credentials, no account). */
export type NewChannelRow = {
  readonly id: string
  readonly workspaceId: string
  readonly customerId: string | null
  readonly network: string
  readonly name: string
  readonly profile: string
  readonly picture?: string | null
  readonly credentials?: Buffer
  readonly accountId?: string
  readonly defaultSettings?: string
  readonly postingTimes: Array<string>
  /** Saved at sign-in while the person still chooses a page, organization or location. */
  readonly inBetweenSteps?: boolean
}

const updateConnection = (workspaceId: string, network: string, fields: ConnectionFields, where: (sql: SqlClient.SqlClient) => Fragment) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
            UPDATE channels SET credentials = ${fields.credentials}, name = ${fields.name}, profile = ${fields.profile},
              picture = ${fields.picture}, account_id = ${fields.accountId}, default_settings = ${fields.defaultSettings}::jsonb,
              refresh_needed = false, in_between_steps = false
            WHERE workspace_id = ${workspaceId} AND network = ${network} AND deleted_at IS NULL AND ${where(sql)}
            RETURNING id`.pipe(Effect.flatMap(decodeIds), Effect.map(firstId))
  )

/**
 * Writes a connection on the channel being reconnected, while it is still the
 * workspace's on this network and not tied to another account; its id, or None.
 */
export const writeReconnection = (
  input: { readonly workspaceId: string; readonly network: string; readonly channelId: string },
  fields: ConnectionFields
) =>
  updateConnection(
    input.workspaceId,
    input.network,
    fields,
    (sql) => sql`id = ${input.channelId} AND (account_id IS NULL OR account_id = ${fields.accountId})`
  )

/** Writes a connection on the workspace's channel of the same network account; its id, or None when there is none. */
export const writeSameAccountConnection = (input: { readonly workspaceId: string; readonly network: string }, fields: ConnectionFields) =>
  updateConnection(input.workspaceId, input.network, fields, (sql) => sql`account_id = ${fields.accountId}`)

export const insertChannel = (row: NewChannelRow) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO channels ${sql.insert(row)}`)

/**
 * Reconnecting a channel whose account must still be chosen: the sign-in's credentials,
 * the channel held (in_between_steps) until the choice; its account stays as it was.
 */
export const writeInBetweenReconnection = (
  input: { readonly workspaceId: string; readonly network: string; readonly channelId: string },
  credentials: Buffer
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
          UPDATE channels SET credentials = ${credentials}, in_between_steps = true, refresh_needed = false
          WHERE id = ${input.channelId} AND workspace_id = ${input.workspaceId} AND network = ${input.network} AND deleted_at IS NULL
          RETURNING id`.pipe(Effect.flatMap(decodeIds), Effect.map(firstId))
  )

const ChoosingRow = Schema.Struct({
  credentials: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  accountId: Schema.NullOr(Schema.String),
  inBetweenSteps: Schema.Boolean
})
const decodeChoosing = Schema.decodeUnknown(Schema.Array(ChoosingRow))

/** A channel of the workspace on this network that may be waiting for its choice: its sealed credentials and account. */
export const findChannelForChoice = (input: { readonly workspaceId: string; readonly network: string; readonly channelId: string }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
          SELECT credentials, account_id, in_between_steps FROM channels
          WHERE id = ${input.channelId} AND workspace_id = ${input.workspaceId} AND network = ${input.network} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(decodeChoosing),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  )

/** A channel saved at sign-in whose choice turned out to be a channel the workspace already has: it goes. */
export const removeInBetweenChannel = (channelId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE channels SET deleted_at = now() WHERE id = ${channelId} AND in_between_steps AND deleted_at IS NULL`
  )

/** The channel, when it is the workspace's, on this network and not disconnected. */
export const findChannelOnNetwork = (workspaceId: string, channelId: string, network: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT id FROM channels WHERE id = ${channelId} AND workspace_id = ${workspaceId} AND network = ${network} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(decodeIds),
      Effect.map(firstId)
    )
  )

const CountRow = Schema.Struct({ channels: Schema.Number })
const decodeCounts = Schema.decodeUnknown(Schema.Array(CountRow))

/** How many channels the workspace has connected (what the plan's channel limit counts). */
export const countConnectedChannels = (workspaceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT count(*)::int AS channels FROM channels WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL`.pipe(
      Effect.flatMap(decodeCounts),
      Effect.map((counts) => counts[0]?.channels ?? 0)
    )
  )

/** Which of these ids are channels of the workspace. */
export const existingChannelIds = (workspaceId: string, ids: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ id: string }>`
          SELECT id FROM channels WHERE workspace_id = ${workspaceId} AND deleted_at IS NULL AND id IN ${sql.in(ids)}`
  )

const SealedRow = Schema.Struct({
  credentials: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  workspaceId: Schema.String,
  network: Schema.String,
  name: Schema.String,
  refreshNeeded: Schema.Boolean
})
const decodeSealed = Schema.decodeUnknown(Schema.Array(SealedRow))

/**
 * The channel's sealed credentials, its row locked (FOR NO KEY UPDATE) until the caller's
 * transaction ends, so two refreshes of one channel run one after the other; None when it is gone.
 */
export const lockChannelCredentials = (channelId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
          SELECT credentials, workspace_id, network, name, refresh_needed FROM channels
          WHERE id = ${channelId} FOR NO KEY UPDATE`.pipe(
      Effect.flatMap(decodeSealed),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  )

export const saveChannelCredentials = (channelId: string, sealed: Buffer) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE channels SET credentials = ${sealed} WHERE id = ${channelId}`)

/** The network refused the channel's refresh: it must be reconnected. */
export const markRefreshNeeded = (channelId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE channels SET refresh_needed = true WHERE id = ${channelId}`)

const NetworkChannelRow = Schema.Struct({ id: Schema.String, network: Schema.String })
const decodeNetworkChannels = Schema.decodeUnknown(Schema.Array(NetworkChannelRow))

/** Connected channels of these networks that have credentials and are not waiting to be reconnected. */
export const connectedChannelsOf = (networks: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
    SELECT id, network FROM channels
    WHERE network IN ${sql.in(networks)} AND credentials IS NOT NULL
      AND deleted_at IS NULL AND NOT refresh_needed AND NOT disabled`.pipe(Effect.flatMap(decodeNetworkChannels))
  )
