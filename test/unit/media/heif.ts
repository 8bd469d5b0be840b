import { readFile, writeFile } from "node:fs/promises"
import { ffmpeg } from "./fixtures.js"

/**
 * A real HEIC file for tests: one frame encoded by FFmpeg's libx265 (HEVC Main, 4:2:0),
 * wrapped in the smallest HEIF container libheif reads (ISO/IEC 23008-12: ftyp `heic`, a
 * `meta` box with hdlr `pict`, pitm, iloc, iinf/infe `hvc1`, iprp with hvcC and ispe, then
 * mdat). Neither sharp's prebuilt libvips nor the bundled FFmpeg writes HEIC, and no npm
 * package ships a HEIC fixture, so the container is written here, byte by byte.
 */

const u8 = (n: number) => Buffer.from([n & 0xff])
const u16 = (n: number) => {
  const b = Buffer.alloc(2)
  b.writeUInt16BE(n)
  return b
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n >>> 0)
  return b
}
const box = (type: string, ...parts: Array<Buffer>) => {
  const body = Buffer.concat(parts)
  return Buffer.concat([u32(8 + body.length), Buffer.from(type, "latin1"), body])
}
const fullBox = (type: string, version: number, flags: number, ...parts: Array<Buffer>) =>
  box(type, u8(version), u8(flags >> 16), u8(flags >> 8), u8(flags), ...parts)

/** Annex B byte stream → NAL units (start codes removed). */
const nalUnits = (stream: Buffer): Array<Buffer> => {
  const starts: Array<{ at: number; code: number }> = []
  for (let i = 0; i + 3 <= stream.length; i++) {
    if (stream[i] === 0 && stream[i + 1] === 0 && stream[i + 2] === 1) {
      const four = i > 0 && stream[i - 1] === 0
      starts.push({ at: i + 3, code: four ? 4 : 3 })
      i += 2
    }
  }
  return starts.map((s, k) => {
    const next = starts[k + 1]
    return stream.subarray(s.at, next === undefined ? stream.length : next.at - next.code)
  })
}

const nalType = (nal: Buffer) => (nal[0]! >> 1) & 0x3f

/** Emulation-prevention bytes (00 00 03) removed: the SPS's fields as written. */
const rbsp = (nal: Buffer) => {
  const out: Array<number> = []
  for (let i = 0; i < nal.length; i++) {
    if (i >= 2 && nal[i] === 3 && nal[i - 1] === 0 && nal[i - 2] === 0) continue
    out.push(nal[i]!)
  }
  return Buffer.from(out)
}

const hvcC = (vps: Buffer, sps: Buffer, pps: Buffer) => {
  // SPS after its 2-byte header: 1 byte of ids, then profile_tier_level's general part (12 bytes)
  const profile = rbsp(sps).subarray(3, 15)
  const array = (nal: Buffer) => Buffer.concat([u8(0x80 | nalType(nal)), u16(1), u16(nal.length), nal])
  return box(
    "hvcC",
    u8(1),
    profile,
    u16(0xf000), // min_spatial_segmentation_idc 0
    u8(0xfc), // parallelismType 0
    u8(0xfd), // chroma_format_idc 1 (4:2:0)
    u8(0xf8), // bit depth luma 8
    u8(0xf8), // bit depth chroma 8
    u16(0), // avgFrameRate
    u8(0x0f), // 1 temporal layer, nested, 4-byte NAL lengths
    u8(3),
    array(vps),
    array(sps),
    array(pps)
  )
}

/** Writes a `width`×`height` HEIC (dimensions multiples of 8) of FFmpeg's test picture to `out`. */
export const makeHeic = async (out: string, width: number, height: number) => {
  const stream = `${out}.hevc`
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    `testsrc=size=${width}x${height}:rate=1`,
    "-frames:v",
    "1",
    "-pix_fmt",
    "yuv420p",
    "-c:v",
    "libx265",
    "-x265-params",
    "log-level=error",
    "-f",
    "hevc",
    stream
  ])
  const nals = nalUnits(await readFile(stream))
  const find = (type: number) => {
    const nal = nals.find((n) => nalType(n) === type)
    if (nal === undefined) throw new Error(`no NAL unit of type ${type} in the HEVC stream`)
    return nal
  }
  const slices = nals.filter((n) => nalType(n) <= 21)
  const data = Buffer.concat(slices.flatMap((n) => [u32(n.length), n]))

  const ftyp = box("ftyp", Buffer.from("heic", "latin1"), u32(0), Buffer.from("mif1heic", "latin1"))
  const meta = (dataOffset: number) =>
    fullBox(
      "meta",
      0,
      0,
      fullBox("hdlr", 0, 0, u32(0), Buffer.from("pict", "latin1"), u32(0), u32(0), u32(0), u8(0)),
      fullBox("pitm", 0, 0, u16(1)),
      // offset_size 4, length_size 4, base_offset_size 0; one item, one extent
      fullBox("iloc", 0, 0, u8(0x44), u8(0x00), u16(1), u16(1), u16(0), u16(1), u32(dataOffset), u32(data.length)),
      fullBox("iinf", 0, 0, u16(1), fullBox("infe", 2, 0, u16(1), u16(0), Buffer.from("hvc1", "latin1"), u8(0))),
      box(
        "iprp",
        box("ipco", hvcC(find(32), find(33), find(34)), fullBox("ispe", 0, 0, u32(width), u32(height))),
        fullBox("ipma", 0, 0, u32(1), u16(1), u8(2), u8(0x81), u8(0x02))
      )
    )
  const metaLength = meta(0).length
  const file = Buffer.concat([ftyp, meta(ftyp.length + metaLength + 8), box("mdat", data)])
  await writeFile(out, file)
  return out
}
