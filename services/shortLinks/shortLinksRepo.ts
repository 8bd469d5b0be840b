import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { withSpan } from "../platform/tracing.js"
import { removedCount } from "../platform/pruning.js"

const LinkRow = Schema.Struct({ code: Schema.String, url: Schema.String })
const ClicksRow = Schema.Struct({ code: Schema.String, postId: Schema.String, clicks: Schema.Number })
const decodeLinks = Schema.decodeUnknown(Schema.Array(LinkRow))
const decodeClicks = Schema.decodeUnknown(Schema.Array(ClicksRow))

/** A new code: 9 random bytes, 12 URL-safe characters (domain/shortLinks.ts shortCodePattern). */
const newCode = () => randomBytes(9).toString("base64url")

/** Short links and their flushed click counts (migration 10). SQL only. */
export const makeShortLinksRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * The code of each address for this channel post, made once: a publish that runs again
   * (a retry, a search after a lost answer) gets the same codes, so the same text.
   */
  const codesFor = (input: { readonly workspaceId: string; readonly postId: string; readonly urls: ReadonlyArray<string> }) =>
    Effect.gen(function* () {
      const urls = [...new Set(input.urls)]
      if (urls.length === 0) return new Map<string, string>()
      const rows = urls.map((url) => ({ code: newCode(), workspaceId: input.workspaceId, postId: input.postId, url }))
      yield* sql`INSERT INTO short_links ${sql.insert(rows)} ON CONFLICT (post_id, url) DO NOTHING`
      const stored = yield* sql`SELECT code, url FROM short_links WHERE post_id = ${input.postId} AND url IN ${sql.in(urls)}`.pipe(
        Effect.flatMap(decodeLinks)
      )
      return new Map(stored.map((r) => [r.url, r.code]))
    }).pipe(withSpan("ShortLinksRepo.codesFor"))

  /** The address behind a code. */
  const resolve = (code: string) =>
    sql`SELECT code, url FROM short_links WHERE code = ${code}`.pipe(
      Effect.flatMap(decodeLinks),
      Effect.map((rows) => Option.fromNullable(rows[0]?.url)),
      withSpan("ShortLinksRepo.resolve")
    )

  /**
   * Adds one flushed batch of clicks, once: the batch id is recorded in the same
   * transaction, so a batch flushed again after a crash adds nothing the second time.
   */
  const addBatch = (batchId: string, clicks: ReadonlyArray<readonly [code: string, count: number]>) =>
    sql
      .withTransaction(
        Effect.gen(function* () {
          const fresh = yield* sql<{ id: string }>`INSERT INTO short_link_flushes (id) VALUES (${batchId}) ON CONFLICT DO NOTHING RETURNING id`
          if (fresh.length === 0) return false
          for (const [code, count] of clicks) yield* sql`UPDATE short_links SET clicks = clicks + ${count} WHERE code = ${code}`
          return true
        })
      )
      .pipe(withSpan("ShortLinksRepo.addBatch"))

  /** The codes of these channel posts with their flushed clicks. */
  const clicksOf = (workspaceId: string, postIds: ReadonlyArray<string>) =>
    postIds.length === 0
      ? Effect.succeed([])
      : sql`SELECT code, post_id, clicks FROM short_links WHERE workspace_id = ${workspaceId} AND post_id IN ${sql.in(postIds)}`.pipe(
          Effect.flatMap(decodeClicks),
          withSpan("ShortLinksRepo.clicksOf")
        )

  /** Whether the whole post asked for short links (POST /posts `shortLink`). */
  const enabledFor = (groupId: string) =>
    sql<{ shortLink: boolean }>`SELECT short_link FROM post_groups WHERE id = ${groupId}`.pipe(
      Effect.map((rows) => rows[0]?.shortLink === true),
      withSpan("ShortLinksRepo.enabledFor")
    )

  /** Which of these flush batches Postgres already holds (their Redis copy is about to go). */
  const recordedBatches = (ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.succeed(new Set<string>())
      : sql<{ id: string }>`SELECT id FROM short_link_flushes WHERE id IN ${sql.in(ids)}`.pipe(Effect.map((rows) => new Set(rows.map((r) => r.id))))

  /**
   * Removes up to `limit` click batches recorded more than `seconds` ago (the retention job):
   * their clicks are in short_links.clicks since that commit, and their Redis copy went at the
   * next flush of any gateway (seconds later), so no flush can bring the batch again.
   */
  const pruneBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM short_link_flushes WHERE id IN (
          SELECT id FROM short_link_flushes WHERE flushed_at < now() - make_interval(secs => ${seconds})
          ORDER BY flushed_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return { codesFor, resolve, addBatch, clicksOf, enabledFor, recordedBatches, pruneBatch }
})

export class ShortLinksRepo extends Context.Tag("shortLinks/ShortLinksRepo")<ShortLinksRepo, Effect.Effect.Success<typeof makeShortLinksRepo>>() {
  static readonly Live = Layer.effect(ShortLinksRepo, makeShortLinksRepo)
}
