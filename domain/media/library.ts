import type { MediaFormat, MediaKind } from "./formats.js"
import type { MediaFacts } from "./preparation.js"

/** Spec: GET /media answers 40 items per page, newest first; pages start at 1. */
export const MEDIA_PAGE_SIZE = 40

/** Where a stored file lives, the same in every storage: `<workspace>/<id>.<ext>`. */
export const storageKey = (workspaceId: string, mediaId: string, format: MediaFormat) => `${workspaceId}/${mediaId}.${format.extension}`

const uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
const keyPattern = new RegExp(`^${uuid}/${uuid}\\.(jpg|png|gif|webp|heic|avif|mp4|mov|webm)$`)

/** Only keys this service writes are ever read back (no paths, no traversal). */
export const isStorageKey = (key: string): boolean => keyPattern.test(key)

const MAX_NAME = 255

/** A file name fit to store and show: no path, no control characters, at most 255 characters. */
export const cleanName = (name: string): string => {
  const base = name.split(/[/\\]/).pop() ?? ""
  return base
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, MAX_NAME)
}

/** Spec: for upload-from-url, `name` is the last part of the address. */
export const importName = (address: string): string => {
  const url = new URL(address)
  const last = url.pathname
    .split("/")
    .filter((part) => part !== "")
    .pop()
  let name = last ?? ""
  try {
    name = decodeURIComponent(name)
  } catch {
    // keep the encoded form
  }
  return cleanName(name) || url.hostname
}

/** A stored media row, as every reader sees it. */
export interface MediaRecord {
  readonly id: string
  readonly name: string
  readonly originalName: string
  readonly path: string
  readonly alt: string
  readonly mime: string
  readonly type: MediaKind
  readonly size: number
  readonly width: number | null
  readonly height: number | null
  readonly status: "ready"
  readonly facts: MediaFacts | null
}

/**
 * The spec's Media item: `thumbnail` is the path for images, null for videos. `facts`
 * (what the file is, read at upload) is this service's addition after the spec's fields.
 */
export const mediaItem = (m: MediaRecord) => ({
  id: m.id,
  name: m.name,
  originalName: m.originalName,
  path: m.path,
  thumbnail: m.type === "image" ? m.path : null,
  alt: m.alt,
  type: m.type,
  status: m.status,
  facts: m.facts
})

export type MediaItem = ReturnType<typeof mediaItem>
