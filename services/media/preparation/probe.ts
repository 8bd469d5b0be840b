import { open, readFile, stat } from "node:fs/promises"
import path from "node:path"
import { Effect, Schema } from "effect"
import sharp from "sharp"
import type { ImageFacts, MediaFacts, VideoFacts } from "../../../domain/media/preparation.js"
import { ProbeRefused } from "./errors.js"
import { heicSize } from "./heic.js"
import { type ProbeLimits, probeLimitsFromEnv } from "./limits.js"
import { SNIFF_BYTES, type Sniffed, sniff } from "./sniff.js"
import { ffprobePath, runTool } from "./tools.js"

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

const unreadable = (what: string) =>
  new ProbeRefused({
    reason: `the file could not be read as ${what}`,
    fix: "export it again from the app that made it (JPEG, PNG, GIF, WEBP, HEIC or AVIF for images; MP4, MOV or WEBM for videos)"
  })

const bomb = (reason: string) => new ProbeRefused({ reason, fix: "upload a smaller image or video (for example as exported by a phone or camera)" })

/** What FFprobe's JSON says, the parts the facts need; everything else in it is ignored. */
const FfprobeStream = Schema.Struct({
  codec_type: Schema.optional(Schema.String),
  codec_name: Schema.optional(Schema.String),
  width: Schema.optional(Schema.Number),
  height: Schema.optional(Schema.Number),
  r_frame_rate: Schema.optional(Schema.String),
  avg_frame_rate: Schema.optional(Schema.String),
  nb_frames: Schema.optional(Schema.String),
  duration: Schema.optional(Schema.String),
  disposition: Schema.optional(Schema.Struct({ attached_pic: Schema.optional(Schema.Number) })),
  tags: Schema.optional(Schema.Struct({ rotate: Schema.optional(Schema.String) })),
  side_data_list: Schema.optional(
    Schema.Array(Schema.Struct({ side_data_type: Schema.optional(Schema.String), rotation: Schema.optional(Schema.Number) }))
  )
})
const FfprobeOutput = Schema.Struct({
  streams: Schema.optionalWith(Schema.Array(FfprobeStream), { default: () => [] }),
  format: Schema.Struct({
    format_name: Schema.optional(Schema.String),
    duration: Schema.optional(Schema.String),
    bit_rate: Schema.optional(Schema.String)
  })
})
const decodeFfprobe = Schema.decodeUnknown(Schema.parseJson(FfprobeOutput))

/** "30000/1001" → 29.97; 0 when absent or 0/0. */
export const parseRate = (rate: string | undefined): number => {
  if (rate === undefined) return 0
  const [n, d] = rate.split("/").map(Number)
  if (n === undefined || !Number.isFinite(n)) return 0
  if (d === undefined) return n
  return d > 0 && Number.isFinite(d) ? n / d : 0
}

const finiteOr = (text: string | undefined, fallback: number) => {
  const n = text === undefined ? Number.NaN : Number(text)
  return Number.isFinite(n) ? n : fallback
}

const readHead = (file: string) =>
  Effect.tryPromise({
    try: async () => {
      const handle = await open(file, "r")
      try {
        const buffer = Buffer.alloc(SNIFF_BYTES)
        const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0)
        return buffer.subarray(0, bytesRead)
      } finally {
        await handle.close()
      }
    },
    catch: () => unreadable("a file")
  })

const probeImage = (file: string, format: "jpeg" | "png" | "gif" | "webp" | "avif", bytes: number, limits: ProbeLimits) =>
  Effect.gen(function* () {
    // metadata() reads headers only: nothing is decoded, so a declared 50000×50000 PNG costs
    // nothing here; the pixel limit is checked below, with a message that says so
    const meta = yield* Effect.tryPromise({
      try: () => sharp(file, { limitInputPixels: false, failOn: "error" }).metadata(),
      catch: () => unreadable(`a ${format.toUpperCase()} image`)
    })
    const width = meta.width ?? 0
    const height = meta.pageHeight ?? meta.height ?? 0
    const frames = meta.pages ?? 1
    if (width <= 0 || height <= 0) return yield* unreadable(`a ${format.toUpperCase()} image`)
    yield* checkImageSize(width, height, frames, limits)
    const facts: ImageFacts = {
      kind: "image",
      format,
      width,
      height,
      orientation: meta.orientation ?? 1,
      animated: frames > 1,
      frames,
      colourSpace: meta.space ?? "srgb",
      bytes
    }
    return facts
  })

const checkImageSize = (width: number, height: number, frames: number, limits: ProbeLimits) => {
  if (width * height > limits.maxImagePixels)
    return Effect.fail(
      bomb(
        `the image declares ${width}×${height} pixels (${Math.round((width * height) / 1e6)} megapixels), more than the ` +
          `${Math.round(limits.maxImagePixels / 1e6)} megapixels taken`
      )
    )
  if (frames > limits.maxImageFrames) return Effect.fail(bomb(`the image has ${frames} frames, more than the ${limits.maxImageFrames} taken`))
  return Effect.void
}

const probeHeic = (file: string, bytes: number, limits: ProbeLimits) =>
  Effect.gen(function* () {
    if (bytes > limits.maxHeicBytes)
      return yield* new ProbeRefused({
        reason: `the HEIC image is ${mb(bytes)}, more than the ${mb(limits.maxHeicBytes)} taken for HEIC`,
        fix: "export it as JPEG, or as a smaller HEIC"
      })
    const buffer = yield* Effect.tryPromise({ try: () => readFile(file), catch: () => unreadable("a HEIC image") })
    const size = yield* Effect.tryPromise({ try: () => heicSize(buffer), catch: () => unreadable("a HEIC image") })
    yield* checkImageSize(size.width, size.height, 1, limits)
    const facts: ImageFacts = {
      kind: "image",
      format: "heif",
      width: size.width,
      height: size.height,
      // libheif applies the container's rotation (irot/imir) itself: the size above is as shown
      orientation: 1,
      animated: false,
      frames: 1,
      colourSpace: "srgb",
      bytes
    }
    return facts
  })

/** FFprobe, demuxer forced from the sniffed container, reading nothing but the file. */
export const ffprobeArgs = (file: string, demuxer: string): ReadonlyArray<string> => [
  "-v",
  "error",
  "-protocol_whitelist",
  "file",
  "-f",
  demuxer,
  "-print_format",
  "json",
  "-show_format",
  "-show_streams",
  file
]

const probeVideo = (file: string, sniffed: Extract<Sniffed, { kind: "video" }>, bytes: number, limits: ProbeLimits) =>
  Effect.gen(function* () {
    const what = `a ${sniffed.container.toUpperCase()} video`
    const run = yield* runTool(ffprobePath, ffprobeArgs(file, sniffed.demuxer), { timeoutMs: limits.probeTimeoutMs }).pipe(
      Effect.mapError(() => unreadable(what))
    )
    const out = yield* decodeFfprobe(run.stdout.toString("utf8")).pipe(Effect.mapError(() => unreadable(what)))
    const video = out.streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1)
    if (video === undefined || video.codec_name === undefined)
      return yield* new ProbeRefused({
        reason: "the file has no video track",
        fix: "upload a video with a picture (audio alone is not taken)"
      })
    const audio = out.streams.find((s) => s.codec_type === "audio")
    const codedWidth = video.width ?? 0
    const codedHeight = video.height ?? 0
    if (codedWidth <= 0 || codedHeight <= 0) return yield* unreadable(what)
    if (codedWidth > limits.maxVideoSide || codedHeight > limits.maxVideoSide)
      return yield* bomb(`the video declares ${codedWidth}×${codedHeight} pixels, more than ${limits.maxVideoSide}×${limits.maxVideoSide}`)
    const frameRate = parseRate(video.avg_frame_rate) || parseRate(video.r_frame_rate)
    if (frameRate > limits.maxVideoFrameRate)
      return yield* bomb(`the video declares ${Math.round(frameRate)} frames a second, more than ${limits.maxVideoFrameRate}`)
    const durationSeconds = finiteOr(out.format.duration, finiteOr(video.duration, 0))
    const frames = finiteOr(video.nb_frames, durationSeconds * frameRate)
    if (frames > limits.maxVideoFrames)
      return yield* bomb(`the video declares ${Math.round(frames)} frames, more than the ${limits.maxVideoFrames} taken`)
    const rotation = video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? finiteOr(video.tags?.rotate, 0)
    const turned = Math.abs(Math.round(rotation)) % 180 === 90
    const bitrateKbps = finiteOr(out.format.bit_rate, durationSeconds > 0 ? (bytes * 8) / durationSeconds : 0) / 1000
    const facts: VideoFacts = {
      kind: "video",
      container: sniffed.container,
      videoCodec: video.codec_name,
      audioCodec: audio?.codec_name ?? null,
      durationSeconds,
      width: turned ? codedHeight : codedWidth,
      height: turned ? codedWidth : codedHeight,
      frameRate: Math.round(frameRate * 1000) / 1000,
      bitrateKbps: Math.round(bitrateKbps),
      bytes
    }
    return facts
  })

/**
 * What the file is, read from its content: the facts the network rules check and
 * preparation starts from. Refused (ProbeRefused): unreadable files, types that are not
 * images or videos, files over `maxInputBytes`, and decompression bombs, all before any
 * pixel is decoded.
 */
export const probeFileWith = (file: string, limits: ProbeLimits): Effect.Effect<MediaFacts, ProbeRefused> =>
  Effect.gen(function* () {
    const absolute = path.resolve(file)
    const info = yield* Effect.tryPromise({ try: () => stat(absolute), catch: () => unreadable("a file") })
    if (!info.isFile()) return yield* unreadable("a file")
    if (info.size > limits.maxInputBytes)
      return yield* new ProbeRefused({
        reason: `the file is ${mb(info.size)}, more than the ${mb(limits.maxInputBytes)} taken`,
        fix: `upload a file smaller than ${mb(limits.maxInputBytes)} (shorter, or exported at a lower quality)`
      })
    const sniffed = sniff(yield* readHead(absolute))
    if (sniffed === null)
      return yield* new ProbeRefused({
        reason: "the file is not an image or a video this service reads",
        fix: "upload JPEG, PNG, GIF, WEBP, HEIC or AVIF images, or MP4, MOV or WEBM videos"
      })
    if (sniffed.kind === "video") return yield* probeVideo(absolute, sniffed, info.size, limits)
    if (sniffed.format === "heif") return yield* probeHeic(absolute, info.size, limits)
    return yield* probeImage(absolute, sniffed.format, info.size, limits)
  })

/** `probeFileWith` with the limits from the environment (MEDIA_MAX_INPUT_BYTES). */
export const probeFile = (file: string): Effect.Effect<MediaFacts, ProbeRefused> =>
  Effect.flatMap(probeLimitsFromEnv, (limits) => probeFileWith(file, limits))
