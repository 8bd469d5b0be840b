import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

/** What free slots read: the times already taken and the caller's profile time zone. SQL only. */
export const makeSlotsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Publish times of the channels' queued or draft posts within [from, to]. */
  const takenTimes = SqlSchema.findAll({
    Request: Schema.Struct({
      workspaceId: Schema.String,
      channelIds: Schema.Array(Schema.String),
      from: Schema.DateFromSelf,
      to: Schema.DateFromSelf
    }),
    Result: Schema.Struct({ publishDate: Schema.DateFromSelf }),
    execute: ({ channelIds, from, to, workspaceId }) => sql`
      SELECT publish_date FROM posts
      WHERE workspace_id = ${workspaceId} AND channel_id IN ${sql.in(channelIds)} AND deleted_at IS NULL
        AND status IN ('queued', 'draft') AND publish_date >= ${from} AND publish_date <= ${to}`
  })

  /**
   * The time zone of the profile of the person the key belongs to; for the workspace key
   * (no person), the workspace owner's.
   */
  const profileTimeZone = SqlSchema.findAll({
    Request: Schema.Struct({ workspaceId: Schema.String, userId: Schema.NullOr(Schema.String) }),
    Result: Schema.Struct({ timezone: Schema.NullOr(Schema.String) }),
    execute: ({ userId, workspaceId }) =>
      userId === null
        ? sql`SELECT u.timezone FROM memberships m JOIN users u ON u.id = m.user_id
              WHERE m.workspace_id = ${workspaceId} AND m.role = 'owner'`
        : sql`SELECT timezone FROM users WHERE id = ${userId}`
  })

  return { takenTimes, profileTimeZone }
})

export class SlotsRepo extends Context.Tag("slots/SlotsRepo")<SlotsRepo, Effect.Effect.Success<typeof makeSlotsRepo>>() {
  static readonly Live = Layer.effect(SlotsRepo, makeSlotsRepo)
}
