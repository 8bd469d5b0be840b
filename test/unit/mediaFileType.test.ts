import { describe, expect, it } from "vitest"
import { detectFormat, inspectBytes, looksLikePage, type Inspection } from "../../domain/media/fileType.js"
import { acceptedLabels } from "../../domain/media/formats.js"
import { formatSize, MediaErrors } from "../../domain/media/messages.js"
import { gif, jpeg, mov, mp4, png, truncated, webm, webpExtended, webpLossless } from "../support/mediaFiles.js"
import { statusOf } from "../../protocol/http/errors.js"

const summary = (i: Inspection) => (i._tag === "Accepted" ? { type: i.format.mime, kind: i.format.kind, width: i.width, height: i.height } : i._tag)

const files = [
  ["PNG", png(16, 12), { type: "image/png", kind: "image", width: 16, height: 12 }],
  ["GIF", gif(10, 6), { type: "image/gif", kind: "image", width: 10, height: 6 }],
  ["JPG", jpeg(24, 16), { type: "image/jpeg", kind: "image", width: 24, height: 16 }],
  ["JPG with an APP1 segment", jpeg(16, 8, { exif: 2000 }), { type: "image/jpeg", kind: "image", width: 16, height: 8 }],
  ["progressive JPG", jpeg(8, 8, { progressiveMarker: true }), { type: "image/jpeg", kind: "image", width: 8, height: 8 }],
  ["WEBP lossless (VP8L)", webpLossless(20, 10), { type: "image/webp", kind: "image", width: 20, height: 10 }],
  ["WEBP extended (VP8X)", webpExtended(300, 200), { type: "image/webp", kind: "image", width: 300, height: 200 }],
  ["MP4", mp4({ width: 640, height: 360 }), { type: "video/mp4", kind: "video", width: 640, height: 360 }],
  ["MOV (brand qt)", mov({ width: 1920, height: 1080 }), { type: "video/quicktime", kind: "video", width: 1920, height: 1080 }],
  ["WEBM", webm({ width: 320, height: 240 }), { type: "video/webm", kind: "video", width: 320, height: 240 }],
  [
    "WEBM live recording (sizes unknown)",
    webm({ width: 640, height: 480, live: true }),
    { type: "video/webm", kind: "video", width: 640, height: 480 }
  ]
] as const

/** A lossy (VP8) WEBP header: frame tag, start code, 14-bit width and height. */
const webpLossy = (width: number, height: number) => {
  const frame = Buffer.from([0x50, 0x01, 0x00, 0x9d, 0x01, 0x2a, width & 0xff, width >> 8, height & 0xff, height >> 8, 0, 0])
  const chunk = Buffer.concat([Buffer.from("VP8 "), Buffer.from([frame.length, 0, 0, 0]), frame])
  return Buffer.concat([Buffer.from("RIFF"), Buffer.from([4 + chunk.length, 0, 0, 0]), Buffer.from("WEBP"), chunk])
}

describe("file type: detected from the content", () => {
  it.each(files)("%s is accepted with its type and size", (_, bytes, expected) => {
    expect(summary(inspectBytes(bytes))).toEqual(expected)
  })

  it("a lossy WEBP (VP8) gives its width and height", () => {
    expect(summary(inspectBytes(webpLossy(400, 300)))).toEqual({ type: "image/webp", kind: "image", width: 400, height: 300 })
  })

  it("the name and declared type play no part: a PNG named x.mp4 is a PNG", () => {
    // inspection sees bytes only; the upload test checks the same through HTTP
    expect(detectFormat(png())?.mime).toBe("image/png")
    expect(detectFormat(mp4())?.mime).toBe("video/mp4")
  })

  it.each([
    ["plain text", Buffer.from("hello, this is not a picture")],
    ["an HTML page", Buffer.from("<!doctype html><html><body>image</body></html>")],
    ["a PDF", Buffer.from("%PDF-1.7\n1 0 obj\n")],
    ["a BMP", Buffer.concat([Buffer.from("BM"), Buffer.alloc(60)])],
    ["a TIFF", Buffer.from([0x49, 0x49, 0x2a, 0x00, 8, 0, 0, 0])],
    ["an empty file", Buffer.alloc(0)],
    ["Matroska (doctype matroska)", webm({ docType: "matroska" })],
    ["M4A audio", mp4({ brand: "M4A " })],
    ["3GP", mp4({ brand: "3gp4" })]
  ])("%s is not accepted", (_, bytes) => {
    expect(inspectBytes(bytes)._tag).toBe("Unsupported")
  })
})

/** An ISO BMFF box: size, type, payload. */
const box = (type: string, ...payload: ReadonlyArray<Buffer>) => {
  const body = Buffer.concat(payload)
  const head = Buffer.alloc(8)
  head.writeUInt32BE(8 + body.length, 0)
  head.write(type, 4, "latin1")
  return Buffer.concat([head, body])
}
const u32 = (...values: ReadonlyArray<number>) =>
  Buffer.concat(
    values.map((v) => {
      const b = Buffer.alloc(4)
      b.writeUInt32BE(v, 0)
      return b
    })
  )
/** A HEIF still image's boxes: ftyp with its brands, meta (a full box) with image spatial extents (a tile and the image), mdat. */
const heif = (brands: ReadonlyArray<string>, width: number, height: number) =>
  Buffer.concat([
    box("ftyp", Buffer.from(brands[0]!, "latin1"), u32(0), Buffer.from(brands.join(""), "latin1")),
    box(
      "meta",
      u32(0),
      box("hdlr", u32(0, 0), Buffer.from("pict", "latin1"), u32(0, 0, 0), Buffer.from([0])),
      box("iprp", box("ipco", box("ispe", u32(0, 512, 512)), box("ispe", u32(0, width, height))))
    ),
    box("mdat", Buffer.alloc(32))
  ])

describe("file type: HEIC and AVIF photos", () => {
  it.each([
    ["HEIC (brand heic)", heif(["heic", "mif1"], 4032, 3024), "image/heic"],
    ["HEIF (brand mif1, HEVC inside)", heif(["mif1", "heic"], 3000, 2000), "image/heic"],
    ["AVIF (brand avif)", heif(["avif", "mif1"], 1920, 1080), "image/avif"],
    ["AVIF (brand mif1 naming avif)", heif(["mif1", "avif"], 800, 600), "image/avif"]
  ])("%s is accepted, its size from the largest image extent", (_, bytes, type) => {
    const result = inspectBytes(bytes)
    expect(result._tag).toBe("Accepted")
    if (result._tag === "Accepted") {
      expect(result.format.mime).toBe(type)
      expect(result.format.kind).toBe("image")
      expect(result.width! * result.height!).toBeGreaterThan(512 * 512)
    }
  })

  it("a HEIC without its meta box is damaged", () => {
    expect(inspectBytes(mp4({ brand: "heic" }))).toMatchObject({ _tag: "Damaged", reason: "the image header (meta) is missing" })
  })

  it("a HEIC cut short is damaged", () => {
    expect(inspectBytes(truncated(heif(["heic", "mif1"], 4032, 3024), 0.6))._tag).toBe("Damaged")
  })

  it("the refusal of other types keeps the spec's list", () => {
    expect(MediaErrors.unsupported().error).toBe("This file type is not accepted. Upload a JPG, PNG, GIF, WEBP, MP4, MOV or WEBM file.")
  })
})

describe("file type: truncated and broken files are refused", () => {
  it.each(files)("%s cut in half is damaged", (_, bytes) => {
    const result = inspectBytes(truncated(bytes, 0.5))
    expect(result._tag).toBe("Damaged")
  })

  // A live WEBM has no total size: a cut exactly between two blocks looks whole, so it is left out here.
  it.each(files.filter(([name]) => !name.includes("live")))("%s cut at any length is never accepted", (_, bytes) => {
    for (let length = 1; length < bytes.length; length += Math.max(1, Math.floor(bytes.length / 97))) {
      const result = inspectBytes(bytes.subarray(0, length))
      expect(result._tag, `cut at ${length} of ${bytes.length}`).not.toBe("Accepted")
    }
  })

  it.each(files)("%s missing only its last byte is damaged", (_, bytes) => {
    expect(inspectBytes(bytes.subarray(0, bytes.length - 1))._tag).toBe("Damaged")
  })

  it("the reason says where the file ends", () => {
    const result = inspectBytes(truncated(png(64, 64), 0.6))
    expect(result).toMatchObject({ _tag: "Damaged", reason: "the file ends inside the IDAT chunk" })
  })

  it("an MP4 without its movie header is damaged", () => {
    const full = mp4()
    const moov = full.indexOf(Buffer.from("moov")) - 4
    expect(inspectBytes(full.subarray(0, moov))).toMatchObject({ _tag: "Damaged", reason: "the movie header (moov) is missing" })
  })

  it("a PNG with data after IEND is still whole", () => {
    expect(inspectBytes(Buffer.concat([png(), Buffer.from("trailing")]))._tag).toBe("Accepted")
  })

  it("a JPEG whose scan data contains stuffed bytes and restart markers reads to its end", () => {
    const base = jpeg(8, 8)
    const eoi = base.length - 2
    const withStuffing = Buffer.concat([base.subarray(0, eoi), Buffer.from([0xff, 0x00, 0xff, 0xd0, 0x12]), base.subarray(eoi)])
    expect(inspectBytes(withStuffing)._tag).toBe("Accepted")
    expect(inspectBytes(withStuffing.subarray(0, eoi + 3))._tag).toBe("Damaged")
  })

  it("a JPEG with only its start marker is damaged", () => {
    expect(inspectBytes(Buffer.from([0xff, 0xd8, 0xff]))._tag).toBe("Damaged")
  })
})

describe("pages instead of files", () => {
  it.each(["<!DOCTYPE html><html>", "\uFEFF  <html lang=en>", "\n<head><title>x</title>"])("%j looks like a page", (text) => {
    expect(looksLikePage(Buffer.from(text))).toBe(true)
  })
  it("a PNG does not", () => {
    expect(looksLikePage(png())).toBe(false)
  })
})

describe("media messages", () => {
  it("sizes are written for people", () => {
    expect(formatSize(10 * 1024 * 1024)).toBe("10 MB")
    expect(formatSize(1024 * 1024 * 1024)).toBe("1 GB")
    expect(formatSize(1536)).toBe("1.5 KB")
    expect(formatSize(12)).toBe("12 bytes")
  })
  it("an image over the limit gets 400 with the limit in the message", () => {
    const e = MediaErrors.imageTooLarge(12 * 1024 * 1024, 10 * 1024 * 1024)
    expect(statusOf(e)).toBe(400)
    expect(e.error).toContain("10 MB")
  })
  it("the refusal names every accepted type", () => {
    expect(acceptedLabels).toBe("JPG, PNG, GIF, WEBP, MP4, MOV or WEBM")
    expect(MediaErrors.unsupported().error).toContain(acceptedLabels)
  })
})
