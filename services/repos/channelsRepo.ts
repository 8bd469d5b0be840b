import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"

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
