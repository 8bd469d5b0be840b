/**
 * Media preparation benchmark.
 *
 * 1. Transcode cost: makes a 60-second 1080p60 H.264/AAC test video (FFmpeg's testsrc and
 *    sine) and a 12 MP photo, prepares each for three network-like targets through the
 *    PreparationPool, and next to each rendition runs the same FFmpeg command directly
 *    (the args transcodeArgs/remuxArgs build, spawned by hand), in the same run, alternating.
 *    Prints seconds per rendition and the ratio (goal: ≤ 1.2× the direct command). The
 *    photo's baseline is the same sharp pipeline called directly.
 * 2. Gateway memory while ten 500 MB uploads stream in at once: the gateway as its own
 *    process, VmRSS sampled from /proc (the method of test/bench/upload.ts), growth
 *    printed (goal: well under 100 MB, as before).
 *
 *   npm run bench -- media                      both parts, as above
 *   npm run bench -- media --seconds 20         a shorter test video
 *   npm run bench -- media --skip-uploads       part 1 only
 *   npm run bench -- media --skip-video         the photo and part 2 only
 *   npm run bench -- media --uploads 10 --upload-mb 500
 *
 * Part 2 needs PostgreSQL, NATS and Redis (as upload.ts) and uploads × size free on disk.
 */
import { spawn } from "node:child_process"
import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect } from "effect"
import pg from "pg"
import sharp from "sharp"
import type { ImageTarget, VideoFacts, VideoTarget } from "../../domain/media/preparation.js"
import { canRemux } from "../../services/media/preparation/prepareVideo.js"
import { makePreparationPool } from "../../services/media/preparation/PreparationPool.js"
import { ffmpegPath } from "../../services/media/preparation/tools.js"
import { coverArgs, remuxArgs, transcodeArgs, X264_PRESET } from "../../services/media/preparation/videoCommands.js"
import { gatewayAndDemoKey, rssOf, uploadStreaming } from "./support/streamingUpload.js"

const MB = 1024 * 1024
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const argValue = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name)
  return at >= 0 ? Number(process.argv[at + 1]) : fallback
}
const videoSeconds = argValue("--seconds", 60)
const uploads = argValue("--uploads", 10)
const uploadMb = argValue("--upload-mb", 500)
const skipUploads = process.argv.includes("--skip-uploads")
const skipVideo = process.argv.includes("--skip-video")

const run = (binary: string, args: ReadonlyArray<string>) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] })
    let err = ""
    child.stderr.on("data", (d: Buffer) => (err += d.toString()))
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${binary} exited ${code}: ${err.slice(-500)}`))))
  })

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now()
  await f()
  return (performance.now() - t0) / 1000
}

const videoTargets: ReadonlyArray<readonly [string, VideoTarget]> = [
  [
    "vertical 1080×1920 30 fps 5 Mb/s + cover",
    { kind: "video", maxWidth: 1080, maxHeight: 1920, maxBytes: 300 * MB, maxFrameRate: 30, maxVideoBitrateKbps: 5_000, cover: true }
  ],
  [
    "1920×1200 40 fps 8 Mb/s",
    { kind: "video", maxWidth: 1920, maxHeight: 1200, maxBytes: 512 * MB, maxFrameRate: 40, maxVideoBitrateKbps: 8_000, cover: false }
  ],
  [
    "1280×720 30 fps 4 Mb/s",
    { kind: "video", maxWidth: 1280, maxHeight: 720, maxBytes: 100 * MB, maxFrameRate: 30, maxVideoBitrateKbps: 4_000, cover: false }
  ]
]
const imageTargets: ReadonlyArray<readonly [string, ImageTarget]> = [
  ["JPEG 1080×1350", { kind: "image", format: "jpeg", maxWidth: 1080, maxHeight: 1350, maxBytes: 8 * MB }],
  ["JPEG 2048×2048", { kind: "image", format: "jpeg", maxWidth: 2048, maxHeight: 2048, maxBytes: 8 * MB }],
  ["PNG 1000×1500", { kind: "image", format: "png", maxWidth: 1000, maxHeight: 1500, maxBytes: 20 * MB }]
]

const preparation = async (dir: string) => {
  const pool = await Effect.runPromise(makePreparationPool({ concurrency: 1, timeoutMs: 3_600_000, maxInputBytes: 4 * 1024 * MB }))
  if (!skipVideo) await videos(dir, pool)
  await photos(dir, pool)
}

type Pool = Effect.Effect.Success<ReturnType<typeof makePreparationPool>>

const videos = async (dir: string, pool: Pool) => {
  const video = path.join(dir, "source-1080p60.mp4")
  console.log(`making a ${videoSeconds} s 1920×1080 60 fps H.264/AAC test video …`)
  const made = await timed(() =>
    run(ffmpegPath, [
      "-nostdin",
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `testsrc=size=1920x1080:rate=60:duration=${videoSeconds}`,
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=440:duration=${videoSeconds}`,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-b:a",
      "128k",
      "-f",
      "mp4",
      video
    ])
  )
  const facts = await Effect.runPromise(pool.probe(video))
  if (facts.kind !== "video") throw new Error("the test video is not a video")
  console.log(`  ${made.toFixed(1)} s; ${(facts.bytes / MB).toFixed(0)} MB, ${facts.bitrateKbps} kb/s, ${facts.frameRate} fps`)
  console.log(
    `\nvideo renditions (libx264 preset ${X264_PRESET}, pool of 1, ${os.availableParallelism()} CPUs; direct = the same FFmpeg args spawned by hand)`
  )
  console.log("target | mode | pool s | direct s | ratio | size")
  const ratios: Array<number> = []
  for (const [i, [name, target]] of videoTargets.entries()) {
    const remux = canRemux(facts as VideoFacts, target, "yuv420p")
    const directOut = path.join(dir, `direct-${i}.mp4`)
    const args = remux ? remuxArgs(video, facts, directOut) : transcodeArgs(video, facts, target, directOut)
    const direct = () =>
      timed(async () => {
        await run(ffmpegPath, args)
        if (target.cover) await run(ffmpegPath, coverArgs(video, facts, target, path.join(dir, `direct-${i}-cover.jpg`)))
      })
    let bytes = 0
    const pool1 = () =>
      timed(async () => {
        const r = await Effect.runPromise(pool.prepare({ path: video, facts }, target, path.join(dir, `pool-${i}.mp4`)))
        bytes = r.bytes
      })
    // alternate which goes first, so a change in the machine's load falls on both sides
    let pooled: number
    let direct_: number
    if (i % 2 === 0) {
      pooled = await pool1()
      direct_ = await direct()
    } else {
      direct_ = await direct()
      pooled = await pool1()
    }
    ratios.push(pooled / direct_)
    console.log(
      [
        name,
        remux ? "remux" : "transcode",
        pooled.toFixed(2),
        direct_.toFixed(2),
        `${(pooled / direct_).toFixed(2)}×`,
        `${(bytes / MB).toFixed(1)} MB`
      ].join(" | ")
    )
  }
  console.log(
    `worst ratio ${Math.max(...ratios).toFixed(2)}× (goal ≤ 1.2×; direct = the rendition's FFmpeg command and the cover's where asked; the pool adds a pixel-format probe and a probe of the result)`
  )
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const photos = async (dir: string, pool: Pool) => {
  const photo = path.join(dir, "photo-12mp.jpg")
  const noise = await sharp({
    create: { width: 4000, height: 3000, channels: 3, background: "#336699", noise: { type: "gaussian", mean: 128, sigma: 40 } }
  })
    .jpeg({ quality: 92 })
    .withMetadata({ orientation: 6 })
    .toFile(photo)
  const photoFacts = await Effect.runPromise(pool.probe(photo))
  console.log(
    `\nphoto renditions (4000×3000 JPEG, ${(noise.size / MB).toFixed(1)} MB, EXIF orientation 6; direct = the same sharp pipeline called by hand; median of 5)`
  )
  console.log("target | pool s | direct s | ratio")
  await sharp(photo).resize(100).toBuffer() // warm-up: the first call loads libvips' JPEG code
  for (const [i, [name, target]] of imageTargets.entries()) {
    const direct = () =>
      timed(() => {
        const p = sharp(photo)
          .rotate()
          .resize({ width: target.maxWidth, height: target.maxHeight, fit: "inside", withoutEnlargement: true })
          .toColourspace("srgb")
        return (
          target.format === "jpeg" ? p.flatten({ background: "#ffffff" }).jpeg({ quality: 85 }) : p.png({ compressionLevel: 9, effort: 4 })
        ).toFile(path.join(dir, `direct-photo-${i}.${target.format}`))
      })
    const pooled = () =>
      timed(() => Effect.runPromise(pool.prepare({ path: photo, facts: photoFacts }, target, path.join(dir, `pool-photo-${i}.${target.format}`))))
    // sub-second runs: five of each, alternating, the median of each
    const directTimes: Array<number> = []
    const poolTimes: Array<number> = []
    for (let round = 0; round < 5; round++) {
      directTimes.push(await direct())
      poolTimes.push(await pooled())
    }
    const [p, d] = [median(poolTimes), median(directTimes)]
    console.log([name, p.toFixed(2), d.toFixed(2), `${(p / d).toFixed(2)}×`].join(" | "))
  }
}

// ---- part 2: gateway memory while uploads stream in (the method of upload.ts) ----

const uploadMemory = async () => {
  const adminUrl = process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl })
    await c.connect()
    try {
      await c.query(sql)
    } finally {
      await c.end()
    }
  }
  const name = `bench_media_${Date.now()}`
  await admin(`CREATE DATABASE "${name}"`)
  const dbUrl = new URL(adminUrl)
  dbUrl.pathname = `/${name}`
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "bench-media-"))
  const child = spawn(process.execPath, ["--import", "tsx", "services/main.ts", "gateway"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      NAMESPACE: `benchm${Date.now() % 100000}`,
      PORT: "0",
      PUBLIC_URL: "http://127.0.0.1",
      DATA_DIR: dataDir,
      MAX_UPLOAD_BYTES: String(uploadMb * MB + MB)
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (d: Buffer) => (output += d.toString()))
  child.stderr.on("data", (d: Buffer) => (output += d.toString()))
  try {
    const { port, apiKey } = await gatewayAndDemoKey(
      () => output,
      dataDir,
      () => child.exitCode !== null
    )
    const pid = child.pid!
    await uploadStreaming(port, apiKey, 2 * MB)
    await new Promise((r) => setTimeout(r, 1000))
    const before = rssOf(pid)
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 25)
    const t0 = Date.now()
    const statuses = await Promise.all(Array.from({ length: uploads }, () => uploadStreaming(port, apiKey, uploadMb * MB).then((a) => a.status)))
    const seconds = (Date.now() - t0) / 1000
    clearInterval(sampler)
    peak = Math.max(peak, rssOf(pid))
    const mb = (n: number) => `${(n / MB).toFixed(1)} MB`
    console.log(`\ngateway memory while ${uploads} × ${uploadMb} MB uploads stream in at once (gateway pid ${pid}, local disk)`)
    console.log("RSS before | RSS peak | growth | time | answers")
    console.log([mb(before), mb(peak), mb(peak - before), `${seconds.toFixed(1)} s`, statuses.join(" ")].join(" | "))
  } finally {
    child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 500))
    child.kill("SIGKILL")
    await fs.rm(dataDir, { recursive: true, force: true })
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined)
  }
}

const main = async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "bench-media-prep-"))
  try {
    await preparation(dir)
  } finally {
    await fs.rm(dir, { recursive: true, force: true })
  }
  if (!skipUploads) await uploadMemory()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
