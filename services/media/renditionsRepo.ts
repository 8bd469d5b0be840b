import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { MediaFactsSchema, RenditionTargetSchema } from "../../domain/media/factsSchema.js"
import { isUuid } from "../../domain/ids.js"
import type { RenditionTarget } from "../../domain/media/preparation.js"

const RenditionError = Schema.Struct({ message: Schema.String, fix: Schema.String })

/** A rendition as its readers see it (the publisher, the preparation job). */
export const RenditionRow = Schema.Struct({
  mediaId: Schema.String,
  targetKey: Schema.String,
  status: Schema.Literal("pending", "ready", "failed"),
  storageKey: Schema.NullOr(Schema.String),
  bytes: Schema.NullOr(Schema.Number),
  mime: Schema.NullOr(Schema.String),
  coverKey: Schema.NullOr(Schema.String),
  error: Schema.NullOr(RenditionError),
  /** When the row last changed (ms): names its job, so a rendition asked for again after a failure gets a new job. */
  changedAt: Schema.Number,
  /** How long the job working on it still holds it (0: nobody does). */
  leaseLeftMs: Schema.Number
})
export type RenditionRow = typeof RenditionRow.Type

/** What the preparation job needs: the rendition's target and the original it starts from. */
export const RenditionJobRow = Schema.Struct({
  status: Schema.Literal("pending", "ready", "failed"),
  target: RenditionTargetSchema,
  workspaceId: Schema.String,
  originalKey: Schema.String,
  name: Schema.String,
  facts: Schema.NullOr(MediaFactsSchema)
})
export type RenditionJobRow = typeof RenditionJobRow.Type

/** A library file's name and facts (the publisher plans its renditions from them). */
export const MediaFactsRow = Schema.Struct({ id: Schema.String, name: Schema.String, facts: Schema.NullOr(MediaFactsSchema) })
export type MediaFactsRow = typeof MediaFactsRow.Type

const decodeRenditions = Schema.decodeUnknown(Schema.Array(RenditionRow))
const decodeJobs = Schema.decodeUnknown(Schema.Array(RenditionJobRow))
const decodeFacts = Schema.decodeUnknown(Schema.Array(MediaFactsRow))
const decodeClaimed = Schema.decodeUnknown(Schema.Array(Schema.Struct({ mediaId: Schema.String })))

/** `media_renditions` (migration 0014): renditions made once per file and target. SQL only. */
export const makeRenditionsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const columns = sql`media_id, target_key, status, storage_key, bytes, mime, cover_key, error,
    floor(extract(epoch FROM updated_at) * 1000)::float8 AS changed_at,
    greatest(0, coalesce(ceil(extract(epoch FROM (lease_until - now())) * 1000), 0))::int AS lease_left_ms`

  /** The renditions of these files (every target). */
  const ofMedia = (mediaIds: ReadonlyArray<string>) => {
    const ids = [...new Set(mediaIds.filter(isUuid))]
    return ids.length === 0
      ? Effect.succeed([] as ReadonlyArray<RenditionRow>)
      : sql`SELECT ${columns} FROM media_renditions WHERE media_id IN ${sql.in(ids)}`.pipe(Effect.flatMap(decodeRenditions))
  }

  /** Records the wanted renditions (pending) unless they exist; answers them all as they stand. */
  const ensure = (wanted: ReadonlyArray<{ readonly mediaId: string; readonly targetKey: string; readonly target: RenditionTarget }>) =>
    Effect.gen(function* () {
      if (wanted.length === 0) return [] as ReadonlyArray<RenditionRow>
      const rows = wanted.map((w) => ({ mediaId: w.mediaId, targetKey: w.targetKey, target: JSON.stringify(w.target) }))
      yield* sql`INSERT INTO media_renditions ${sql.insert(rows)} ON CONFLICT (media_id, target_key) DO NOTHING`
      const found = yield* ofMedia(wanted.map((w) => w.mediaId))
      return found.filter((r) => wanted.some((w) => w.mediaId === r.mediaId && w.targetKey === r.targetKey))
    })

  /** Failed renditions among these made pending again (a retried or re-queued post gets a fresh attempt); ready ones are kept. */
  const resetFailed = (wanted: ReadonlyArray<{ readonly mediaId: string; readonly targetKey: string }>) =>
    Effect.forEach(
      wanted.filter((w) => isUuid(w.mediaId)),
      (w) =>
        sql`UPDATE media_renditions SET status = 'pending', error = NULL, lease_until = NULL, updated_at = now()
            WHERE media_id = ${w.mediaId} AND target_key = ${w.targetKey} AND status = 'failed'`,
      { discard: true }
    )

  /** The rendition with what its job needs; None when it (or its file) is gone. */
  const forJob = (mediaId: string, targetKey: string) =>
    isUuid(mediaId)
      ? sql`SELECT r.status, r.target, m.workspace_id, m.storage_key AS original_key, m.name, m.facts
            FROM media_renditions r JOIN media m ON m.id = r.media_id
            WHERE r.media_id = ${mediaId} AND r.target_key = ${targetKey}`.pipe(
          Effect.flatMap(decodeJobs),
          Effect.map((rows) => Option.fromNullable(rows[0]))
        )
      : Effect.succeed(Option.none<RenditionJobRow>())

  /** Takes a pending rendition for `leaseMs` unless another job holds it: whether we did. */
  const claim = (mediaId: string, targetKey: string, leaseMs: number) =>
    sql`UPDATE media_renditions SET lease_until = now() + ${leaseMs} * interval '1 millisecond', updated_at = now()
        WHERE media_id = ${mediaId} AND target_key = ${targetKey} AND status = 'pending'
          AND (lease_until IS NULL OR lease_until <= now())
        RETURNING media_id`.pipe(
      Effect.flatMap(decodeClaimed),
      Effect.map((rows) => rows.length > 0)
    )

  const markReady = (input: {
    readonly mediaId: string
    readonly targetKey: string
    readonly storageKey: string
    readonly bytes: number
    readonly mime: string
    readonly coverKey: string | null
  }) =>
    sql`UPDATE media_renditions SET status = 'ready', storage_key = ${input.storageKey}, bytes = ${input.bytes}, mime = ${input.mime},
          cover_key = ${input.coverKey}, error = NULL, lease_until = NULL, updated_at = now()
        WHERE media_id = ${input.mediaId} AND target_key = ${input.targetKey}`.pipe(Effect.asVoid)

  const markFailed = (mediaId: string, targetKey: string, error: { readonly message: string; readonly fix: string }) =>
    sql`UPDATE media_renditions SET status = 'failed', error = ${JSON.stringify(error)}, lease_until = NULL, updated_at = now()
        WHERE media_id = ${mediaId} AND target_key = ${targetKey} AND status = 'pending'`.pipe(Effect.asVoid)

  /** Names and facts of library files (ids that are not UUIDs are simply not found). */
  const factsOf = (mediaIds: ReadonlyArray<string>) => {
    const ids = [...new Set(mediaIds.filter(isUuid))]
    return ids.length === 0
      ? Effect.succeed([] as ReadonlyArray<MediaFactsRow>)
      : sql`SELECT id, name, facts FROM media WHERE id IN ${sql.in(ids)}`.pipe(Effect.flatMap(decodeFacts))
  }

  /**
   * The post's item waits for its files' preparation (`held: "preparation"` on the item,
   * shown by GET /posts/{id}); cleared when it is sent. Only a publishing item is marked.
   */
  const holdItem = (itemId: string) =>
    sql`UPDATE post_items SET held = 'preparation', held_at = coalesce(held_at, now())
        WHERE id = ${itemId} AND status = 'publishing' AND held IS NULL`.pipe(Effect.asVoid)

  const releaseItem = (itemId: string) =>
    sql`UPDATE post_items SET held = NULL, held_at = NULL WHERE id = ${itemId} AND held = 'preparation'`.pipe(Effect.asVoid)

  return { ofMedia, ensure, resetFailed, forJob, claim, markReady, markFailed, factsOf, holdItem, releaseItem }
})

export class RenditionsRepo extends Context.Tag("media/RenditionsRepo")<RenditionsRepo, Effect.Effect.Success<typeof makeRenditionsRepo>>() {
  static readonly Live = Layer.effect(RenditionsRepo, makeRenditionsRepo)
}
