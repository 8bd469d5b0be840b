import { formats, type MediaFormat } from "./formats.js"

/**
 * What a file is, decided from its bytes alone (never its name or declared type), and
 * whether it is whole: the signature says the type, then the format's own structure is
 * walked to its end (PNG chunks to IEND, GIF blocks to the trailer, JPEG segments and scan
 * data to EOI, the RIFF size of WEBP, the top-level boxes of MP4/MOV and of HEIC/AVIF (whose `meta` box must be there), the Segment size of
 * WEBM), so a cut-off file is refused instead of stored. Image width and height come from
 * the headers; a video's from its first video track when it has one.
 *
 * Pure: the inspector is a generator that asks for byte ranges, so the same code runs on
 * an in-memory buffer (tests) and on a file read piece by piece (uploads of any size).
 */

/** Bytes [offset, offset + length) of the file; fewer come back at its end. */
export interface ReadRequest {
  readonly offset: number
  readonly length: number
}

export type Inspection =
  | {
      readonly _tag: "Accepted"
      readonly format: MediaFormat
      readonly width: number | null
      readonly height: number | null
    }
  /** Not one of the accepted types. */
  | { readonly _tag: "Unsupported" }
  /** Starts like an accepted type but is incomplete or broken; `reason` is for people. */
  | { readonly _tag: "Damaged"; readonly format: MediaFormat; readonly reason: string }

export type Inspector = Generator<ReadRequest, Inspection, Uint8Array>

type Reads<A> = Generator<ReadRequest, A, Uint8Array>

interface Dimensions {
  readonly width: number
  readonly height: number
}

/** How many bytes the signature check looks at. */
export const HEAD_BYTES = 64

class Damage {
  constructor(readonly reason: string) {}
}

const damage = (reason: string) => new Damage(reason)

function* read(offset: number, length: number): Reads<Uint8Array> {
  return yield { offset, length }
}

const need = (bytes: Uint8Array, length: number, where: string) => {
  if (bytes.length < length) throw damage(`the file ends inside the ${where}`)
}

const u16be = (b: Uint8Array, at: number) => (b[at]! << 8) | b[at + 1]!
const u32be = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
const u16le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u24le = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)
const u32le = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0
const ascii = (b: Uint8Array, start: number, end: number) => String.fromCharCode(...b.subarray(start, end))
const matches = (b: Uint8Array, signature: ReadonlyArray<number>, at = 0) =>
  b.length >= at + signature.length && signature.every((v, i) => b[at + i] === v)

/** A four-character code fit to be shown (chunk and box names), else a neutral word. */
const fourcc = (code: string, fallback: string) => (/^[A-Za-z0-9 ]{4}$/.test(code) ? code.trim() : fallback)

// ---------------------------------------------------------------------------------------
// Signatures

type Candidate =
  | { readonly container: "jpeg" | "png" | "gif" | "webp" }
  | { readonly container: "isobmff"; readonly format: MediaFormat }
  | { readonly container: "heif"; readonly format: MediaFormat }
  | { readonly container: "ebml" }

/** ISO BMFF brands of HEIF still images (HEIC is HEIF with HEVC inside), and of AVIF (AV1 inside). */
const heifBrands = new Set(["heic", "heix", "heim", "heis", "mif1", "msf1"])
const avifBrands = new Set(["avif", "avis"])
/** ISO BMFF brands of files that are not MP4/MOV videos nor HEIF/AVIF images: HEVC sequences, audio, 3GPP, raw photos. */
const notVideoBrands = new Set([
  "hevc",
  "hevx",
  "hevm",
  "hevs",
  "avci",
  "M4A ",
  "M4B ",
  "M4P ",
  "F4A ",
  "F4B ",
  "crx ",
  "jp2 ",
  "jpx ",
  "jpm ",
  "mjp2",
  "3gp4",
  "3gp5",
  "3gp6",
  "3gp7",
  "3ge6",
  "3ge7",
  "3gg6",
  "3g2a",
  "3g2b",
  "3g2c"
])
/** Box types that can open a QuickTime movie written before `ftyp` existed. */
const legacyQuickTimeBoxes = new Set(["moov", "mdat", "wide", "free", "skip", "pnot"])

/** The ftyp box's major brand and its compatible brands, as far as `head` holds them. */
const brandsOf = (head: Uint8Array): ReadonlyArray<string> => {
  const end = Math.min(head.length, u32be(head, 0))
  const brands = [ascii(head, 8, 12)]
  for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(head, at, at + 4))
  return brands
}

/** A still image in an ISO BMFF box structure: AVIF when an AV1 brand is named, else HEIC when a HEIF brand is. */
const heifFormat = (brands: ReadonlyArray<string>): MediaFormat | undefined => {
  const major = brands[0]!
  if (avifBrands.has(major)) return formats.avif
  if (heifBrands.has(major)) return brands.some((b) => avifBrands.has(b)) ? formats.avif : formats.heic
  return undefined
}

const isoBmffFormat = (head: Uint8Array): Candidate | "unsupported" | undefined => {
  if (head.length < 8) return undefined
  const type = ascii(head, 4, 8)
  if (type === "ftyp") {
    if (head.length < 12) return { container: "isobmff", format: formats.mp4 } // the box is cut: let the walk say so
    const brands = brandsOf(head)
    const image = heifFormat(brands)
    if (image !== undefined) return { container: "heif", format: image }
    const major = brands[0]!
    if (major === "qt  ") return { container: "isobmff", format: formats.mov }
    return notVideoBrands.has(major) ? "unsupported" : { container: "isobmff", format: formats.mp4 }
  }
  return legacyQuickTimeBoxes.has(type) && u32be(head, 0) >= 8 ? { container: "isobmff", format: formats.mov } : undefined
}

const detect = (head: Uint8Array): Candidate | "unsupported" => {
  if (matches(head, [0xff, 0xd8, 0xff])) return { container: "jpeg" }
  if (matches(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { container: "png" }
  if (head.length >= 6 && (ascii(head, 0, 6) === "GIF87a" || ascii(head, 0, 6) === "GIF89a")) return { container: "gif" }
  if (head.length >= 12 && ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return { container: "webp" }
  if (matches(head, [0x1a, 0x45, 0xdf, 0xa3])) return { container: "ebml" }
  const iso = isoBmffFormat(head)
  return iso === undefined ? "unsupported" : iso
}

// ---------------------------------------------------------------------------------------
// Images

function* inspectPng(size: number): Reads<Dimensions> {
  const header = yield* read(8, 25)
  need(header, 16, "PNG header")
  if (ascii(header, 4, 8) !== "IHDR") throw damage("the PNG header (IHDR) is missing")
  const width = u32be(header, 8)
  const height = u32be(header, 12)
  if (width === 0 || height === 0) throw damage("the image has no width or height")
  // chunk by chunk to IEND: data after IEND is tolerated, a missing IEND is not
  let pos = 8
  for (;;) {
    const chunk = yield* read(pos, 8)
    need(chunk, 8, "list of PNG chunks")
    const type = ascii(chunk, 4, 8)
    const end = pos + 12 + u32be(chunk, 0)
    if (end > size) throw damage(`the file ends inside the ${fourcc(type, "last")} chunk`)
    if (type === "IEND") return { width, height }
    pos = end
  }
}

const colorTableBytes = (flags: number) => ((flags & 0x80) !== 0 ? 3 * (1 << ((flags & 0x07) + 1)) : 0)

function* skipSubBlocks(start: number): Reads<number> {
  let pos = start
  for (;;) {
    const length = yield* read(pos, 1)
    need(length, 1, "GIF image data")
    if (length[0] === 0) return pos + 1
    pos += 1 + length[0]!
  }
}

function* inspectGif(): Reads<Dimensions> {
  const header = yield* read(0, 13)
  need(header, 13, "GIF header")
  const width = u16le(header, 6)
  const height = u16le(header, 8)
  if (width === 0 || height === 0) throw damage("the image has no width or height")
  let pos = 13 + colorTableBytes(header[10]!)
  for (;;) {
    const introducer = yield* read(pos, 1)
    need(introducer, 1, "GIF data before its trailer")
    switch (introducer[0]) {
      case 0x3b:
        return { width, height }
      case 0x21: // extension: label, then sub-blocks
        pos = yield* skipSubBlocks(pos + 2)
        break
      case 0x2c: {
        const descriptor = yield* read(pos, 10)
        need(descriptor, 10, "GIF frame header")
        pos += 10 + colorTableBytes(descriptor[9]!) + 1 // + LZW minimum code size
        pos = yield* skipSubBlocks(pos)
        break
      }
      default:
        throw damage("a GIF block is broken")
    }
  }
}

/** Start-of-frame markers (C0–CF except DHT C4, JPG C8, DAC CC). */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
const isStandalone = (marker: number) => marker === 0x01 || marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7)

/** Entropy-coded data ends at the first marker that is not a stuffed byte, a restart or fill. */
function* skipScanData(start: number): Reads<number> {
  let pos = start
  for (;;) {
    const chunk = yield* read(pos, 65536)
    if (chunk.length < 2) throw damage("the file ends inside the image data")
    for (let i = 0; i < chunk.length - 1; i++) {
      if (chunk[i] !== 0xff) continue
      const next = chunk[i + 1]!
      if (next !== 0x00 && next !== 0xff && !(next >= 0xd0 && next <= 0xd7)) return pos + i
    }
    pos += chunk.length - 1 // the last byte may start a marker: look at it again
  }
}

function* inspectJpeg(): Reads<Dimensions> {
  let pos = 2
  let frame: Dimensions | undefined
  let scanned = false
  for (;;) {
    const head = yield* read(pos, 4)
    need(head, 2, "JPEG data before its end marker")
    if (head[0] !== 0xff) throw damage("a JPEG segment is broken")
    const marker = head[1]!
    if (marker === 0xff) {
      pos += 1 // fill byte
      continue
    }
    if (isStandalone(marker)) {
      pos += 2
      continue
    }
    if (marker === 0xd9) {
      if (frame === undefined || !scanned) throw damage("the image data is missing")
      return frame
    }
    need(head, 4, "JPEG segment header")
    const length = u16be(head, 2)
    if (length < 2) throw damage("a JPEG segment is broken")
    if (isStartOfFrame(marker)) {
      const sof = yield* read(pos + 4, 5)
      need(sof, 5, "JPEG frame header")
      frame = { height: u16be(sof, 1), width: u16be(sof, 3) }
      if (frame.width === 0 || frame.height === 0) throw damage("the image has no width or height")
    }
    pos += 2 + length
    if (marker === 0xda) {
      if (frame === undefined) throw damage("the image data comes before the frame header")
      pos = yield* skipScanData(pos)
      scanned = true
    }
  }
}

function* inspectWebp(size: number): Reads<Dimensions> {
  const header = yield* read(0, 30)
  need(header, 20, "WEBP header")
  if (8 + u32le(header, 4) > size) throw damage("the file is shorter than its header says")
  const chunk = ascii(header, 12, 16)
  let dimensions: Dimensions
  if (chunk === "VP8X") {
    need(header, 30, "WEBP header")
    dimensions = { width: 1 + u24le(header, 24), height: 1 + u24le(header, 27) }
  } else if (chunk === "VP8 ") {
    need(header, 30, "WEBP header")
    if (!matches(header, [0x9d, 0x01, 0x2a], 23)) throw damage("the VP8 frame header is broken")
    dimensions = { width: u16le(header, 26) & 0x3fff, height: u16le(header, 28) & 0x3fff }
  } else if (chunk === "VP8L") {
    need(header, 25, "WEBP header")
    if (header[20] !== 0x2f) throw damage("the VP8L header is broken")
    const bits = u32le(header, 21)
    dimensions = { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  } else {
    throw damage("the WEBP image chunk is missing")
  }
  if (20 + u32le(header, 16) > size) throw damage(`the file ends inside the ${chunk.trim()} chunk`)
  if (dimensions.width === 0 || dimensions.height === 0) throw damage("the image has no width or height")
  return dimensions
}

// ---------------------------------------------------------------------------------------
// MP4 and MOV (ISO base media / QuickTime boxes)

interface Box {
  readonly type: string
  readonly payload: number
  readonly end: number
}

function* readBox(pos: number, limit: number): Reads<Box> {
  const head = yield* read(pos, 16)
  need(head, 8, "box header")
  const type = ascii(head, 4, 8)
  let size = u32be(head, 0)
  let headerSize = 8
  if (size === 1) {
    need(head, 16, "box header")
    size = u32be(head, 8) * 2 ** 32 + u32be(head, 12)
    headerSize = 16
  } else if (size === 0) {
    size = limit - pos // to the end of the enclosing box
  }
  if (size < headerSize) throw damage("a box has a broken size")
  const end = pos + size
  if (end > limit) throw damage(`the file ends inside the ${fourcc(type, "last")} box`)
  return { type, payload: pos + headerSize, end }
}

function* findChild(start: number, end: number, type: string): Reads<Box | undefined> {
  let pos = start
  while (pos + 8 <= end) {
    const box = yield* readBox(pos, end)
    if (box.type === type) return box
    pos = box.end
  }
  return undefined
}

/** Width and height of the first track that has them (the video track; audio has 0×0). */
function* movieDimensions(moov: Box): Reads<Dimensions | undefined> {
  let pos = moov.payload
  while (pos + 8 <= moov.end) {
    const box = yield* readBox(pos, moov.end)
    if (box.type === "trak") {
      const tkhd = yield* findChild(box.payload, box.end, "tkhd")
      if (tkhd !== undefined) {
        const header = yield* read(tkhd.payload, 96)
        const at = header[0] === 1 ? 88 : 76
        if (header.length >= at + 8 && tkhd.payload + at + 8 <= tkhd.end) {
          const width = Math.round(u32be(header, at) / 65536)
          const height = Math.round(u32be(header, at + 4) / 65536)
          if (width > 0 && height > 0) return { width, height }
        }
      }
    }
    pos = box.end
  }
  return undefined
}

function* inspectIsoBmff(size: number): Reads<Dimensions | undefined> {
  let pos = 0
  let movie: Box | undefined
  while (pos < size) {
    const box = yield* readBox(pos, size)
    if (box.type === "moov" && movie === undefined) movie = box
    pos = box.end
  }
  if (movie === undefined) throw damage("the movie header (moov) is missing")
  return yield* movieDimensions(movie)
}

/** The largest image spatial extent (`ispe`) among the item properties of `meta` (the primary image, not a tile). */
function* heifDimensions(meta: Box): Reads<Dimensions | undefined> {
  // meta is a full box: version and flags come before its children
  const iprp = yield* findChild(meta.payload + 4, meta.end, "iprp")
  if (iprp === undefined) return undefined
  const ipco = yield* findChild(iprp.payload, iprp.end, "ipco")
  if (ipco === undefined) return undefined
  let best: Dimensions | undefined
  let pos = ipco.payload
  while (pos + 8 <= ipco.end) {
    const box = yield* readBox(pos, ipco.end)
    if (box.type === "ispe" && box.end - box.payload >= 12) {
      const body = yield* read(box.payload, 12)
      const width = u32be(body, 4)
      const height = u32be(body, 8)
      if (width > 0 && height > 0 && (best === undefined || width * height > best.width * best.height)) best = { width, height }
    }
    pos = box.end
  }
  return best
}

/** HEIC and AVIF: the top-level boxes to the end of the file, with a `meta` box that describes the image. */
function* inspectHeif(size: number): Reads<Dimensions | undefined> {
  let pos = 0
  let meta: Box | undefined
  while (pos < size) {
    const box = yield* readBox(pos, size)
    if (box.type === "meta" && meta === undefined) meta = box
    pos = box.end
  }
  if (meta === undefined) throw damage("the image header (meta) is missing")
  return yield* heifDimensions(meta)
}

// ---------------------------------------------------------------------------------------
// WEBM (EBML / Matroska with doctype webm)

const ebml = {
  header: 0x1a45dfa3,
  docType: 0x4282,
  segment: 0x18538067,
  cluster: 0x1f43b675,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba
} as const

interface Vint {
  readonly value: number
  readonly length: number
  /** All value bits set: the size is not known (live recordings write this). */
  readonly unknown: boolean
}

const readVint = (b: Uint8Array, at: number, keepMarker: boolean): Vint | undefined => {
  const first = b[at]
  if (first === undefined || first === 0) return undefined
  const length = Math.clz32(first) - 23
  if (at + length > b.length) return undefined
  const mask = 0xff >> length
  let value = keepMarker ? first : first & mask
  let allOnes = (first & mask) === mask
  for (let i = 1; i < length; i++) {
    value = value * 256 + b[at + i]!
    allOnes &&= b[at + i] === 0xff
  }
  return { value, length, unknown: !keepMarker && allOnes }
}

interface Element {
  readonly id: number
  /** Offset of the data, relative to the buffer it was read from. */
  readonly data: number
  readonly size: Vint
}

const readElement = (b: Uint8Array, at: number): Element | undefined => {
  const id = readVint(b, at, true)
  if (id === undefined) return undefined
  const size = readVint(b, at + id.length, false)
  if (size === undefined) return undefined
  return { id: id.value, data: at + id.length + size.length, size }
}

/** Children of a fully read element body. */
const elementsIn = (b: Uint8Array, start: number, end: number): ReadonlyArray<Element> => {
  const out: Array<Element> = []
  let pos = start
  while (pos < end) {
    const element = readElement(b, pos)
    if (element === undefined || element.size.unknown) break
    out.push(element)
    pos = element.data + element.size.value
  }
  return out
}

const uintOf = (b: Uint8Array, e: Element) => {
  let value = 0
  for (let i = 0; i < e.size.value && i < 8; i++) value = value * 256 + b[e.data + i]!
  return value
}

const videoDimensionsIn = (tracks: Uint8Array): Dimensions | undefined => {
  for (const entry of elementsIn(tracks, 0, tracks.length)) {
    if (entry.id !== ebml.trackEntry) continue
    for (const video of elementsIn(tracks, entry.data, entry.data + entry.size.value)) {
      if (video.id !== ebml.video) continue
      const fields = elementsIn(tracks, video.data, video.data + video.size.value)
      const width = fields.find((f) => f.id === ebml.pixelWidth)
      const height = fields.find((f) => f.id === ebml.pixelHeight)
      if (width !== undefined && height !== undefined) {
        return { width: uintOf(tracks, width), height: uintOf(tracks, height) }
      }
    }
  }
  return undefined
}

/** `undefined`: EBML, but not WEBM (Matroska and others are not accepted). */
function* inspectEbml(size: number): Reads<{ readonly dimensions: Dimensions | undefined } | undefined> {
  const start = yield* read(0, 16)
  const header = readElement(start, 0)
  if (header === undefined || header.size.unknown) throw damage("the EBML header is broken")
  const headerEnd = header.data + header.size.value
  if (header.size.value > 4096) throw damage("the EBML header is broken")
  const body = yield* read(0, headerEnd)
  need(body, headerEnd, "EBML header")
  const docType = elementsIn(body, header.data, headerEnd).find((e) => e.id === ebml.docType)
  const name = docType === undefined ? "matroska" : ascii(body, docType.data, docType.data + docType.size.value).replace(/\0+$/, "")
  if (name !== "webm") return undefined

  const segmentHead = yield* read(headerEnd, 12)
  const segment = readElement(segmentHead, 0)
  if (segment === undefined || segment.id !== ebml.segment) throw damage("the WEBM Segment is missing")
  const dataStart = headerEnd + segment.data
  const segmentEnd = segment.size.unknown ? size : dataStart + segment.size.value
  if (segmentEnd > size) throw damage("the file is shorter than its Segment says")

  // Tracks sits before the first Cluster; elements of unknown size cannot be skipped.
  let pos = dataStart
  let dimensions: Dimensions | undefined
  for (let n = 0; n < 256 && pos < segmentEnd; n++) {
    const head = yield* read(pos, 12)
    const element = readElement(head, 0)
    if (element === undefined) throw damage("the file ends inside the WEBM Segment")
    if (element.id === ebml.cluster || element.size.unknown) break
    const end = pos + element.data + element.size.value
    if (end > segmentEnd) throw damage("the file ends inside the WEBM Segment")
    if (element.id === ebml.tracks) {
      dimensions = videoDimensionsIn(yield* read(pos + element.data, Math.min(element.size.value, 1 << 20)))
      break
    }
    pos = end
  }
  // A live recording (MediaRecorder, ffmpeg -live) leaves the Segment's size unknown, so
  // its end is found by walking: step into elements of unknown size, skip the others.
  if (segment.size.unknown) {
    while (pos < size) {
      const element = readElement(yield* read(pos, 12), 0)
      if (element === undefined) throw damage("the file ends inside the WEBM data")
      if (element.size.unknown) {
        pos += element.data
        continue
      }
      const end = pos + element.data + element.size.value
      if (end > size) throw damage("the file ends inside the WEBM data")
      pos = end
    }
  }
  return { dimensions }
}

// ---------------------------------------------------------------------------------------

const accepted = (format: MediaFormat, d: Dimensions | undefined): Inspection => ({
  _tag: "Accepted",
  format,
  width: d?.width ?? null,
  height: d?.height ?? null
})

function* inspectCandidate(candidate: Candidate, size: number): Reads<Inspection> {
  switch (candidate.container) {
    case "png":
      return accepted(formats.png, yield* inspectPng(size))
    case "gif":
      return accepted(formats.gif, yield* inspectGif())
    case "jpeg":
      return accepted(formats.jpeg, yield* inspectJpeg())
    case "webp":
      return accepted(formats.webp, yield* inspectWebp(size))
    case "isobmff":
      return accepted(candidate.format, yield* inspectIsoBmff(size))
    case "heif":
      return accepted(candidate.format, yield* inspectHeif(size))
    case "ebml": {
      const webm = yield* inspectEbml(size)
      return webm === undefined ? { _tag: "Unsupported" } : accepted(formats.webm, webm.dimensions)
    }
  }
}

const formatOf = (candidate: Candidate): MediaFormat => {
  switch (candidate.container) {
    case "isobmff":
    case "heif":
      return candidate.format
    case "ebml":
      return formats.webm
    default:
      return formats[candidate.container]
  }
}

/** The signature alone (first HEAD_BYTES bytes): what the file claims to be. */
export const detectFormat = (head: Uint8Array): MediaFormat | undefined => {
  const candidate = detect(head)
  return candidate === "unsupported" ? undefined : formatOf(candidate)
}

/** Inspects a file of `size` bytes; drive it with `runInspector` or `inspectBytes`. */
export function* inspectFile(size: number): Inspector {
  const head = yield* read(0, HEAD_BYTES)
  const candidate = detect(head)
  if (candidate === "unsupported") return { _tag: "Unsupported" }
  try {
    return yield* inspectCandidate(candidate, size)
  } catch (e) {
    if (e instanceof Damage) return { _tag: "Damaged", format: formatOf(candidate), reason: e.reason }
    throw e
  }
}

/** Runs an inspector against a synchronous reader. */
export const runInspector = (inspector: Inspector, readAt: (request: ReadRequest) => Uint8Array): Inspection => {
  let step = inspector.next()
  while (!step.done) step = inspector.next(readAt(step.value))
  return step.value
}

/** Inspects a whole file held in memory. */
export const inspectBytes = (bytes: Uint8Array): Inspection =>
  runInspector(inspectFile(bytes.length), ({ offset, length }) =>
    bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length))
  )

/** An HTML page where a file was expected (an import address that opens a page). */
export const looksLikePage = (head: Uint8Array): boolean => {
  const text = new TextDecoder()
    .decode(head.subarray(0, 512))
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase()
  return text.startsWith("<!doctype html") || text.startsWith("<html") || text.startsWith("<head") || text.startsWith("<body")
}
