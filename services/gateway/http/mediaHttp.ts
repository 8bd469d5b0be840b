import { HttpApiBuilder, HttpIncomingMessage, HttpServerRequest, HttpServerResponse, Multipart } from "@effect/platform"
import { Cause, Effect, Layer, Option, Predicate } from "effect"
import { type ApiError, Errors, Messages } from "../../../domain/errors.js"
import { formatByExtension } from "../../../domain/media/formats.js"
import { isStorageKey } from "../../../domain/media/library.js"
import { MediaErrors } from "../../../domain/media/messages.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { MediaLibrary } from "../../media/MediaLibrary.js"
import { authorize } from "../../platform/policy.js"
import { MediaStorage, type ByteRange } from "../../platform/storage/mediaStorage.js"
import { MediaStorageLive } from "../../platform/storage/mediaStorageLive.js"
import type { MediaConfig } from "../../platform/config.js"
import { multipartBodyUnreadable } from "../multipartBodyEnd.js"

export const MediaHttpLive = HttpApiBuilder.group(PublicApi, "media", (handlers) =>
  Effect.gen(function* () {
    const library = yield* MediaLibrary
    return handlers
      .handle("upload", ({ payload }) => library.upload({ file: payload.file.path, name: payload.file.name }).pipe(authorize("media.upload")))
      .handle("uploadFromUrl", ({ payload }) => library.importUrl(payload.url).pipe(authorize("media.upload")))
      .handle("listMedia", ({ urlParams }) => library.list({ page: urlParams.page ?? 1, search: urlParams.search ?? null }))
  })
).pipe(Layer.provide(MediaLibrary.Default))

// ---------------------------------------------------------------------------------------
// POST /upload body limits (instead of the 5 MB JSON limit)

export const UPLOAD_PATH = "/public/v1/upload"

/** Room for the multipart boundaries and part headers around the file. */
const MULTIPART_OVERHEAD = 64 * 1024
/** The parser counts a part's headers in its size; the exact file limit is checked on the stored file. */
const PART_HEADERS = 16 * 1024
const MAX_PARTS = 16
const MAX_FIELD_BYTES = 16 * 1024

/** A multipart POST /upload; any other body there keeps the 5 MB JSON limit (and gets 400). */
export const isUploadRequest = (request: HttpServerRequest.HttpServerRequest): boolean =>
  request.method === "POST" &&
  request.url.split("?")[0] === UPLOAD_PATH &&
  (request.headers["content-type"] ?? "").toLowerCase().includes("multipart/form-data")

/** multipasta's limit error, as it arrives when it stops the file being written (InternalError). */
const reachedSizeLimit = (u: unknown, depth = 0): boolean => {
  if (depth > 4 || typeof u !== "object" || u === null) return false
  if (Predicate.isTagged(u, "ReachedLimit") && Predicate.hasProperty(u, "limit")) {
    return u.limit === "MaxPartSize" || u.limit === "MaxTotalSize"
  }
  if (u instanceof Error && /ReachedLimit.*(MaxPartSize|MaxTotalSize)/.test(u.message)) return true
  return Predicate.hasProperty(u, "cause") && reachedSizeLimit(u.cause, depth + 1)
}

const isTooLargeMultipart = (u: unknown): boolean =>
  Predicate.isTagged(u, "MultipartError") &&
  Predicate.hasProperty(u, "reason") &&
  (u.reason === "FileTooLarge" || u.reason === "BodyTooLarge" || reachedSizeLimit(u))

/**
 * Runs an upload request with the upload limits: a declared length over the largest
 * upload is refused before reading; otherwise the body streams to a temp file and the
 * parser stops the moment the file passes MAX_UPLOAD_BYTES (413 with the limit). A body
 * that ends without its closing boundary gets 400 as soon as it ends (the parser would
 * wait for the boundary forever); the request's temp files go with its scope.
 */
export const withUploadLimits = <A, E, R>(app: Effect.Effect<A, E, R>, declaredLength: number, limits: MediaConfig) => {
  const tooLarge = MediaErrors.uploadTooLarge(limits.maxUploadBytes)
  if (declaredLength > limits.maxUploadBytes + MULTIPART_OVERHEAD) return Effect.fail(tooLarge)
  const unreadable = multipartBodyUnreadable(Errors.badRequest(Messages.multipartUnreadable))
  // the request runs uninterruptibly; the race's loser must be stoppable (the platform runs route handlers interruptibly too)
  return Effect.raceFirst(Effect.interruptible(app), Effect.interruptible(unreadable)).pipe(
    Multipart.withMaxFileSize(Option.some(limits.maxUploadBytes + PART_HEADERS)),
    // other parts are kept in memory: few and small
    Multipart.withMaxParts(Option.some(MAX_PARTS)),
    Multipart.withMaxFieldSize(MAX_FIELD_BYTES),
    HttpIncomingMessage.withMaxBodySize(Option.some(limits.maxUploadBytes + MULTIPART_OVERHEAD)),
    Effect.catchAllCause((cause): Effect.Effect<never, E | ApiError> => {
      const failure = Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))
      return Option.isSome(failure) && isTooLargeMultipart(failure.value) ? Effect.fail(tooLarge) : Effect.failCause(cause)
    })
  )
}

// ---------------------------------------------------------------------------------------
// GET /media/<workspace>/<id>.<ext>: the stored files (outside the OpenAPI document)

/** A single `bytes=` range of a file of `size` bytes; undefined = send it all; "unsatisfiable" = 416. */
export const parseRange = (header: string | undefined, size: number): ByteRange | "unsatisfiable" | undefined => {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (match === null) return undefined // absent, multiple ranges or malformed: the whole file
  const [, from = "", to = ""] = match
  if (from === "" && to === "") return undefined
  if (from === "") {
    const suffix = Number(to)
    if (suffix === 0) return "unsatisfiable"
    return { start: Math.max(0, size - suffix), end: size - 1 }
  }
  const start = Number(from)
  const end = to === "" ? size - 1 : Math.min(Number(to), size - 1)
  if (start >= size || start > end) return "unsatisfiable"
  return { start, end }
}

const MEDIA_PREFIX = "/media/"

/** Files are immutable (a new upload gets a new id), so readers and CDNs may keep them. */
export const MediaFilesRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const storage = yield* MediaStorage
    yield* router.get(
      "/media/*",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.url.split("?")[0]!.slice(MEDIA_PREFIX.length)
        const format = formatByExtension(key.split(".").pop() ?? "")
        if (!isStorageKey(key) || format === undefined) return yield* Errors.notFound()
        const stored = yield* storage.stat(key).pipe(Effect.orDie)
        if (Option.isNone(stored)) return yield* Errors.notFound()
        const size = stored.value.size
        const headers = {
          "accept-ranges": "bytes",
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff"
        }
        const range = parseRange(request.headers["range"], size)
        if (range === "unsatisfiable") {
          return HttpServerResponse.empty({ status: 416, headers: { ...headers, "content-range": `bytes */${size}` } })
        }
        const status = range === undefined ? 200 : 206
        const length = range === undefined ? size : range.end - range.start + 1
        const rangeHeaders = range === undefined ? {} : { "content-range": `bytes ${range.start}-${range.end}/${size}` }
        const all = { ...headers, ...rangeHeaders, "content-type": format.mime, "content-length": String(length) }
        if (request.method === "HEAD") return HttpServerResponse.empty({ status, headers: all })
        const body = yield* storage.read(key, range).pipe(Effect.orDie)
        return HttpServerResponse.raw(body, { status, headers: all })
      })
    )
  })
).pipe(Layer.provide(MediaStorageLive))
