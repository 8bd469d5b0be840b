import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

/** The channel post an id names (a per-channel id, or a group id → its first channel), with what its statistics need. SQL only. */
export const makeAnalyticsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const postFor = SqlSchema.findOne({
    Request: Schema.Struct({ workspaceId: Schema.String, id: Schema.String }),
    Result: Schema.Struct({
      postId: Schema.String,
      channelId: Schema.String,
      network: Schema.String,
      status: Schema.String,
      releaseId: Schema.NullOr(Schema.String)
    }),
    execute: ({ id, workspaceId }) => sql`
      SELECT p.id AS post_id, p.channel_id, c.network, p.status, p.release_id
      FROM posts p JOIN channels c ON c.id = p.channel_id
      WHERE p.workspace_id = ${workspaceId} AND p.deleted_at IS NULL AND (p.id = ${id} OR p.group_id = ${id})
      ORDER BY (p.id = ${id}) DESC, p.ordinal LIMIT 1`
  })
  return { postFor }
})

export class AnalyticsRepo extends Context.Tag("analytics/AnalyticsRepo")<AnalyticsRepo, Effect.Effect.Success<typeof makeAnalyticsRepo>>() {
  static readonly Live = Layer.effect(AnalyticsRepo, makeAnalyticsRepo)
}
