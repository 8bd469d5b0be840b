import { execFile } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { promisify } from "node:util"
import { crc32, deflateSync } from "node:zlib"
import sharp from "sharp"
import { ffmpegPath, ffprobePath } from "../../../services/media/preparation/tools.js"

const run = promisify(execFile)

/** A temp directory for one test file's generated media. */
export const makeScratch = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "media-test-"))
  return { dir, file: (name: string) => path.join(dir, name), remove: () => rm(dir, { recursive: true, force: true }) }
}

/** FFmpeg with lavfi sources (testsrc picture, sine tone): real encoders, real containers. */
export const ffmpeg = (args: ReadonlyArray<string>) =>
  run(ffmpegPath, ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", ...args], { maxBuffer: 16 * 1024 * 1024 })

export interface VideoSpec {
  readonly width: number
  readonly height: number
  readonly seconds: number
  readonly fps?: number
  /** null: no audio track. */
  readonly audio?: "aac" | "mp3" | null
  readonly codec?: "libx264" | "libx265"
  /** Display rotation of 90°, written in the track header's matrix as phones do. */
  readonly rotate90?: boolean
  readonly container?: "mp4" | "mov"
  readonly faststart?: boolean
}

export const makeVideo = async (out: string, spec: VideoSpec) => {
  const fps = spec.fps ?? 30
  const audio = spec.audio === undefined ? "aac" : spec.audio
  const codec = spec.codec ?? "libx264"
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    `testsrc=size=${spec.width}x${spec.height}:rate=${fps}:duration=${spec.seconds}`,
    ...(audio === null ? [] : ["-f", "lavfi", "-i", `sine=frequency=440:duration=${spec.seconds}`]),
    "-c:v",
    codec,
    "-preset",
    "ultrafast",
    "-pix_fmt",
    "yuv420p",
    ...(codec === "libx265" ? ["-tag:v", "hvc1", "-x265-params", "log-level=error"] : []),
    ...(audio === null ? [] : ["-c:a", audio === "aac" ? "aac" : "libmp3lame", "-b:a", "96k"]),
    ...(spec.faststart ? ["-movflags", "+faststart"] : []),
    "-f",
    spec.container ?? "mp4",
    out
  ])
  if (spec.rotate90) await rotateMatrix90(out)
  return out
}

/**
 * Writes a 90° display matrix into the video track's header (tkhd), as a phone filming
 * upright does. The bundled 2018 FFmpeg ignores `-metadata rotate=`, so the bytes are set here.
 */
const rotateMatrix90 = async (file: string) => {
  const data = await readFile(file)
  const at = data.indexOf("tkhd", 0, "latin1")
  if (at < 0) throw new Error("no tkhd box")
  const version = data[at + 4]
  // after version/flags: times, track id, reserved, duration (v0: 20 bytes, v1: 32), reserved 8, layer…volume 8
  const matrix = at + 4 + 4 + (version === 1 ? 32 : 20) + 8 + 8
  const values = [0, 0x00010000, 0, -0x00010000, 0, 0, 0, 0, 0x40000000]
  values.forEach((v, i) => data.writeInt32BE(v, matrix + i * 4))
  await writeFile(file, data)
}

/** A JPEG whose pixels are landscape (w×h) with EXIF orientation `orientation` (6: shown turned 90° clockwise). */
export const makeJpeg = async (out: string, width: number, height: number, orientation = 1) => {
  // left half red, right half blue: rotation is visible in the pixels
  const half = await sharp({ create: { width: Math.ceil(width / 2), height, channels: 3, background: "#0000ff" } })
    .png()
    .toBuffer()
  await sharp({ create: { width, height, channels: 3, background: "#ff0000" } })
    .composite([{ input: half, left: Math.floor(width / 2), top: 0 }])
    .jpeg({ quality: 90 })
    .withMetadata({ orientation })
    .toFile(out)
  return out
}

export const makePng = async (out: string, width: number, height: number, orientation?: number) => {
  const image = sharp({ create: { width, height, channels: 4, background: { r: 0, g: 128, b: 0, alpha: 0.5 } } }).png()
  await (orientation === undefined ? image : image.withMetadata({ orientation })).toFile(out)
  return out
}

/** An animated GIF of `frames` frames (FFmpeg's testsrc). */
export const makeAnimatedGif = async (out: string, width: number, height: number, frames: number) => {
  await ffmpeg(["-f", "lavfi", "-i", `testsrc=size=${width}x${height}:rate=10`, "-frames:v", String(frames), "-f", "gif", out])
  return out
}

const chunk = (type: string, data: Buffer) => {
  const length = Buffer.alloc(4)
  length.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([length, body, crc])
}

/**
 * A decompression bomb: a valid, tiny PNG whose header declares width×height (e.g.
 * 50000×50000, 2.5 gigapixels, 10 GB once decoded), with one row of real data.
 */
export const makePngBomb = async (out: string, width: number, height: number) => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // RGB
  const row = Buffer.alloc(1 + width * 3)
  await writeFile(
    out,
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", ihdr),
      chunk("IDAT", deflateSync(row)),
      chunk("IEND", Buffer.alloc(0))
    ])
  )
  return out
}

/** The MP4's top-level box types in file order (faststart: moov before mdat). */
export const topLevelBoxes = async (file: string): Promise<Array<string>> => {
  const data = await readFile(file)
  const types: Array<string> = []
  for (let at = 0; at + 8 <= data.length; ) {
    let size = data.readUInt32BE(at)
    if (size === 1) size = Number(data.readBigUInt64BE(at + 8))
    if (size === 0) size = data.length - at
    types.push(data.toString("latin1", at + 4, at + 8))
    at += size
  }
  return types
}

/** FFprobe's view of a file's streams (codec, size, pixel format, rotation), for checking what preparation wrote. */
export const streamsOf = async (file: string) => {
  const { stdout } = await run(ffprobePath, ["-v", "error", "-show_streams", "-of", "json", file])
  const parsed: unknown = JSON.parse(stdout)
  const streams = (parsed as { streams: Array<Record<string, unknown>> }).streams
  return streams.map((s) => ({
    type: s["codec_type"],
    codec: s["codec_name"],
    width: s["width"],
    height: s["height"],
    pixFmt: s["pix_fmt"],
    frameRate: s["avg_frame_rate"],
    rotation: (s["side_data_list"] as Array<{ rotation?: number }> | undefined)?.find((d) => d.rotation !== undefined)?.rotation ?? 0
  }))
}
