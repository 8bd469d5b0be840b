import { existsSync, readdirSync, readFileSync } from "node:fs"
import { ConfigProvider, Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { VideoTarget } from "../../../domain/media/preparation.js"
import { makePreparationPool, PreparationPool } from "../../../services/media/preparation/PreparationPool.js"
import * as fixtures from "./fixtures.js"

let scratch: Awaited<ReturnType<typeof fixtures.makeScratch>>
let video: string
beforeAll(async () => {
  scratch = await fixtures.makeScratch()
  // HEVC, so that every preparation transcodes (a few seconds of work each)
  video = await fixtures.makeVideo(scratch.file("in.mov"), { width: 640, height: 360, seconds: 4, codec: "libx265", container: "mov" })
})
afterAll(() => scratch.remove())

const target: VideoTarget = {
  kind: "video",
  maxWidth: 640,
  maxHeight: 640,
  maxBytes: 50_000_000,
  maxFrameRate: 30,
  maxVideoBitrateKbps: 4_000,
  cover: false
}

/** FFmpeg processes writing into this test's scratch directory, read from /proc. */
const ffmpegsRunning = () => {
  let n = 0
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "latin1")
      if (cmd.includes("ffmpeg") && cmd.includes(scratch.dir) && cmd.includes("libx264")) n++
    } catch {
      // the process ended while being read
    }
  }
  return n
}

/** Runs `count` preparations at once through a pool of `concurrency`; the most FFmpegs seen at one time. */
const peakFfmpegs = async (concurrency: number, count: number, tag: string) => {
  const pool = await Effect.runPromise(makePreparationPool({ concurrency, timeoutMs: 120_000, maxInputBytes: 1e9 }))
  const facts = await Effect.runPromise(pool.probe(video))
  let peak = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, ffmpegsRunning())
  }, 25)
  try {
    await Effect.runPromise(
      Effect.all(
        Array.from({ length: count }, (_, i) => pool.prepare({ path: video, facts }, target, scratch.file(`${tag}-${i}.mp4`))),
        { concurrency: "unbounded" }
      )
    )
  } finally {
    clearInterval(sampler)
  }
  return peak
}

describe("preparation pool", () => {
  it("runs at most `concurrency` transcodes at once (and does reach it)", async () => {
    expect(await peakFfmpegs(1, 3, "one")).toBe(1)
    expect(await peakFfmpegs(2, 2, "two")).toBe(2)
  }, 120_000)

  it("kills FFmpeg mid-transcode and removes the partial file past the time limit", async () => {
    const long = await fixtures.makeVideo(scratch.file("long.mov"), {
      width: 1280,
      height: 720,
      seconds: 8,
      codec: "libx265",
      container: "mov"
    })
    const pool = await Effect.runPromise(makePreparationPool({ concurrency: 1, timeoutMs: 1_000, maxInputBytes: 1e9 }))
    const facts = await Effect.runPromise(pool.probe(long))
    const out = scratch.file("slow.mp4")
    let seen = 0
    const sampler = setInterval(() => {
      seen = Math.max(seen, ffmpegsRunning())
    }, 25)
    const error = await Effect.runPromise(Effect.flip(pool.prepare({ path: long, facts }, { ...target, maxWidth: 1280 }, out)))
    clearInterval(sampler)
    expect(error.reason).toContain("longer than the 1 s allowed")
    // it was transcoding when the limit came, and is gone right after
    expect(seen).toBe(1)
    expect(ffmpegsRunning()).toBe(0)
    expect(existsSync(out)).toBe(false)
  }, 60_000)

  it("refuses a file over the maximum input size, before any work", async () => {
    const pool = await Effect.runPromise(makePreparationPool({ concurrency: 1, timeoutMs: 60_000, maxInputBytes: 1_000 }))
    const facts = await Effect.runPromise(Effect.flip(pool.probe(video)))
    expect(facts.reason).toContain("more than the")
  })

  it("reads its settings from the environment", async () => {
    const settings = await Effect.runPromise(
      Effect.map(PreparationPool, (pool) => pool.settings).pipe(
        Effect.provide(
          PreparationPool.Default.pipe(
            Layer.provide(
              Layer.setConfigProvider(
                ConfigProvider.fromMap(
                  new Map([
                    ["MEDIA_PREPARATION_CONCURRENCY", "3"],
                    ["MEDIA_PREPARATION_TIMEOUT_SECONDS", "90"],
                    ["MEDIA_MAX_INPUT_BYTES", "1048576"]
                  ])
                )
              )
            )
          )
        )
      )
    )
    expect(settings).toEqual({ concurrency: 3, timeoutMs: 90_000, maxInputBytes: 1_048_576 })
  })
})
