import { Data } from "effect"

/**
 * The probe will not take this file: unreadable, not an image or video, too large, or a
 * decompression bomb. `reason` and `fix` are plain sentences for the person who uploaded it.
 */
export class ProbeRefused extends Data.TaggedError("ProbeRefused")<{
  readonly reason: string
  readonly fix: string
}> {
  override get message() {
    return `${this.reason}; ${this.fix}`
  }
}

/** A rendition could not be made (decoder or encoder failed, too slow, over the target's size). */
export class PreparationFailed extends Data.TaggedError("PreparationFailed")<{
  readonly reason: string
  readonly fix: string
}> {
  override get message() {
    return `${this.reason}; ${this.fix}`
  }
}
