/**
 * What kind of file this is, from its first bytes only, so that each decoder is given only
 * what it is meant for (FFmpeg's demuxer is forced from this: an HLS playlist or a concat
 * list never reaches it, so it opens no other file).
 */
export type Sniffed =
  | { readonly kind: "image"; readonly format: "jpeg" | "png" | "gif" | "webp" | "heif" | "avif" }
  | { readonly kind: "video"; readonly container: "mp4" | "mov" | "webm" | "mkv"; readonly demuxer: string }

/** How many bytes `sniff` wants. */
export const SNIFF_BYTES = 256

const ascii = (b: Uint8Array, from: number, to: number) => String.fromCharCode(...b.subarray(from, to))

const startsWith = (b: Uint8Array, bytes: ReadonlyArray<number>, at = 0) => bytes.every((v, i) => b[at + i] === v)

const HEIC_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"])
const AVIF_BRANDS = new Set(["avif", "avis"])

/** The ftyp box's major and compatible brands. */
const brands = (b: Uint8Array): ReadonlyArray<string> => {
  const size = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0
  const end = Math.min(size, b.length)
  const out = [ascii(b, 8, 12)]
  for (let at = 16; at + 4 <= end; at += 4) out.push(ascii(b, at, at + 4))
  return out
}

export const sniff = (b: Uint8Array): Sniffed | null => {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return { kind: "image", format: "jpeg" }
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return { kind: "image", format: "png" }
  if (ascii(b, 0, 4) === "GIF8") return { kind: "image", format: "gif" }
  if (ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return { kind: "image", format: "webp" }
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) {
    const head = ascii(b, 0, b.length)
    return head.includes("webm")
      ? { kind: "video", container: "webm", demuxer: "matroska" }
      : { kind: "video", container: "mkv", demuxer: "matroska" }
  }
  if (b.length >= 12 && ascii(b, 4, 8) === "ftyp") {
    const all = brands(b)
    const major = all[0]!
    if (AVIF_BRANDS.has(major)) return { kind: "image", format: "avif" }
    if (HEIC_BRANDS.has(major)) return { kind: "image", format: "heif" }
    if (major === "mif1" || major === "msf1") {
      if (all.some((x) => AVIF_BRANDS.has(x))) return { kind: "image", format: "avif" }
      return { kind: "image", format: "heif" }
    }
    if (major === "qt  ") return { kind: "video", container: "mov", demuxer: "mov" }
    return { kind: "video", container: "mp4", demuxer: "mov" }
  }
  return null
}
