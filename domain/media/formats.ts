/**
 * The file types the media library takes (spec: POST /upload): JPG, PNG, GIF, WEBP, MP4,
 * MOV, WEBM. One row per type; the type is always decided from the content.
 */
export type MediaKind = "image" | "video"

export interface MediaFormat {
  readonly id: "jpeg" | "png" | "gif" | "webp" | "mp4" | "mov" | "webm"
  /** Shown to people, as the spec names it. */
  readonly label: string
  readonly mime: string
  /** Extension of the stored file. */
  readonly extension: string
  readonly kind: MediaKind
}

export const formats = {
  jpeg: { id: "jpeg", label: "JPG", mime: "image/jpeg", extension: "jpg", kind: "image" },
  png: { id: "png", label: "PNG", mime: "image/png", extension: "png", kind: "image" },
  gif: { id: "gif", label: "GIF", mime: "image/gif", extension: "gif", kind: "image" },
  webp: { id: "webp", label: "WEBP", mime: "image/webp", extension: "webp", kind: "image" },
  mp4: { id: "mp4", label: "MP4", mime: "video/mp4", extension: "mp4", kind: "video" },
  mov: { id: "mov", label: "MOV", mime: "video/quicktime", extension: "mov", kind: "video" },
  webm: { id: "webm", label: "WEBM", mime: "video/webm", extension: "webm", kind: "video" }
} as const satisfies Record<MediaFormat["id"], MediaFormat>

export const allFormats: ReadonlyArray<MediaFormat> = Object.values(formats)

/** "JPG, PNG, GIF, WEBP, MP4, MOV or WEBM" */
export const acceptedLabels = (() => {
  const labels = allFormats.map((f) => f.label)
  return `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`
})()

export const formatByExtension = (extension: string): MediaFormat | undefined =>
  allFormats.find((f) => f.extension === extension.toLowerCase())
