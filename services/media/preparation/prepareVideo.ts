import { mkdir, rm, stat } from "node:fs/promises"
import path from "node:path"
import { Effect, Schema } from "effect"
import type { VideoFacts, VideoTarget } from "../../../domain/media/preparation.js"
import { PreparationFailed } from "./errors.js"
import { defaultProbeLimits } from "./limits.js"
import { probeFileWith } from "./probe.js"
import { ffmpegPath, ffprobePath, runTool, type ToolFailed } from "./tools.js"
import { coverArgs, demuxerOf, remuxArgs, transcodeArgs, videoBitrateCapKbps } from "./videoCommands.js"

export interface PreparedVideo {
  readonly path: string
  readonly bytes: number
  readonly mime: string
  readonly coverPath: string | null
  readonly facts: VideoFacts
  /** `remux`: the streams were copied (already H.264/AAC within the limits); `transcode`: re-encoded. */
  readonly mode: "remux" | "transcode"
}

/** Internal upper bound for one FFmpeg run; the pool's per-file limit (MEDIA_PREPARATION_TIMEOUT_SECONDS) is the one that applies. */
const RUN_LIMIT_MS = 6 * 60 * 60 * 1000

const PixelFormat = Schema.parseJson(Schema.Struct({ streams: Schema.Array(Schema.Struct({ pix_fmt: Schema.optional(Schema.String) })) }))

/** The first video stream's pixel format: networks take 4:2:0 H.264 only (4:4:4 "High 4:4:4" is refused by most). */
const pixelFormat = (file: string, container: string) =>
  runTool(
    ffprobePath,
    [
      "-v",
      "error",
      "-protocol_whitelist",
      "file",
      "-f",
      demuxerOf(container),
      "-select_streams",
      "v:0",
      "-show_entries",
      "stream=pix_fmt",
      "-of",
      "json",
      file
    ],
    { timeoutMs: 30_000 }
  ).pipe(
    Effect.flatMap((run) => Schema.decodeUnknown(PixelFormat)(run.stdout.toString("utf8"))),
    Effect.map((out) => out.streams[0]?.pix_fmt ?? "unknown"),
    Effect.orElseSucceed(() => "unknown")
  )

/** Copying the streams is enough: H.264 4:2:0 and AAC (or silence) in MP4/MOV, within every limit of the target. */
export const canRemux = (facts: VideoFacts, target: VideoTarget, pixFmt: string): boolean =>
  (facts.container === "mp4" || facts.container === "mov") &&
  facts.videoCodec === "h264" &&
  (facts.audioCodec === null || facts.audioCodec === "aac") &&
  (pixFmt === "yuv420p" || pixFmt === "yuvj420p") &&
  facts.width <= target.maxWidth &&
  facts.height <= target.maxHeight &&
  facts.frameRate <= target.maxFrameRate + 0.01 &&
  facts.bitrateKbps <= target.maxVideoBitrateKbps &&
  facts.bytes <= target.maxBytes

const ffmpegFailed = (what: string) => (e: ToolFailed) =>
  new PreparationFailed({
    reason: e.reason === "timeout" ? `${what} took too long` : `${what} failed (${e.stderr.trim().split("\n").pop() ?? `exit ${e.exitCode}`})`,
    fix: "export the video again as MP4 (H.264/AAC) and upload it"
  })

/** Where the cover frame of the rendition at `outPath` is written: next to it, `<name>-cover.jpg`. */
export const coverPathOf = (outPath: string) => path.join(path.dirname(outPath), `${path.basename(outPath, path.extname(outPath))}-cover.jpg`)

/**
 * An H.264/AAC MP4 with faststart that the target takes: the streams copied when they
 * already fit (`-c copy`), else re-encoded (videoCommands.ts); a JPEG cover frame when the
 * target wants one. The result is probed again, so its facts are what was written.
 */
export const prepareVideo = (
  input: { readonly path: string; readonly facts: VideoFacts },
  target: VideoTarget,
  outPath: string
): Effect.Effect<PreparedVideo, PreparationFailed> =>
  Effect.gen(function* () {
    const file = path.resolve(input.path)
    const out = path.resolve(outPath)
    const facts = input.facts
    yield* Effect.tryPromise({
      try: () => mkdir(path.dirname(out), { recursive: true }),
      catch: () => new PreparationFailed({ reason: "the rendition's folder could not be made", fix: "try again later" })
    })
    if (videoBitrateCapKbps(facts, target) < 100)
      return yield* new PreparationFailed({
        reason: `the video is too long (${Math.round(facts.durationSeconds)} s) to fit in ${Math.round(target.maxBytes / 1e6)} MB for this network`,
        fix: "upload a shorter video"
      })
    const transcode = runTool(ffmpegPath, transcodeArgs(file, facts, target, out), { timeoutMs: RUN_LIMIT_MS }).pipe(
      Effect.mapError(ffmpegFailed("converting the video")),
      Effect.as("transcode" as const)
    )
    const remuxable = canRemux(facts, target, yield* pixelFormat(file, facts.container))
    const remux = runTool(ffmpegPath, remuxArgs(file, facts, out), { timeoutMs: RUN_LIMIT_MS }).pipe(
      Effect.mapError(ffmpegFailed("rewriting the video")),
      Effect.as("remux" as const)
    )
    const mode = remuxable ? yield* Effect.orElse(remux, () => transcode) : yield* transcode
    const written = yield* Effect.tryPromise({
      try: () => stat(out),
      catch: () => new PreparationFailed({ reason: "FFmpeg wrote no video", fix: "export the video again as MP4 (H.264/AAC)" })
    })
    if (written.size > target.maxBytes) {
      yield* Effect.promise(() => rm(out, { force: true }))
      return yield* new PreparationFailed({
        reason: `the converted video is ${Math.round(written.size / 1e6)} MB, more than the ${Math.round(target.maxBytes / 1e6)} MB this network takes`,
        fix: "upload a shorter video"
      })
    }
    let coverPath: string | null = null
    if (target.cover) {
      coverPath = coverPathOf(out)
      yield* runTool(ffmpegPath, coverArgs(file, facts, target, coverPath), { timeoutMs: RUN_LIMIT_MS }).pipe(
        Effect.mapError(ffmpegFailed("taking the cover frame"))
      )
    }
    const outFacts = yield* probeFileWith(out, { ...defaultProbeLimits, maxInputBytes: Number.MAX_SAFE_INTEGER }).pipe(
      Effect.mapError(
        (refused) => new PreparationFailed({ reason: `the converted video could not be read back: ${refused.reason}`, fix: refused.fix })
      )
    )
    if (outFacts.kind !== "video") return yield* new PreparationFailed({ reason: "the converted file is not a video", fix: "upload the video again" })
    return { path: out, bytes: written.size, mime: "video/mp4", coverPath, facts: outFacts, mode }
  })
