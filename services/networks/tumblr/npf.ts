import type { MediaFile } from "../networkDeps.js"
import type { StoredMedia } from "../storedMedia.js"

/**
 * A post's text and files as Neue Post Format content (github.com/tumblr/docs, npf-spec.md):
 * one text block per line of the text (a block holds at most 4096 code points, so a longer
 * line is cut into several), and each file as an image or video block whose media names an
 * `identifier`: the multipart part that carries the file's bytes with the post.
 */

/** NPF's longest text block, in Unicode code points. */
const TEXT_BLOCK_MAX = 4096

export type NpfBlock =
  | { readonly type: "text"; readonly text: string }
  | {
      readonly type: "image"
      readonly media: ReadonlyArray<{ readonly type: string; readonly identifier: string; readonly width?: number; readonly height?: number }>
      readonly alt_text?: string
    }
  | {
      readonly type: "video"
      readonly media: { readonly type: string; readonly identifier: string; readonly width?: number; readonly height?: number }
    }

export const textBlocks = (content: string): ReadonlyArray<NpfBlock> =>
  content
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      const points = [...line]
      const parts: Array<string> = []
      for (let i = 0; i < points.length; i += TEXT_BLOCK_MAX) parts.push(points.slice(i, i + TEXT_BLOCK_MAX).join(""))
      return parts.map((text) => ({ type: "text" as const, text }))
    })

export const isVideo = (file: StoredMedia) => file.type === "video" || file.mime.startsWith("video/")

/** The file's size in pixels when the library knows it (0: unknown, left to Tumblr). */
const dimensions = (file: StoredMedia) => (file.width > 0 && file.height > 0 ? { width: file.width, height: file.height } : {})

/** The media blocks (files first, as Tumblr shows a photo post) and the parts that carry their bytes. */
export const mediaBlocks = (files: ReadonlyArray<{ readonly stored: StoredMedia; readonly file: MediaFile }>) =>
  files.map(({ stored, file }, index) => {
    const identifier = `media-${index}`
    const media = { type: file.mime, identifier, ...dimensions(stored) }
    const block: NpfBlock = isVideo(stored)
      ? { type: "video", media }
      : { type: "image", media: [media], ...(stored.alt === "" ? {} : { alt_text: stored.alt }) }
    return { block, part: { name: identifier, filename: file.name || identifier, mime: file.mime, bytes: file.bytes } }
  })

/** The text of NPF content as this service compares it: its text blocks, one per line. */
export const textOf = (content: ReadonlyArray<{ readonly type: string; readonly text?: string | undefined }>) =>
  content
    .filter((b) => b.type === "text")
    .map((b) => b.text ?? "")
    .join("\n")
