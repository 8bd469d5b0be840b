/**
 * The file types the media library takes: the spec's seven (POST /upload: JPG, PNG, GIF,
 * WEBP, MP4, MOV, WEBM) and the phone formats HEIC/HEIF and AVIF, which no network takes
 * as they are and are converted before sending (domain/media/mediaPlan.ts). One row per
 * type; the type is always decided from the content.
 */
export type MediaKind = "image" | "video"

export interface MediaFormat {
  readonly id: "jpeg" | "png" | "gif" | "webp" | "heic" | "avif" | "mp4" | "mov" | "webm"
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
  heic: { id: "heic", label: "HEIC", mime: "image/heic", extension: "heic", kind: "image" },
  avif: { id: "avif", label: "AVIF", mime: "image/avif", extension: "avif", kind: "image" },
  mp4: { id: "mp4", label: "MP4", mime: "video/mp4", extension: "mp4", kind: "video" },
  mov: { id: "mov", label: "MOV", mime: "video/quicktime", extension: "mov", kind: "video" },
  webm: { id: "webm", label: "WEBM", mime: "video/webm", extension: "webm", kind: "video" }
} as const satisfies Record<MediaFormat["id"], MediaFormat>

export const allFormats: ReadonlyArray<MediaFormat> = Object.values(formats)

/**
 * "JPG, PNG, GIF, WEBP, MP4, MOV or WEBM": the spec's list, word for word, in the refusal
 * of an unsupported file (docs/api.md POST /upload lists exactly these). HEIC and AVIF are
 * taken as well but stay out of the message the spec fixes.
 */
export const acceptedLabels = (() => {
  const labels = allFormats.filter((f) => f.id !== "heic" && f.id !== "avif").map((f) => f.label)
  return `${labels.slice(0, -1).join(", ")} or ${labels[labels.length - 1]}`
})()

export const formatByExtension = (extension: string): MediaFormat | undefined => allFormats.find((f) => f.extension === extension.toLowerCase())
