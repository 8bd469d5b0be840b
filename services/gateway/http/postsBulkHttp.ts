import { FileSystem, HttpApiBuilder, HttpServerRequest, HttpServerResponse, Multipart, Path } from "@effect/platform"
import { Context, Effect, Stream } from "effect"
import { Errors, Messages } from "../../../domain/errors.js"
import { contentTypeOf } from "../../../domain/posts/exportFile.js"
import type { ImportFormat } from "../../../domain/posts/importFile.js"
import { postsPerHour } from "../../../domain/rateWindow.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { RateWindows } from "../../actors/rateWindows.js"
import { authorize } from "../../platform/policy.js"
import { PostsExport } from "../../posts/PostsExport.js"
import { PostsImport } from "../../posts/PostsImport.js"

/** A file's format from its type or name: JSON lines when either says so, else CSV. */
const formatOf = (contentType: string, name = ""): ImportFormat =>
  /ndjson|jsonl|json/i.test(contentType) || /\.(jsonl|ndjson)$/i.test(name) ? "jsonl" : "csv"

/**
 * The file of POST /posts/import: the body itself (text/csv, application/x-ndjson), or the
 * multipart field `file`. Read here (handleRaw), since HttpApi would read a body that is
 * neither JSON nor text/* a second time after the edge checks read it.
 */
const readImport = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (contentType.includes("multipart/form-data")) {
    const parts = yield* request.multipart.pipe(Effect.mapError(() => Errors.badRequest(Messages.multipartUnreadable)))
    const field = parts["file"]
    const file = Array.isArray(field) ? field[0] : undefined
    if (file === undefined || !Multipart.isPersistedFile(file)) return yield* Effect.fail(Errors.badRequest(Messages.multipartUnreadable))
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file.path).pipe(Effect.mapError(() => Errors.badRequest(Messages.requestUnreadable)))
    return { text, format: formatOf(file.contentType, file.name) }
  }
  const text = yield* request.text.pipe(Effect.mapError(() => Errors.badRequest(Messages.requestUnreadable)))
  return { text, format: formatOf(contentType) }
})

/** The file's requests in POST /posts' window (the same Redis key): refused → 429, nothing saved. Also the MCP tool's. */
export const importAdmission = (windows: Context.Tag.Service<RateWindows>) => (workspaceId: string) => (requests: number) =>
  windows
    .take(workspaceId, "posts", postsPerHour, requests)
    .pipe(Effect.flatMap((d) => (d.allowed ? Effect.void : Effect.fail(Errors.tooManyRequests(d.retryAfterSeconds)))))

/** Import and export of posts: contract → PostsImport, PostsExport. */
export const PostsBulkHttpLive = HttpApiBuilder.group(PublicApi, "postsBulk", (handlers) =>
  Effect.gen(function* () {
    const importer = yield* PostsImport
    const exporter = yield* PostsExport
    const windows = yield* RateWindows
    // a multipart file is stored in a temp file first (the request's scope removes it)
    const files = Context.make(FileSystem.FileSystem, yield* FileSystem.FileSystem).pipe(Context.add(Path.Path, yield* Path.Path))
    const admit = importAdmission(windows)
    const importPosts = Effect.fnUntraced(function* (dryRun: boolean, idempotencyKey: string | null) {
      const { workspaceId } = yield* CurrentPrincipal
      const { text, format } = yield* Effect.provide(readImport, files)
      const answer = yield* importer.run({ text, format, dryRun, idempotencyKey, admit: admit(workspaceId) })
      return HttpServerResponse.unsafeJson(answer)
    })
    return handlers
      .handleRaw("importPosts", ({ headers, urlParams }) =>
        importPosts(urlParams.dryRun === "true", headers["idempotency-key"] ?? null).pipe(authorize("posts.write"))
      )
      .handleRaw("exportPosts", ({ urlParams }) =>
        exporter.open(urlParams).pipe(
          Effect.map(({ body, format }) => HttpServerResponse.stream(body.pipe(Stream.encodeText), { contentType: contentTypeOf(format) })),
          authorize("posts.read")
        )
      )
  })
)
