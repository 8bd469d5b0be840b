import { Errors } from "../errors.js"
import { acceptedLabels, type MediaFormat } from "./formats.js"

/**
 * The media library's answers to refused files and addresses (spec: Media; Errors: 400 "an
 * image over the image limit", 413 "an upload over the largest file size the server takes").
 * Every text lives here; the gateway only picks one.
 */

/** 10485760 → "10 MB", 1073741824 → "1 GB", 1536 → "1.5 KB". */
export const formatSize = (bytes: number): string => {
  const units = ["bytes", "KB", "MB", "GB", "TB"] as const
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  const text = unit === 0 ? String(value) : String(Math.round(value * 10) / 10)
  return `${text} ${units[unit]}`
}

const bad = (error: string, fix?: string) => Errors.mediaRefused(error, fix)

export const MediaMessages = {
  unsupported: `This file type is not accepted. Upload a ${acceptedLabels} file.`,
  unsupportedFix: "The type is read from the file's content, not its name: convert the file, then upload it again.",
  damagedFix: "Upload the whole file again. If it keeps happening, open the file on your computer to check that it is not broken.",
  missingFile: "Send the file as multipart/form-data in the field `file`.",
  empty: "The file is empty.",
  tooLargeFix: "Make the file smaller (shorter, or a lower resolution) and upload it again.",
  imageTooLargeFix: "Make the image smaller (fewer pixels, or save it as JPG or WEBP) and upload it again.",
  notPublic: "The address is not public. Only files on public http or https addresses can be imported.",
  notPublicFix: "Use an address on the internet. Addresses on private networks, localhost and cloud metadata addresses are refused.",
  urlFix: "Use the direct http or https address of the image or video.",
  tooManyRedirects: (max: number) => `The address redirected more than ${max} times.`,
  page: (contentType: string) => `The address opens a page (${contentType}), not a file. Use the address of the image or video itself.`,
  pageFix: "Open the page, copy the address of the image or video itself (for example with Copy image address), and send that.",
  status: (status: number) => `The address answered with HTTP ${status} instead of the file.`,
  timeout: (seconds: number) => `The file could not be downloaded within ${seconds} seconds.`,
  timeoutFix: "Check that the address works and answers quickly, or download the file and upload it with POST /upload.",
  unreachable: "The file could not be downloaded from the address.",
  unreachableFix: "Check that the address works in a browser, then try again."
} as const

export const MediaErrors = {
  unsupported: () => bad(MediaMessages.unsupported, MediaMessages.unsupportedFix),
  damaged: (format: MediaFormat, reason: string) =>
    bad(`The file looks like a ${format.label} but is incomplete or damaged: ${reason}.`, MediaMessages.damagedFix),
  missingFile: () => bad(MediaMessages.missingFile),
  empty: () => bad(MediaMessages.empty, MediaMessages.damagedFix),
  /** 400, with the limit in the message (spec: Status codes, 400). */
  imageTooLarge: (size: number, limit: number) =>
    bad(`Images can be at most ${formatSize(limit)}. This one is ${formatSize(size)}.`, MediaMessages.imageTooLargeFix),
  /** 413 on upload (spec: Status codes, 413). */
  uploadTooLarge: (limit: number) =>
    Errors.payloadTooLarge(`The file is larger than ${formatSize(limit)}, the largest upload this server takes.`, MediaMessages.tooLargeFix),
  /** 400 on import: the request itself was small; the address's file was refused. */
  importTooLarge: (limit: number) =>
    bad(`The file at the address is larger than ${formatSize(limit)}, the largest file this server takes.`, MediaMessages.tooLargeFix),
  notPublic: () => bad(MediaMessages.notPublic, MediaMessages.notPublicFix),
  badUrl: (reason: string) => bad(`The address cannot be imported: ${reason}.`, MediaMessages.urlFix),
  tooManyRedirects: (max: number) => bad(MediaMessages.tooManyRedirects(max), MediaMessages.urlFix),
  page: (contentType: string) => bad(MediaMessages.page(contentType), MediaMessages.pageFix),
  status: (status: number) => bad(MediaMessages.status(status), MediaMessages.urlFix),
  timeout: (timeoutMs: number) => bad(MediaMessages.timeout(Math.round(timeoutMs / 1000)), MediaMessages.timeoutFix),
  unreachable: () => bad(MediaMessages.unreachable, MediaMessages.unreachableFix),
  /** The probe read the file and will not take it (unreadable, no picture, a decompression bomb, too large to read). */
  probeRefused: (reason: string, fix: string) => bad(`This file cannot be used: ${reason}.`, `${sentence(fix)}.`)
} as const

const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)
