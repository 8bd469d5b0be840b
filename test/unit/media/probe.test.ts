import { writeFile } from "node:fs/promises"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { defaultProbeLimits } from "../../../services/media/preparation/limits.js"
import { probeFile, probeFileWith } from "../../../services/media/preparation/probe.js"
import * as fixtures from "./fixtures.js"
import { makeHeic } from "./heif.js"

let scratch: Awaited<ReturnType<typeof fixtures.makeScratch>>
beforeAll(async () => {
  scratch = await fixtures.makeScratch()
})
afterAll(() => scratch.remove())

const probe = (file: string) => Effect.runPromise(probeFile(file))
const refusal = async (file: string, limits = defaultProbeLimits) => {
  const result = await Effect.runPromise(Effect.either(probeFileWith(file, limits)))
  if (Either.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`)
  return result.left
}

describe("probe: images", () => {
  it("reads a JPEG's size as stored and its EXIF orientation", async () => {
    const facts = await probe(await fixtures.makeJpeg(scratch.file("rotated.jpg"), 400, 200, 6))
    expect(facts).toMatchObject({ kind: "image", format: "jpeg", width: 400, height: 200, orientation: 6, animated: false })
    expect(facts.bytes).toBeGreaterThan(0)
  })

  it("reads a PNG and its colour space", async () => {
    const facts = await probe(await fixtures.makePng(scratch.file("plain.png"), 300, 100))
    expect(facts).toMatchObject({ kind: "image", format: "png", width: 300, height: 100, orientation: 1, colourSpace: "srgb" })
  })

  it("counts an animated GIF's frames", async () => {
    const facts = await probe(await fixtures.makeAnimatedGif(scratch.file("moving.gif"), 160, 120, 5))
    expect(facts).toMatchObject({ kind: "image", format: "gif", width: 160, height: 120, animated: true, frames: 5 })
  })

  it("reads a HEIC (HEVC-coded) photo's size from its container", async () => {
    const facts = await probe(await makeHeic(scratch.file("phone.heic"), 320, 240))
    expect(facts).toMatchObject({ kind: "image", format: "heif", width: 320, height: 240, animated: false })
  })

  it("reads an AVIF (sharp decodes AV1)", async () => {
    const file = scratch.file("photo.avif")
    await fixtures.makePng(scratch.file("for-avif.png"), 64, 48)
    const sharp = (await import("sharp")).default
    await sharp(scratch.file("for-avif.png")).avif().toFile(file)
    expect(await probe(file)).toMatchObject({ kind: "image", format: "avif", width: 64, height: 48 })
  })
})

describe("probe: decompression bombs and size are refused before decoding", () => {
  it("refuses a PNG declaring 50000×50000 pixels, naming the limit", async () => {
    const refused = await refusal(await fixtures.makePngBomb(scratch.file("bomb.png"), 50000, 50000))
    expect(refused._tag).toBe("ProbeRefused")
    expect(refused.reason).toContain("50000×50000")
    expect(refused.reason).toContain("100 megapixels")
  })

  it("takes an image just under the pixel limit", async () => {
    // 10000×9999 declared, header only: the probe does not decode it
    const facts = await probe(await fixtures.makePngBomb(scratch.file("big.png"), 10000, 9999))
    expect(facts).toMatchObject({ width: 10000, height: 9999 })
  })

  it("refuses a video wider than 8192 pixels", async () => {
    const refused = await refusal(await fixtures.makeVideo(scratch.file("wide.mp4"), { width: 8200, height: 16, seconds: 0.1, audio: null }))
    expect(refused.reason).toContain("8200×16")
  })

  it("refuses a video declaring more frames than the limit", async () => {
    const file = await fixtures.makeVideo(scratch.file("frames.mp4"), { width: 64, height: 64, seconds: 2, fps: 30, audio: null })
    const refused = await refusal(file, { ...defaultProbeLimits, maxVideoFrames: 59 })
    expect(refused.reason).toContain("60 frames")
  })

  it("refuses a file over the maximum input size", async () => {
    const file = await fixtures.makePng(scratch.file("size.png"), 64, 64)
    const refused = await refusal(file, { ...defaultProbeLimits, maxInputBytes: 10 })
    expect(refused.reason).toMatch(/more than the 0 MB taken/)
  })
})

describe("probe: videos", () => {
  it("reads an H.264/AAC MP4", async () => {
    const facts = await probe(await fixtures.makeVideo(scratch.file("plain.mp4"), { width: 320, height: 240, seconds: 2 }))
    expect(facts).toMatchObject({
      kind: "video",
      container: "mp4",
      videoCodec: "h264",
      audioCodec: "aac",
      width: 320,
      height: 240,
      frameRate: 30
    })
    if (facts.kind !== "video") throw new Error("not a video")
    expect(facts.durationSeconds).toBeCloseTo(2, 1)
    expect(facts.bitrateKbps).toBeGreaterThan(0)
  })

  it("reads an HEVC MOV", async () => {
    const file = await fixtures.makeVideo(scratch.file("hevc.mov"), {
      width: 320,
      height: 240,
      seconds: 1,
      codec: "libx265",
      container: "mov"
    })
    expect(await probe(file)).toMatchObject({ container: "mov", videoCodec: "hevc", audioCodec: "aac" })
  })

  it("gives a phone's upright video its displayed size (rotation matrix applied)", async () => {
    const file = await fixtures.makeVideo(scratch.file("upright.mp4"), { width: 320, height: 180, seconds: 1, rotate90: true })
    expect(await probe(file)).toMatchObject({ width: 180, height: 320 })
  })

  it("says a silent video has no audio", async () => {
    const file = await fixtures.makeVideo(scratch.file("silent.mp4"), { width: 160, height: 90, seconds: 1, audio: null })
    expect(await probe(file)).toMatchObject({ audioCodec: null, videoCodec: "h264" })
  })
})

describe("probe: files that are not media", () => {
  it("refuses text named like a video, and a cut-off video", async () => {
    const text = scratch.file("notes.mp4")
    await writeFile(text, "this is not a video at all\n".repeat(10))
    expect((await refusal(text)).reason).toContain("not an image or a video")

    const whole = await fixtures.makeVideo(scratch.file("whole.mp4"), { width: 64, height: 64, seconds: 1, audio: null })
    const cut = scratch.file("cut.mp4")
    const { readFile } = await import("node:fs/promises")
    await writeFile(cut, (await readFile(whole)).subarray(0, 200))
    expect((await refusal(cut)).reason).toContain("could not be read")
  })
})
