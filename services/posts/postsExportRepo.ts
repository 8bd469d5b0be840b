import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { StoredError } from "./rows.js"

/** One channel post of an export: what GET /posts/export writes a line for. */
export const ExportedPostRow = Schema.Struct({
  id: Schema.String,
  groupId: Schema.String,
  channelId: Schema.String,
  channelName: Schema.String,
  network: Schema.String,
  status: Schema.String,
  publishDate: Schema.DateFromSelf,
  releaseUrl: Schema.NullOr(Schema.String),
  error: StoredError,
  content: Schema.String,
  tags: Schema.String
})
export type ExportedPostRow = typeof ExportedPostRow.Type

const decodeRows = Schema.decodeUnknown(Schema.Array(ExportedPostRow))

/** Where the previous page ended: the rows are ordered by (publish date, id). */
export interface ExportCursor {
  readonly publishDate: Date
  readonly id: string
}

/**
 * GET /posts/export reads the range in keyset pages, oldest first, so an export of any
 * size holds one page in memory. Tags come joined with `;` like the import reads them.
 */
export const makePostsExportRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const page = (input: { workspaceId: string; start: Date; end: Date; after: ExportCursor | null; limit: number }) =>
    sql`
      SELECT p.id, p.group_id, p.channel_id, c.name AS channel_name, c.network, p.status, p.publish_date, p.release_url, p.error,
             i.content,
             COALESCE((SELECT string_agg(t.name, ';' ORDER BY lower(t.name)) FROM post_tags pt JOIN tags t ON t.id = pt.tag_id
                       WHERE pt.group_id = p.group_id), '') AS tags
      FROM posts p
      JOIN post_groups g ON g.id = p.group_id AND g.deleted_at IS NULL
      JOIN channels c ON c.id = p.channel_id
      JOIN post_items i ON i.post_id = p.id AND i.position = 0
      WHERE p.workspace_id = ${input.workspaceId} AND p.deleted_at IS NULL
        AND p.publish_date >= ${input.start} AND p.publish_date <= ${input.end}
        ${input.after === null ? sql`` : sql`AND (p.publish_date, p.id) > (${input.after.publishDate}, ${input.after.id})`}
      ORDER BY p.publish_date, p.id
      LIMIT ${input.limit}`.pipe(Effect.flatMap(decodeRows))
  return { page }
})

export class PostsExportRepo extends Context.Tag("posts/PostsExportRepo")<PostsExportRepo, Effect.Effect.Success<typeof makePostsExportRepo>>() {
  static readonly Live = Layer.effect(PostsExportRepo, makePostsExportRepo)
}
