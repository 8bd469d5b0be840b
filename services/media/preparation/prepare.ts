import { Effect } from "effect"
import type { MediaFacts, RenditionTarget } from "../../../domain/media/preparation.js"
import { PreparationFailed } from "./errors.js"
import { prepareImage } from "./prepareImage.js"
import { prepareVideo } from "./prepareVideo.js"

export { prepareImage } from "./prepareImage.js"
export { prepareVideo } from "./prepareVideo.js"

export interface Rendition {
  readonly path: string
  readonly bytes: number
  readonly mime: string
  /** The JPEG cover frame (video targets with `cover`), next to the rendition. */
  readonly coverPath: string | null
  /** The rendition's own facts, probed from what was written. */
  readonly facts: MediaFacts
}

/**
 * The file made for one target, written at `outPath` (the original is only read). An
 * image target takes images, a video target videos; anything else is a failure with a
 * plain reason. Run it through `PreparationPool` (bounded, time-limited), not directly.
 */
export const prepareRendition = (
  input: { readonly path: string; readonly facts: MediaFacts },
  target: RenditionTarget,
  outPath: string
): Effect.Effect<Rendition, PreparationFailed> => {
  const { facts } = input
  if (target.kind === "image" && facts.kind === "image")
    return prepareImage({ path: input.path, facts }, target, outPath).pipe(Effect.map((r) => ({ ...r, coverPath: null })))
  if (target.kind === "video" && facts.kind === "video")
    return prepareVideo({ path: input.path, facts }, target, outPath).pipe(
      Effect.map(({ path, bytes, mime, coverPath, facts }) => ({ path, bytes, mime, coverPath, facts }))
    )
  return Effect.fail(
    new PreparationFailed({
      reason: `this network wants ${target.kind === "image" ? "an image" : "a video"} here, and the file is ${facts.kind === "image" ? "an image" : "a video"}`,
      fix: `attach ${target.kind === "image" ? "an image" : "a video"} instead`
    })
  )
}
