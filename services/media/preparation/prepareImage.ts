import { mkdir, readFile, rm } from "node:fs/promises"
import path from "node:path"
import { Effect } from "effect"
import sharp from "sharp"
import type { ImageFacts, ImageTarget } from "../../../domain/media/preparation.js"
import { PreparationFailed } from "./errors.js"
import { fitInside } from "./fit.js"
import { decodeHeic } from "./heic.js"
import { defaultProbeLimits } from "./limits.js"

export interface PreparedImage {
  readonly path: string
  readonly bytes: number
  readonly mime: string
  readonly facts: ImageFacts
}

/** JPEG qualities tried in turn, then the picture is made smaller, until it fits `maxBytes`. */
const QUALITIES = [85, 75, 65] as const
const SHRINK = 0.8
const MAX_ATTEMPTS = 8

const failed = (reason: string, fix = "upload the image again as a JPEG or PNG") => new PreparationFailed({ reason, fix })

/** The picture to start from: HEIC decoded by libheif (WebAssembly), anything else by sharp. */
const source = async (file: string, facts: ImageFacts) => {
  if (facts.format === "heif") {
    const decoded = await decodeHeic(await readFile(file))
    return () =>
      sharp(Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength), {
        raw: { width: decoded.width, height: decoded.height, channels: 4 }
      })
  }
  // first frame only (an animated GIF becomes a still); the pixel limit guards a file that lied to the probe
  return () => sharp(file, { limitInputPixels: defaultProbeLimits.maxImagePixels, pages: 1, failOn: "error" })
}

/**
 * An image the target takes: turned upright by its EXIF orientation, scaled to fit inside
 * the target's size (never enlarged), converted to JPEG (on white: JPEG has no
 * transparency) or PNG in sRGB, with no metadata (sharp writes none unless asked: no EXIF,
 * no GPS position), and within `maxBytes` (lower JPEG quality first, then smaller).
 */
export const prepareImage = (
  input: { readonly path: string; readonly facts: ImageFacts },
  target: ImageTarget,
  outPath: string
): Effect.Effect<PreparedImage, PreparationFailed> =>
  Effect.tryPromise({
    try: async () => {
      await mkdir(path.dirname(outPath), { recursive: true })
      const open = await source(input.path, input.facts)
      // upright size: orientations 5-8 swap width and height
      const turned = input.facts.orientation >= 5 && input.facts.orientation <= 8
      const shown = turned ? { width: input.facts.height, height: input.facts.width } : { width: input.facts.width, height: input.facts.height }
      let box = fitInside(shown.width, shown.height, target.maxWidth, target.maxHeight)
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const quality = QUALITIES[Math.min(attempt, QUALITIES.length - 1)]!
        const pipeline = open()
          .rotate()
          .resize({ width: box.width, height: box.height, fit: "inside", withoutEnlargement: true })
          .toColourspace("srgb")
        const encoded =
          target.format === "jpeg"
            ? pipeline.flatten({ background: "#ffffff" }).jpeg({ quality, mozjpeg: false })
            : pipeline.png({ compressionLevel: 9, effort: 4 })
        const info = await encoded.toFile(outPath)
        if (info.size <= target.maxBytes) {
          const facts: ImageFacts = {
            kind: "image",
            format: target.format,
            width: info.width,
            height: info.height,
            orientation: 1,
            animated: false,
            frames: 1,
            colourSpace: "srgb",
            bytes: info.size
          }
          return { path: outPath, bytes: info.size, mime: target.format === "jpeg" ? "image/jpeg" : "image/png", facts }
        }
        if (target.format === "png" || attempt >= QUALITIES.length - 1) {
          box = { width: Math.max(1, Math.floor(info.width * SHRINK)), height: Math.max(1, Math.floor(info.height * SHRINK)) }
        }
      }
      await rm(outPath, { force: true })
      throw new PreparationFailed({
        reason: `the image could not be made smaller than ${Math.round(target.maxBytes / 1024)} KB for this network`,
        fix: "upload a simpler or smaller image"
      })
    },
    catch: (e) => (e instanceof PreparationFailed ? e : failed(`the image could not be converted (${e instanceof Error ? e.message : String(e)})`))
  })
