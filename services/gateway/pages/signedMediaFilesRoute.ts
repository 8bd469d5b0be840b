import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Layer, Option } from "effect"
import { AppConfig } from "../../platform/config.js"
import { MEDIA_FILES_PATH, verifyMediaToken } from "../../platform/storage/signedMediaUrls.js"
import { MediaStorage } from "../../platform/storage/mediaStorage.js"
import { MediaStorageLive } from "../../platform/storage/mediaStorageLive.js"
import { parseRange } from "../http/mediaHttp.js"

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  mp4: "video/mp4",
  mov: "video/quicktime",
  webm: "video/webm",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp"
}

const refuse = (status: number, text: string) => HttpServerResponse.text(text, { status, headers: { "cache-control": "no-store" } })

/**
 * GET (and HEAD) /media-files/<token>: the one stored file a signed token names, until it
 * expires (services/platform/storage/signedMediaUrls.ts), from either storage backend, with single
 * byte ranges (206 + Content-Range; 416 past the end): networks fetch videos in ranges.
 * 403 for a token that was not signed here or was changed, 410 once it has expired.
 */
export const SignedMediaFilesRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const storage = yield* MediaStorage
    const { secretKey } = yield* AppConfig
    yield* router.get(
      // a wildcard, not `:token`: the router drops parameters longer than 100 characters
      `${MEDIA_FILES_PATH}*`,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = request.url.split("?")[0]!.slice(MEDIA_FILES_PATH.length)
        const verified = verifyMediaToken(secretKey, token, Math.floor(Date.now() / 1000))
        if (Either.isLeft(verified))
          return verified.left === "expired" ? refuse(410, "This address has expired; ask for a new one.") : refuse(403, "This address is not valid.")
        const { key, expiresAt } = verified.right
        const stored = yield* storage.stat(key).pipe(Effect.orDie)
        if (Option.isNone(stored)) return refuse(404, "No such file.")
        const size = stored.value.size
        const headers = {
          "accept-ranges": "bytes",
          "cache-control": `private, max-age=${Math.max(0, expiresAt - Math.floor(Date.now() / 1000))}`,
          "x-content-type-options": "nosniff"
        }
        const range = parseRange(request.headers["range"], size)
        if (range === "unsatisfiable") return HttpServerResponse.empty({ status: 416, headers: { ...headers, "content-range": `bytes */${size}` } })
        const status = range === undefined ? 200 : 206
        const length = range === undefined ? size : range.end - range.start + 1
        const all = {
          ...headers,
          ...(range === undefined ? {} : { "content-range": `bytes ${range.start}-${range.end}/${size}` }),
          "content-type": MIME_BY_EXTENSION[key.split(".").pop()?.toLowerCase() ?? ""] ?? "application/octet-stream",
          "content-length": String(length)
        }
        if (request.method === "HEAD") return HttpServerResponse.empty({ status, headers: all })
        const body = yield* storage.read(key, range).pipe(Effect.orDie)
        return HttpServerResponse.raw(body, { status, headers: all })
      })
    )
  })
).pipe(Layer.provide(MediaStorageLive))
