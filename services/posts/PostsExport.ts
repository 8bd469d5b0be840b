import { Chunk, Effect, Option, Stream } from "effect"
import { Errors } from "../../domain/errors.js"
import { csvHeader, EXPORT_PAGE_ROWS, lineOf, type ExportFormat } from "../../domain/posts/exportFile.js"
import { postsRange } from "../../domain/posts/listRange.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { withSpan } from "../platform/tracing.js"
import { PostsExportRepo, type ExportCursor, type ExportedPostRow } from "./postsExportRepo.js"

const lineFields = (r: ExportedPostRow) => ({
  date: r.publishDate.toISOString(),
  group: r.groupId,
  postId: r.id,
  channels: r.channelId,
  channelName: r.channelName,
  network: r.network,
  status: r.status,
  content: r.content,
  releaseUrl: r.releaseUrl,
  error: r.error?.message ?? null,
  tags: r.tags
})

/**
 * GET /posts/export (docs/api.md, "Beyond the reference API"): the channel posts of a range
 * (the range of GET /posts), oldest first, with their states, release URLs and errors,
 * streamed page by page (postsExportRepo.ts) so no export is held in memory whole.
 */
export class PostsExport extends Effect.Service<PostsExport>()("posts/PostsExport", {
  effect: Effect.gen(function* () {
    const repo = yield* PostsExportRepo

    const open = Effect.fnUntraced(function* (query: {
      readonly startDate?: string | undefined
      readonly endDate?: string | undefined
      readonly format?: string | undefined
    }) {
      const { workspaceId } = yield* CurrentPrincipal
      const format: ExportFormat | null =
        query.format === undefined || query.format === "" || query.format === "csv" ? "csv" : query.format === "jsonl" ? "jsonl" : null
      if (format === null) return yield* Effect.fail(Errors.badRequest("The format must be csv or jsonl.", "Pass format=csv or format=jsonl."))
      const { start, end } = yield* postsRange(query, new Date())
      const pages = Stream.paginateChunkEffect(null as ExportCursor | null, (after) =>
        repo.page({ workspaceId, start, end, after, limit: EXPORT_PAGE_ROWS }).pipe(
          storageDefects,
          Effect.map((rows) => {
            const last = rows[rows.length - 1]
            const next =
              rows.length < EXPORT_PAGE_ROWS || last === undefined ? Option.none() : Option.some({ publishDate: last.publishDate, id: last.id })
            return [Chunk.of(rows.map((r) => lineOf(format, lineFields(r))).join("")), next] as const
          })
        )
      )
      const body = format === "csv" ? Stream.concat(Stream.make(csvHeader), pages) : pages
      return { format, body: body.pipe(Stream.filter((text) => text !== "")) }
    })

    return { open: (query: Parameters<typeof open>[0]) => open(query).pipe(withSpan("PostsExport.open"), policyRequire("posts.read")) }
  }),
  dependencies: [PostsExportRepo.Live]
}) {}
