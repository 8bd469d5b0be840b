/**
 * The contract between what a file is (its facts, read once at upload or import) and what
 * a network takes (a rendition target, derived from the network's media rules). The
 * probe fills `MediaFacts`; the rules turn facts and a network into a `RenditionTarget`
 * or a refusal; preparation makes the rendition. Pure types and one key function.
 */

/** What an image is, read from its content. */
export interface ImageFacts {
  readonly kind: "image"
  /** Decoded format: jpeg, png, gif, webp, heif (HEIC), avif. */
  readonly format: string
  /** As stored, before EXIF rotation. */
  readonly width: number
  readonly height: number
  /** EXIF orientation 1-8 (1 when absent). 5-8 swap width and height when shown. */
  readonly orientation: number
  /** More than one frame (animated GIF/WEBP). */
  readonly animated: boolean
  readonly frames: number
  /** srgb, cmyk, b-w, … as the decoder names it. */
  readonly colourSpace: string
  readonly bytes: number
}

/** What a video is, read from its container. */
export interface VideoFacts {
  readonly kind: "video"
  /** mp4, mov, webm, … */
  readonly container: string
  readonly videoCodec: string
  /** null when the file has no audio stream. */
  readonly audioCodec: string | null
  readonly durationSeconds: number
  /** As displayed (after the rotation in the container's matrix). */
  readonly width: number
  readonly height: number
  readonly frameRate: number
  /** The whole file's bitrate. */
  readonly bitrateKbps: number
  readonly bytes: number
}

export type MediaFacts = ImageFacts | VideoFacts

/** An image a network takes: one of its formats, within its dimensions and size. */
export interface ImageTarget {
  readonly kind: "image"
  readonly format: "jpeg" | "png"
  readonly maxWidth: number
  readonly maxHeight: number
  readonly maxBytes: number
}

/** A video a network takes: H.264/AAC MP4 (faststart) within its limits. */
export interface VideoTarget {
  readonly kind: "video"
  readonly maxWidth: number
  readonly maxHeight: number
  readonly maxBytes: number
  readonly maxFrameRate: number
  readonly maxVideoBitrateKbps: number
  /** Also make a JPEG cover frame (networks that take a thumbnail). */
  readonly cover: boolean
}

export type RenditionTarget = ImageTarget | VideoTarget

/**
 * The same file prepared for the same target is made once: renditions are found by
 * (media id, this key), shared by every channel whose network asks the same.
 */
export const targetKey = (target: RenditionTarget): string =>
  target.kind === "image"
    ? `image-${target.format}-${target.maxWidth}x${target.maxHeight}-${target.maxBytes}`
    : `video-h264-${target.maxWidth}x${target.maxHeight}-${target.maxFrameRate}fps-${target.maxVideoBitrateKbps}k-${target.maxBytes}${target.cover ? "-cover" : ""}`
