import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { isUuid, MediaId } from "../../domain/ids.js"
import { MediaFactsSchema } from "../../domain/media/factsSchema.js"
import { MEDIA_PAGE_SIZE } from "../../domain/media/library.js"

const MediaKind = Schema.Literal("image", "video")

/** A row of `media`, as readers see it (GET /media, posts resolving image[].id / media). */
export const MediaRow = Schema.Struct({
  id: MediaId,
  name: Schema.String,
  originalName: Schema.String,
  path: Schema.String,
  alt: Schema.String,
  mime: Schema.String,
  type: MediaKind,
  size: Schema.Number,
  width: Schema.NullOr(Schema.Number),
  height: Schema.NullOr(Schema.Number),
  status: Schema.Literal("ready"),
  /** What the probe read (null for files stored before facts were kept). */
  facts: Schema.NullOr(MediaFactsSchema)
})
export type MediaRow = typeof MediaRow.Type

/** What a post item needs of a media id (spec: item `media` {id, alt, url, mime, name, size, type, width, height}). */
export const MediaForPost = MediaRow.pipe(Schema.pick("id", "name", "path", "alt", "mime", "type", "size", "width", "height", "facts"))
export type MediaForPost = typeof MediaForPost.Type

export const NewMedia = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  name: Schema.String,
  originalName: Schema.String,
  storageKey: Schema.String,
  path: Schema.String,
  mime: Schema.String,
  type: MediaKind,
  size: Schema.Number,
  width: Schema.NullOr(Schema.Number),
  height: Schema.NullOr(Schema.Number),
  facts: Schema.NullOr(MediaFactsSchema)
})
export type NewMedia = typeof NewMedia.Type

/** `search` as a literal ILIKE pattern: %, _ and \ match themselves. */
export const containsPattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`

/** The media library of each workspace. SQL only; every query is scoped by workspace. */
export const makeMediaRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`id, name, original_name, path, alt, mime, type, size, width, height, status, facts`

  const insert = SqlSchema.single({
    Request: NewMedia,
    Result: MediaRow,
    execute: (row) =>
      sql`INSERT INTO media ${sql.insert({ ...row, facts: row.facts === null ? null : JSON.stringify(row.facts), status: "ready" })} RETURNING ${columns}`
  })

  /** Newest first, MEDIA_PAGE_SIZE per page; `search` matches name or alt text. */
  const list = SqlSchema.findAll({
    Request: Schema.Struct({ workspaceId: Schema.String, page: Schema.Number, search: Schema.NullOr(Schema.String) }),
    Result: MediaRow,
    execute: ({ page, search, workspaceId }) => sql`
      SELECT ${columns} FROM media
      WHERE workspace_id = ${workspaceId}
        ${search === null || search === "" ? sql`` : sql`AND (name ILIKE ${containsPattern(search)} OR alt ILIKE ${containsPattern(search)})`}
      ORDER BY created_at DESC, id DESC
      LIMIT ${MEDIA_PAGE_SIZE} OFFSET ${(page - 1) * MEDIA_PAGE_SIZE}`
  })

  /** The workspace's media whose `column` is one of `values` (built once per column). */
  const findWhereIn = (column: "id" | "path") =>
    SqlSchema.findAll({
      Request: Schema.Struct({ workspaceId: Schema.String, values: Schema.Array(Schema.String) }),
      Result: MediaForPost,
      execute: ({ values, workspaceId }) => sql`
        SELECT id, name, path, alt, mime, type, size, width, height, facts FROM media
        WHERE workspace_id = ${workspaceId} AND ${sql(column)} IN ${sql.in(values)}`
    })
  const findManyQuery = findWhereIn("id")
  const findByPathsQuery = findWhereIn("path")

  /**
   * The workspace's media among `ids` (for posts: image[].id and media resolve here).
   * Ids of other workspaces and ids that are not UUIDs are simply not found.
   */
  const findMany = (workspaceId: string, ids: ReadonlyArray<string>) => {
    const wanted = [...new Set(ids.filter(isUuid))]
    return wanted.length === 0 ? Effect.succeed([] as ReadonlyArray<MediaForPost>) : findManyQuery({ workspaceId, values: wanted })
  }

  /** The workspace's media whose public address is one of `paths` (a post naming an upload by its path). */
  const findByPaths = (workspaceId: string, paths: ReadonlyArray<string>) =>
    paths.length === 0 ? Effect.succeed([] as ReadonlyArray<MediaForPost>) : findByPathsQuery({ workspaceId, values: [...new Set(paths)] })

  return { insert, list, findMany, findByPaths }
})

/** The repository as a service, built once per process. */
export class MediaRepo extends Context.Tag("MediaRepo")<MediaRepo, Effect.Effect.Success<typeof makeMediaRepo>>() {
  static readonly Live = Layer.effect(MediaRepo, makeMediaRepo)
}
