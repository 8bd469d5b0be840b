import { createWriteStream } from "node:fs"
import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { pipeline } from "node:stream/promises"
import { Effect, Option } from "effect"
import type { MediaRefused, PayloadTooLarge } from "../../domain/errors.js"
import { detectFormat, HEAD_BYTES, looksLikePage } from "../../domain/media/fileType.js"
import { cleanName, importName, mediaItem, storageKey, type MediaItem } from "../../domain/media/library.js"
import { MediaErrors } from "../../domain/media/messages.js"
import { can } from "../../domain/policy.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { policyRequire } from "../platform/policy.js"
import { AppConfig } from "../platform/config.js"
import { isOutboundError, type OutboundError } from "../platform/outbound/errors.js"
import { OutboundHttp, outboundHttpFromEnv } from "../platform/outbound/outboundHttp.js"
import { inspectStoredFile, readHead } from "./inspectStoredFile.js"
import { probeFile } from "./preparation/probe.js"
import { makeMediaRepo } from "./mediaRepo.js"
import { MediaStorage } from "../platform/storage/mediaStorage.js"
import { MediaStorageLive } from "../platform/storage/mediaStorageLive.js"
import { withSpan } from "../platform/tracing.js"

/** Content types of pages, refused before their body is read (spec: "the file itself, not a page"). */
const pageTypes = new Set(["text/html", "application/xhtml+xml"])

const essence = (contentType: string | undefined) => (contentType ?? "").split(";")[0]!.trim().toLowerCase()

/**
 * The media library (spec: Media): takes a file that is already on local disk (the
 * upload's temp file, or a download), decides its type from the content, applies the
 * limits, stores it and records it. Also imports from public addresses and lists.
 */
export class MediaLibrary extends Effect.Service<MediaLibrary>()("media/MediaLibrary", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const limits = config.media
    const storage = yield* MediaStorage
    const repo = yield* makeMediaRepo
    // The outbound client in the context when one is given (tests allow one loopback origin
    // with OutboundHttpTest); otherwise the process's client: public addresses and OUTBOUND_ALLOW.
    const given = yield* Effect.serviceOption(OutboundHttp)
    const outbound = Option.isSome(given) ? given.value : yield* Effect.orDie(outboundHttpFromEnv)

    /** Checks a file on local disk and adds it to the workspace's library. */
    const addFile = (input: {
      readonly workspaceId: string
      readonly file: string
      readonly name: string
      readonly originalName: string
    }): Effect.Effect<MediaItem, MediaRefused | PayloadTooLarge> =>
      Effect.gen(function* () {
        const size = (yield* Effect.promise(() => fs.stat(input.file))).size
        if (size === 0) return yield* MediaErrors.empty()
        if (size > limits.maxUploadBytes) return yield* MediaErrors.uploadTooLarge(limits.maxUploadBytes)
        // refuse an oversized image before reading it
        const claimed = detectFormat(yield* readHead(input.file, HEAD_BYTES))
        if (claimed?.kind === "image" && size > limits.maxImageBytes) {
          return yield* MediaErrors.imageTooLarge(size, limits.maxImageBytes)
        }
        const inspection = yield* inspectStoredFile(input.file, size)
        if (inspection._tag === "Unsupported") return yield* MediaErrors.unsupported()
        if (inspection._tag === "Damaged") return yield* MediaErrors.damaged(inspection.format, inspection.reason)
        const { format, width, height } = inspection
        // what the network rules and preparation need; unreadable files and decompression bombs stop here
        const facts = yield* probeFile(input.file).pipe(Effect.mapError((e) => MediaErrors.probeRefused(e.reason, e.fix)))

        const id = crypto.randomUUID()
        const key = storageKey(input.workspaceId, id, format)
        yield* storage.put({ key, file: input.file, size, mime: format.mime }).pipe(Effect.orDie)
        const row = yield* repo
          .insert({
            id,
            workspaceId: input.workspaceId,
            name: cleanName(input.name) || `${id}.${format.extension}`,
            originalName: cleanName(input.originalName) || `${id}.${format.extension}`,
            storageKey: key,
            path: storage.publicUrl(key),
            mime: format.mime,
            type: format.kind,
            size,
            // a video's as shown (its rotation applied); an image's as stored, like its EXIF orientation
            width: facts.kind === "video" ? facts.width : (width ?? facts.width),
            height: facts.kind === "video" ? facts.height : (height ?? facts.height),
            facts
          })
          .pipe(
            Effect.orDie,
            Effect.tapErrorCause(() => storage.remove(key).pipe(Effect.ignore))
          )
        return mediaItem(row)
      }).pipe(withSpan("MediaLibrary.addFile"))

    const importError = (e: OutboundError): MediaRefused => {
      switch (e._tag) {
        case "ForbiddenAddress":
          return MediaErrors.notPublic()
        case "BadUrl":
          return MediaErrors.badUrl(e.reason)
        case "TooManyRedirects":
          return MediaErrors.tooManyRedirects(e.maxRedirects)
        case "ResponseTooLarge":
          return MediaErrors.importTooLarge(limits.maxUploadBytes)
        case "OutboundTimeout":
          return MediaErrors.timeout(limits.importTimeoutMs)
        case "UnexpectedContentType":
          return MediaErrors.page(essence(e.contentType))
        case "ConnectionFailed":
          return MediaErrors.unreachable()
      }
    }

    const tempDirectory = Effect.acquireRelease(
      Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "media-import-"))),
      (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
    )

    /**
     * POST /upload-from-url: downloads through the outbound client (public addresses only,
     * every hop; size cap; one deadline) into a temp file, then adds it like an upload.
     */
    const importFromUrl = (input: { readonly workspaceId: string; readonly url: string }) =>
      Effect.scoped(
        Effect.gen(function* () {
          const response = yield* outbound
            .stream({
              url: input.url,
              method: "GET",
              headers: { accept: "image/*,video/*;q=0.9,*/*;q=0.1", "user-agent": "Service-Media-Import/1" },
              maxBytes: limits.maxUploadBytes,
              timeoutMs: limits.importTimeoutMs
            })
            .pipe(Effect.mapError(importError))
          if (response.status < 200 || response.status > 299) return yield* MediaErrors.status(response.status)
          const contentType = essence(response.headers["content-type"])
          if (pageTypes.has(contentType)) return yield* MediaErrors.page(contentType)

          const dir = yield* tempDirectory
          const file = path.join(dir, "download")
          yield* Effect.tryPromise({
            try: (signal) => pipeline(response.body, createWriteStream(file), { signal }),
            catch: (e) => e
          }).pipe(Effect.catchAll((e) => (isOutboundError(e) ? Effect.fail(importError(e)) : Effect.die(e))))
          if (looksLikePage(yield* readHead(file, 512))) return yield* MediaErrors.page("text/html")
          const name = importName(input.url)
          return yield* addFile({ workspaceId: input.workspaceId, file, name, originalName: name })
        })
      ).pipe(withSpan("MediaLibrary.importFromUrl"))

    /** POST /upload: the request's file, already streamed to a temp file. */
    const upload = (input: { readonly file: string; readonly name: string }) =>
      Effect.flatMap(CurrentPrincipal, ({ workspaceId }) =>
        addFile({ workspaceId, file: input.file, name: input.name, originalName: input.name })
      ).pipe(policyRequire("media.upload"))

    /** POST /upload-from-url */
    const importUrl = (url: string) =>
      Effect.flatMap(CurrentPrincipal, ({ workspaceId }) => importFromUrl({ workspaceId, url })).pipe(policyRequire("media.upload"))

    /**
     * GET /media: every role may ask; the policy decides what it sees. Clients, who may not
     * browse the library, get an empty list rather than a refusal (spec).
     */
    const list = (input: { readonly page: number; readonly search: string | null }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        can(principal.role, "media.browse")
          ? repo.list({ workspaceId: principal.workspaceId, page: input.page, search: input.search }).pipe(
              Effect.orDie,
              Effect.map((rows) => rows.map(mediaItem))
            )
          : Effect.succeed([])
      ).pipe(withSpan("MediaLibrary.list"))

    return { addFile, importFromUrl, upload, importUrl, list }
  }),
  dependencies: [MediaStorageLive]
}) {}
