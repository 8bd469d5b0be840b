import { deflateSync } from "node:zlib"

/**
 * Small media files made in the test, one per accepted type. The images are real, decodable
 * pictures (a viewer opens them); the videos have the container structure a player reads
 * (MP4/MOV boxes with a track header, WEBM EBML with a video track) around dummy frames.
 */

const concat = (...parts: ReadonlyArray<Uint8Array | ReadonlyArray<number>>) =>
  Buffer.concat(parts.map((p) => (p instanceof Uint8Array ? p : Buffer.from(p))))

const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff]
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff]
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff]
const u32le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff]
const ascii = (s: string) => Buffer.from(s, "latin1")

// --- PNG ----------------------------------------------------------------------------

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc32 = (bytes: Uint8Array) => {
  let c = 0xffffffff
  for (const b of bytes) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const pngChunk = (type: string, data: Uint8Array) => {
  const body = concat(ascii(type), data)
  return concat(u32be(data.length), body, u32be(crc32(body)))
}

/** An RGB PNG with a colour gradient; `extraBytes` of noise make it as large as wanted. */
export const png = (width = 16, height = 12, extraBytes = 0) => {
  const rows: Array<number> = []
  for (let y = 0; y < height; y++) {
    rows.push(0)
    for (let x = 0; x < width; x++) rows.push((x * 255) / width, (y * 255) / height, 128)
  }
  const chunks = [pngChunk("IHDR", concat(u32be(width), u32be(height), [8, 2, 0, 0, 0])), pngChunk("IDAT", deflateSync(Buffer.from(rows)))]
  if (extraBytes > 0) chunks.push(pngChunk("tEXt", concat(ascii("Comment\0"), Buffer.alloc(extraBytes, 0x61))))
  return concat([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], ...chunks, pngChunk("IEND", new Uint8Array()))
}

// --- GIF ----------------------------------------------------------------------------

/** A two-colour GIF89a; its LZW data sends a clear code every two pixels, so codes stay 3 bits. */
export const gif = (width = 10, height = 6) => {
  const codes: Array<number> = []
  for (let i = 0; i < width * height; i++) {
    if (i % 2 === 0) codes.push(4) // clear
    codes.push((i + Math.floor(i / width)) % 2)
  }
  codes.push(5) // end of information
  const data: Array<number> = []
  let acc = 0
  let bits = 0
  for (const code of codes) {
    acc |= code << bits
    bits += 3
    while (bits >= 8) {
      data.push(acc & 0xff)
      acc >>= 8
      bits -= 8
    }
  }
  if (bits > 0) data.push(acc & 0xff)
  const blocks: Array<number> = []
  for (let i = 0; i < data.length; i += 255) {
    const part = data.slice(i, i + 255)
    blocks.push(part.length, ...part)
  }
  return concat(
    ascii("GIF89a"),
    u16le(width),
    u16le(height),
    [0x80, 0, 0], // global colour table of 2 entries
    [0, 0, 0, 255, 255, 255],
    [0x2c, ...u16le(0), ...u16le(0), ...u16le(width), ...u16le(height), 0],
    [2], // LZW minimum code size
    blocks,
    [0, 0x3b]
  )
}

// --- JPEG ---------------------------------------------------------------------------

const segment = (marker: number, data: ReadonlyArray<number>) => [0xff, marker, ...u16be(data.length + 2), ...data]

/**
 * A baseline grey JPEG (one component); each 8×8 block is "DC unchanged, end of block",
 * coded with one-symbol Huffman tables. `exif` adds an APP1 segment of that many bytes.
 */
export const jpeg = (width = 16, height = 16, options: { readonly exif?: number; readonly progressiveMarker?: boolean } = {}) => {
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8)
  const scanBits = "00".repeat(blocks)
  const padded = scanBits + "1".repeat((8 - (scanBits.length % 8)) % 8)
  const scan: Array<number> = []
  for (let i = 0; i < padded.length; i += 8) scan.push(parseInt(padded.slice(i, i + 8), 2))
  const oneSymbolTable = (tableClass: number) => [(tableClass << 4) | 0, 1, ...Array<number>(15).fill(0), 0]
  return concat(
    [0xff, 0xd8],
    segment(0xe0, [...ascii("JFIF\0"), 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    options.exif !== undefined ? segment(0xe1, [...ascii("Exif\0\0"), ...Array<number>(options.exif).fill(0)]) : [],
    segment(0xdb, [0, ...Array<number>(64).fill(1)]),
    segment(options.progressiveMarker === true ? 0xc2 : 0xc0, [8, ...u16be(height), ...u16be(width), 1, 1, 0x11, 0]),
    segment(0xc4, [...oneSymbolTable(0), ...oneSymbolTable(1)]),
    segment(0xda, [1, 1, 0x00, 0, 63, 0]),
    scan,
    [0xff, 0xd9]
  )
}

// --- WEBP ---------------------------------------------------------------------------

const riff = (chunks: Uint8Array) => concat(ascii("RIFF"), u32le(4 + chunks.length), ascii("WEBP"), chunks)
const webpChunk = (type: string, data: Uint8Array) => concat(ascii(type), u32le(data.length), data, data.length % 2 === 1 ? [0] : [])

/** A lossless (VP8L) single-colour picture: every prefix code has one symbol, so pixels take no bits. */
export const webpLossless = (width = 20, height = 10) => {
  const bits: Array<[value: number, count: number]> = [
    [width - 1, 14],
    [height - 1, 14],
    [0, 1], // alpha not used
    [0, 3], // version
    [0, 1], // no transform
    [0, 1], // no colour cache
    [0, 1], // no meta prefix codes
    // green, red, blue, alpha, distance: simple codes with one symbol
    [1, 1],
    [0, 1],
    [0, 1],
    [0, 1],
    [1, 1],
    [0, 1],
    [1, 1],
    [200, 8],
    [1, 1],
    [0, 1],
    [1, 1],
    [40, 8],
    [1, 1],
    [0, 1],
    [1, 1],
    [255, 8],
    [1, 1],
    [0, 1],
    [0, 1],
    [0, 1]
  ]
  const out: Array<number> = [0x2f]
  let acc = 0
  let used = 0
  for (const [value, count] of bits) {
    for (let i = 0; i < count; i++) {
      acc |= ((value >> i) & 1) << used
      used++
      if (used === 8) {
        out.push(acc)
        acc = 0
        used = 0
      }
    }
  }
  if (used > 0) out.push(acc)
  return riff(webpChunk("VP8L", Buffer.from(out)))
}

/** The extended (VP8X) header in front of the lossless picture, as animated and alpha WEBPs have. */
export const webpExtended = (width = 20, height = 10) => {
  const inner = webpLossless(width, height).subarray(12)
  return riff(concat(webpChunk("VP8X", concat([0, 0, 0, 0], u24le(width - 1), u24le(height - 1))), inner))
}

// --- MP4 / MOV ----------------------------------------------------------------------

const box = (type: string, ...content: ReadonlyArray<Uint8Array | ReadonlyArray<number>>) => {
  const body = concat(...content)
  return concat(u32be(8 + body.length), ascii(type), body)
}

const trackHeader = (width: number, height: number) =>
  box(
    "tkhd",
    [0, 0, 0, 3], // version 0, flags
    Array<number>(20).fill(0), // times, track id, reserved, duration
    Array<number>(8).fill(0),
    Array<number>(8).fill(0), // layer, group, volume, reserved
    [0, 1, 0, 0, ...Array<number>(12).fill(0), 0, 1, 0, 0, ...Array<number>(12).fill(0), 0x40, 0, 0, 0], // matrix
    u32be(width * 65536),
    u32be(height * 65536)
  )

const movie = (width: number, height: number) =>
  box("moov", box("mvhd", [0, 0, 0, 0], Array<number>(96).fill(0)), box("trak", trackHeader(0, 0)), box("trak", trackHeader(width, height)))

/** ftyp, mdat (`frames` bytes), moov: the layout a camera writes. */
export const mp4 = (options: { readonly width?: number; readonly height?: number; readonly frames?: number; readonly brand?: string } = {}) => {
  const { width = 640, height = 360, frames = 1000, brand = "isom" } = options
  return concat(
    box("ftyp", ascii(brand), u32be(512), ascii(brand), ascii("mp41")),
    box("free"),
    box("mdat", Buffer.alloc(frames, 7)),
    movie(width, height)
  )
}

export const mov = (options: { readonly width?: number; readonly height?: number; readonly frames?: number } = {}) =>
  mp4({ ...options, brand: "qt  " })

/** Header and trailer of an MP4 whose mdat holds `mdatBytes` (for streaming a large one). */
export const mp4Around = (mdatBytes: number, width = 1920, height = 1080) => ({
  head: concat(box("ftyp", ascii("isom"), u32be(512), ascii("isom")), u32be(8 + mdatBytes), ascii("mdat")),
  tail: movie(width, height)
})

// --- WEBM ---------------------------------------------------------------------------

const vintSize = (n: number) => [0x01, ...[0, 0, 0, 0, 0, 0, 0].map((_, i) => Math.floor(n / 256 ** (6 - i)) & 0xff)]
const element = (id: ReadonlyArray<number>, ...content: ReadonlyArray<Uint8Array | ReadonlyArray<number>>) => {
  const body = concat(...content)
  return concat(id, vintSize(body.length), body)
}

/** Size "unknown" (all ones): what live recorders (MediaRecorder) write for Segment and Cluster. */
const unknownSizeElement = (id: ReadonlyArray<number>, ...content: ReadonlyArray<Uint8Array | ReadonlyArray<number>>) =>
  concat(id, [0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], ...content)

export const webm = (
  options: { readonly width?: number; readonly height?: number; readonly frames?: number; readonly docType?: string; readonly live?: boolean } = {}
) => {
  const { width = 320, height = 240, frames = 500, docType = "webm", live = false } = options
  const container = live ? unknownSizeElement : element
  const block = (n: number) => element([0xa3], [0x81, 0, n, 0x80], Buffer.alloc(Math.ceil(frames / 4), 3))
  return concat(
    element([0x1a, 0x45, 0xdf, 0xa3], element([0x42, 0x86], [1]), element([0x42, 0x82], ascii(docType)), element([0x42, 0x87], [2])),
    container(
      [0x18, 0x53, 0x80, 0x67],
      element([0x15, 0x49, 0xa9, 0x66], element([0x2a, 0xd7, 0xb1], [0x0f, 0x42, 0x40])),
      element(
        [0x16, 0x54, 0xae, 0x6b],
        element(
          [0xae],
          element([0xd7], [1]),
          element([0x83], [1]),
          element([0x86], ascii("V_VP8")),
          element([0xe0], element([0xb0], u16be(width)), element([0xba], u16be(height)))
        )
      ),
      container([0x1f, 0x43, 0xb6, 0x75], element([0xe7], [0]), block(0), block(1)),
      container([0x1f, 0x43, 0xb6, 0x75], element([0xe7], [2]), block(0), block(1))
    )
  )
}

/** A file cut to `fraction` of its length. */
export const truncated = (bytes: Uint8Array, fraction = 0.5) => bytes.subarray(0, Math.floor(bytes.length * fraction))
