import { existsSync } from "node:fs"
import { Effect } from "effect"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ImageTarget, MediaFacts, VideoTarget } from "../../../domain/media/preparation.js"
import { prepareRendition, prepareVideo } from "../../../services/media/preparation/prepare.js"
import { probeFile } from "../../../services/media/preparation/probe.js"
import * as fixtures from "./fixtures.js"
import { makeHeic } from "./heif.js"

let scratch: Awaited<ReturnType<typeof fixtures.makeScratch>>
beforeAll(async () => {
  scratch = await fixtures.makeScratch()
})
afterAll(() => scratch.remove())

const jpeg1080: ImageTarget = { kind: "image", format: "jpeg", maxWidth: 1080, maxHeight: 1080, maxBytes: 8_000_000 }
const video720: VideoTarget = {
  kind: "video",
  maxWidth: 1280,
  maxHeight: 1280,
  maxBytes: 100_000_000,
  maxFrameRate: 30,
  maxVideoBitrateKbps: 5_000,
  cover: false
}

const prepare = async (file: string, target: ImageTarget | VideoTarget, out: string) => {
  const facts: MediaFacts = await Effect.runPromise(probeFile(file))
  return Effect.runPromise(prepareRendition({ path: file, facts }, target, scratch.file(out)))
}

const pixel = async (file: string, x: number, y: number) => {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true })
  const at = (y * info.width + x) * info.channels
  return [data[at]!, data[at + 1]!, data[at + 2]!]
}

describe("images are prepared upright, inside the target, converted, without metadata", () => {
  it("turns a JPEG with EXIF orientation 6 upright and strips its metadata", async () => {
    // stored 400×200, left half red, right half blue; orientation 6 shows it turned clockwise: red on top
    const file = await fixtures.makeJpeg(scratch.file("o6.jpg"), 400, 200, 6)
    const out = await prepare(file, jpeg1080, "o6-out.jpg")
    expect(out).toMatchObject({ mime: "image/jpeg", coverPath: null, facts: { width: 200, height: 400, orientation: 1 } })
    const meta = await sharp(out.path).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 200, 400])
    expect(meta.orientation).toBeUndefined()
    expect(meta.exif).toBeUndefined()
    const [r1, , b1] = await pixel(out.path, 100, 50)
    const [r2, , b2] = await pixel(out.path, 100, 350)
    expect(r1).toBeGreaterThan(200)
    expect(b1).toBeLessThan(60)
    expect(b2).toBeGreaterThan(200)
    expect(r2).toBeLessThan(60)
  })

  it("scales a 12 MP photo inside the target, keeping its aspect", async () => {
    const file = await fixtures.makeJpeg(scratch.file("big.jpg"), 4000, 3000)
    const out = await prepare(file, jpeg1080, "big-out.jpg")
    expect(out.facts).toMatchObject({ width: 1080, height: 810 })
  })

  it("converts a transparent PNG to JPEG on white", async () => {
    const file = await fixtures.makePng(scratch.file("alpha.png"), 100, 60)
    const out = await prepare(file, jpeg1080, "alpha-out.jpg")
    const meta = await sharp(out.path).metadata()
    expect([meta.format, meta.hasAlpha]).toEqual(["jpeg", false])
  })

  it("makes a still PNG of an animated GIF's first frame", async () => {
    const file = await fixtures.makeAnimatedGif(scratch.file("anim.gif"), 160, 120, 6)
    const out = await prepare(file, { ...jpeg1080, format: "png" }, "anim-out.png")
    const meta = await sharp(out.path, { animated: true }).metadata()
    expect([meta.format, meta.pages ?? 1, meta.width, meta.height]).toEqual(["png", 1, 160, 120])
    expect(out.facts).toMatchObject({ animated: false, frames: 1 })
  })

  it("decodes a HEIC (HEVC) photo and converts it to JPEG", async () => {
    const file = await makeHeic(scratch.file("phone.heic"), 320, 240)
    const out = await prepare(file, { ...jpeg1080, maxWidth: 160, maxHeight: 160 }, "phone-out.jpg")
    const meta = await sharp(out.path).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 160, 120])
    // testsrc's colour bars: the middle is not black
    const [r, g, b] = await pixel(out.path, 80, 40)
    expect(r! + g! + b!).toBeGreaterThan(100)
  })

  it("converts an AVIF to JPEG", async () => {
    const source = await fixtures.makePng(scratch.file("for-avif.png"), 300, 200)
    const file = scratch.file("photo.avif")
    await sharp(source).avif().toFile(file)
    const out = await prepare(file, jpeg1080, "avif-out.jpg")
    const meta = await sharp(out.path).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 300, 200])
  })

  it("lowers quality, then size, until the file fits the target's bytes", async () => {
    const noise = Buffer.alloc(800 * 800 * 3)
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24
    const file = scratch.file("noise.png")
    await sharp(noise, { raw: { width: 800, height: 800, channels: 3 } })
      .png()
      .toFile(file)
    const out = await prepare(file, { ...jpeg1080, maxBytes: 60_000 }, "noise-out.jpg")
    expect(out.bytes).toBeLessThanOrEqual(60_000)
  })

  it("refuses a video for an image target with a plain reason", async () => {
    const file = await fixtures.makeVideo(scratch.file("v-for-image.mp4"), { width: 64, height: 64, seconds: 1 })
    await expect(prepare(file, jpeg1080, "nope.jpg")).rejects.toThrow(/wants an image/)
  })
})

describe("videos become H.264/AAC MP4 with faststart, inside the target", () => {
  it("copies the streams of an H.264/AAC MP4 that already fits, moving the index first", async () => {
    const file = await fixtures.makeVideo(scratch.file("fits.mp4"), { width: 320, height: 240, seconds: 2 })
    expect(await fixtures.topLevelBoxes(file)).toEqual(expect.arrayContaining(["mdat", "moov"]))
    const boxes = await fixtures.topLevelBoxes(file)
    expect(boxes.indexOf("mdat")).toBeLessThan(boxes.indexOf("moov"))
    const facts = await Effect.runPromise(probeFile(file))
    if (facts.kind !== "video") throw new Error("not a video")
    const out = await Effect.runPromise(prepareVideo({ path: file, facts }, video720, scratch.file("fits-out.mp4")))
    expect(out.mode).toBe("remux")
    const after = await fixtures.topLevelBoxes(out.path)
    expect(after.indexOf("moov")).toBeLessThan(after.indexOf("mdat"))
    expect(out.facts).toMatchObject({ videoCodec: "h264", audioCodec: "aac", width: 320, height: 240 })
  })

  it("transcodes a 4K-like HEVC MOV to H.264/AAC inside the target", async () => {
    const file = await fixtures.makeVideo(scratch.file("hevc.mov"), {
      width: 1920,
      height: 1080,
      seconds: 1,
      codec: "libx265",
      container: "mov"
    })
    const out = await prepare(file, video720, "hevc-out.mp4")
    expect(out.mime).toBe("video/mp4")
    expect(out.facts).toMatchObject({ kind: "video", container: "mp4", videoCodec: "h264", audioCodec: "aac", width: 1280, height: 720 })
    const boxes = await fixtures.topLevelBoxes(out.path)
    expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"))
    const [video] = await fixtures.streamsOf(out.path)
    expect(video).toMatchObject({ codec: "h264", pixFmt: "yuv420p" })
  })

  it("bakes a phone's rotation into the picture when it transcodes", async () => {
    const file = await fixtures.makeVideo(scratch.file("upright.mov"), {
      width: 320,
      height: 180,
      seconds: 1,
      codec: "libx265",
      container: "mov",
      rotate90: true
    })
    const out = await prepare(file, video720, "upright-out.mp4")
    const [video] = await fixtures.streamsOf(out.path)
    expect(video).toMatchObject({ width: 180, height: 320, rotation: 0 })
  })

  it("scales a vertical video inside a smaller target and caps its frame rate", async () => {
    const file = await fixtures.makeVideo(scratch.file("vertical.mp4"), { width: 360, height: 640, seconds: 1, fps: 60 })
    const out = await prepare(file, { ...video720, maxWidth: 270, maxHeight: 480 }, "vertical-out.mp4")
    expect(out.facts).toMatchObject({ width: 270, height: 480, frameRate: 30 })
  })

  it("keeps a silent video silent, and makes a JPEG cover when the target takes one", async () => {
    const file = await fixtures.makeVideo(scratch.file("silent.mov"), {
      width: 320,
      height: 240,
      seconds: 2,
      audio: null,
      codec: "libx265",
      container: "mov"
    })
    const out = await prepare(file, { ...video720, cover: true }, "silent-out.mp4")
    expect(out.facts).toMatchObject({ audioCodec: null, videoCodec: "h264" })
    expect(out.coverPath).not.toBeNull()
    expect(existsSync(out.coverPath!)).toBe(true)
    const cover = await sharp(out.coverPath!).metadata()
    expect([cover.format, cover.width, cover.height]).toEqual(["jpeg", 320, 240])
  })

  it("fails with a plain reason when the video cannot fit the target's bytes", async () => {
    const file = await fixtures.makeVideo(scratch.file("long.mp4"), { width: 64, height: 64, seconds: 3 })
    await expect(prepare(file, { ...video720, maxBytes: 10_000 }, "long-out.mp4")).rejects.toThrow(/too long/)
  })
})
