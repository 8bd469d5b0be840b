import { createWriteStream } from "node:fs"
import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { pipeline } from "node:stream/promises"
import { Config, Effect, Layer, Option } from "effect"
import type { RenditionTarget } from "../../domain/media/preparation.js"
import { PrepareJobJson, type PrepareJob } from "../../protocol/jobs.js"
import { consumeJobs, JobOutcome } from "../platform/jetstreamConsumer.js"
import { Nats } from "../platform/nats.js"
import { withSpan } from "../platform/tracing.js"
import { PreparationPool } from "./preparation/PreparationPool.js"
import { RenditionsRepo } from "./renditionsRepo.js"
import { MediaStorage } from "../platform/storage/mediaStorage.js"
import { MediaStorageLive } from "../platform/storage/mediaStorageLive.js"

/**
 * The preparation worker: consumes PREPARE, one job per (file, target). Runs in the
 * publisher's process as a consumer of its own (its own slots, its own ack wait), so a long
 * transcode holds no publishing slot and delays no post that does not need it; the
 * PreparationPool bounds how many files are prepared at once (CPU count) and for how long.
 * The rendition is written next to the original in storage (`<workspace>/<id>.<target key>.<ext>`)
 * and recorded in media_renditions; the original is only read.
 */

const extensionOf = (target: RenditionTarget) => (target.kind === "video" ? "mp4" : target.format === "png" ? "png" : "jpg")

/** Where a rendition (and its cover) is kept: next to the original, named by the target. */
export const renditionKey = (workspaceId: string, mediaId: string, key: string, target: RenditionTarget) =>
  `${workspaceId}/${mediaId}.${key}.${extensionOf(target)}`
export const coverKey = (workspaceId: string, mediaId: string, key: string) => `${workspaceId}/${mediaId}.${key}.cover.jpg`

const sentence = (text: string) => {
  const t = text.trim()
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}`
}

const tempDirectory = Effect.acquireRelease(
  Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), "media-prepare-"))),
  (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
)

/** One job: claim the rendition, copy the original to a temp file, prepare it in the pool, store it, record it. */
export const prepareJob = (job: PrepareJob, leaseMs: number) =>
  Effect.gen(function* () {
    const repo = yield* RenditionsRepo
    const storage = yield* MediaStorage
    const pool = yield* PreparationPool
    const found = yield* repo.forJob(job.mediaId, job.targetKey)
    if (Option.isNone(found)) return JobOutcome.Drop({ reason: "the rendition or its file is gone" })
    const row = found.value
    if (row.status !== "pending") return JobOutcome.Done()
    const fail = (reason: string, fix: string) =>
      repo
        .markFailed(job.mediaId, job.targetKey, {
          message: `${row.name} could not be prepared for the network: ${reason.trim().replace(/\.$/, "")}.`,
          fix: sentence(fix)
        })
        .pipe(Effect.as(JobOutcome.Done()))
    const facts = row.facts
    if (facts === null) return yield* fail("what the file is was never read", "upload the file again and attach the new upload")
    if (!(yield* repo.claim(job.mediaId, job.targetKey, leaseMs))) {
      // another job is making it: look again later (it is then ready, or its holder died)
      return JobOutcome.Retry({ delayMs: 30_000 })
    }
    // a storage that cannot be reached is retried (the handler fails); a file that is gone is not coming back
    if (Option.isNone(yield* storage.stat(row.originalKey).pipe(Effect.orDie))) {
      return yield* fail("the original file is no longer in storage", "upload the file again, attach the new upload to the post and retry it")
    }
    return yield* Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDirectory
        const original = path.join(dir, "original")
        const stream = yield* storage.read(row.originalKey).pipe(Effect.orDie)
        yield* Effect.tryPromise(() => pipeline(stream, createWriteStream(original))).pipe(Effect.orDie)
        const out = path.join(dir, `rendition.${extensionOf(row.target)}`)
        const made = yield* pool.prepare({ path: original, facts }, row.target, out).pipe(Effect.either)
        if (made._tag === "Left") return yield* fail(made.left.reason, made.left.fix)
        const rendition = made.right
        const key = renditionKey(row.workspaceId, job.mediaId, job.targetKey, row.target)
        yield* storage.put({ key, file: rendition.path, size: rendition.bytes, mime: rendition.mime }).pipe(Effect.orDie)
        let cover: string | null = null
        const coverPath = rendition.coverPath
        if (coverPath !== null) {
          cover = coverKey(row.workspaceId, job.mediaId, job.targetKey)
          const size = (yield* Effect.promise(() => fs.stat(coverPath))).size
          yield* storage.put({ key: cover, file: coverPath, size, mime: "image/jpeg" }).pipe(Effect.orDie)
        }
        yield* repo.markReady({
          mediaId: job.mediaId,
          targetKey: job.targetKey,
          storageKey: key,
          bytes: rendition.bytes,
          mime: rendition.mime,
          coverKey: cover
        })
        yield* Effect.logInfo(`rendition ${job.targetKey} of ${job.mediaId} ready (${rendition.bytes} bytes)`)
        return JobOutcome.Done()
      })
    )
  }).pipe(withSpan("media.prepareJob", { attributes: { mediaId: job.mediaId, targetKey: job.targetKey } }))

/** The PREPARE consumer, started with the publisher (services/publisher/main.ts). */
export const PreparationWorkerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const nats = yield* Nats
    const pool = yield* PreparationPool
    const ackWaitMs = yield* Config.integer("MEDIA_PREPARATION_ACK_WAIT_MS").pipe(Config.withDefault(60_000))
    // held while the pool works on it, and a while after: a job whose process died frees it then
    const leaseMs = pool.settings.timeoutMs + 5 * 60_000
    yield* consumeJobs({
      stream: nats.names.prepareStream,
      durable: nats.names.preparationConsumer,
      schema: PrepareJobJson,
      // jobs beyond the pool's places wait in the pool, not in JetStream: two per place keeps it busy
      concurrency: pool.settings.concurrency * 2,
      ackWaitMs,
      handle: (job) => prepareJob(job, leaseMs)
    })
    yield* Effect.logInfo("media preparation started")
  })
).pipe(Layer.provide(Layer.mergeAll(PreparationPool.Default, RenditionsRepo.Live, MediaStorageLive)))
