import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { ffmpegPath } from "../../services/media/preparation/tools.js"

/**
 * Real videos, made by FFmpeg (one second of its test picture), for tests that need the
 * upload's probe to read the file: the library refuses a video it cannot read. Made once
 * per shape and kept for the test file. `padBytes` appends a `free` box of that many
 * bytes (at least 8), so a test gets a real video of a given size.
 */

const made = new Map<string, Buffer>()

const make = (container: "mp4" | "mov" | "webm", width: number, height: number): Buffer => {
  const key = `${container} ${width}x${height}`
  const cached = made.get(key)
  if (cached !== undefined) return cached
  const dir = mkdtempSync(path.join(tmpdir(), "real-media-"))
  try {
    const out = path.join(dir, `clip.${container}`)
    const codec = container === "webm" ? ["-c:v", "libvpx", "-b:v", "200k"] : ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
    const run = spawnSync(ffmpegPath, [
      "-nostdin",
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `testsrc=size=${width}x${height}:rate=10:duration=1`,
      ...codec,
      "-f",
      container,
      out
    ])
    if (run.status !== 0) throw new Error(`ffmpeg could not make a ${container}: ${run.stderr.toString()}`)
    const bytes = readFileSync(out)
    made.set(key, bytes)
    return bytes
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const freeBox = (bytes: number) => {
  const box = Buffer.alloc(bytes)
  box.writeUInt32BE(bytes, 0)
  box.write("free", 4, "latin1")
  return box
}

export interface RealVideo {
  readonly width?: number
  readonly height?: number
  readonly padBytes?: number
}

/** A real H.264 MP4 (ftyp isom), `width`×`height` (default 320×240), one second long. */
export const realMp4 = (options: RealVideo & { readonly container?: "mp4" | "mov" } = {}): Buffer => {
  const base = make(options.container ?? "mp4", options.width ?? 320, options.height ?? 240)
  const pad = options.padBytes ?? 0
  if (pad !== 0 && pad < 8) throw new Error("padBytes is 0 or at least 8 (a box header)")
  return pad === 0 ? base : Buffer.concat([base, freeBox(pad)])
}

/** A real QuickTime movie (ftyp qt). */
export const realMov = (options: RealVideo = {}): Buffer => realMp4({ ...options, container: "mov" })

/** A real VP8 WEBM. */
export const realWebm = (options: Omit<RealVideo, "padBytes"> = {}): Buffer => make("webm", options.width ?? 320, options.height ?? 240)

/**
 * A real MP4 of any size, streamed: `head` (a real one-second MP4 and the header of a
 * `free` box of `padBytes`), then the caller's `padBytes` of filler, then `tail` (empty).
 * Same shape as mediaFiles.ts mp4Around, for benchmarks whose uploads must be taken.
 */
export const realMp4Around = (padBytes: number) => {
  const header = Buffer.alloc(8)
  header.writeUInt32BE(8 + padBytes, 0)
  header.write("free", 4, "latin1")
  return { head: Buffer.concat([realMp4(), header]), tail: Buffer.alloc(0) }
}
