import { availableParallelism } from "node:os"
import { rm, stat } from "node:fs/promises"
import { Config, Duration, Effect } from "effect"
import type { MediaFacts, RenditionTarget } from "../../../domain/media/preparation.js"
import { PreparationFailed, type ProbeRefused } from "./errors.js"
import { defaultProbeLimits, GIB } from "./limits.js"
import { prepareRendition, type Rendition } from "./prepare.js"
import { coverPathOf } from "./prepareVideo.js"
import { probeFileWith } from "./probe.js"

/** How much preparation a process does at once, and for how long (docs/media-preparation.md: Limits). */
export interface PoolSettings {
  /** MEDIA_PREPARATION_CONCURRENCY: files prepared at once (default: the CPU count). */
  readonly concurrency: number
  /** MEDIA_PREPARATION_TIMEOUT_SECONDS: one file's time limit once it runs; FFmpeg is killed past it. */
  readonly timeoutMs: number
  /** MEDIA_MAX_INPUT_BYTES: the largest file probed or prepared. */
  readonly maxInputBytes: number
}

export const poolSettingsFromEnv = Config.all({
  concurrency: Config.integer("MEDIA_PREPARATION_CONCURRENCY").pipe(
    Config.withDefault(availableParallelism()),
    Config.validate({ message: "MEDIA_PREPARATION_CONCURRENCY must be at least 1", validation: (n) => n >= 1 })
  ),
  timeoutMs: Config.number("MEDIA_PREPARATION_TIMEOUT_SECONDS").pipe(
    Config.withDefault(1800),
    Config.validate({ message: "MEDIA_PREPARATION_TIMEOUT_SECONDS must be positive", validation: (n) => n > 0 }),
    Config.map((seconds) => Math.round(seconds * 1000))
  ),
  maxInputBytes: Config.integer("MEDIA_MAX_INPUT_BYTES").pipe(
    Config.withDefault(2 * GIB),
    Config.validate({ message: "MEDIA_MAX_INPUT_BYTES must be a positive number of bytes", validation: (n) => n > 0 })
  )
})

export interface PreparationPoolShape {
  readonly settings: PoolSettings
  /** The file's facts, with this pool's maximum input size. */
  readonly probe: (path: string) => Effect.Effect<MediaFacts, ProbeRefused>
  /**
   * `prepareRendition` once a place in the pool is free; past the time limit it fails
   * (FFmpeg killed, partial output removed). Waiting for a place does not count.
   */
  readonly prepare: (
    input: { readonly path: string; readonly facts: MediaFacts },
    target: RenditionTarget,
    outPath: string
  ) => Effect.Effect<Rendition, PreparationFailed>
}

export const makePreparationPool = (settings: PoolSettings): Effect.Effect<PreparationPoolShape> =>
  Effect.gen(function* () {
    const places = yield* Effect.makeSemaphore(settings.concurrency)
    const limits = { ...defaultProbeLimits, maxInputBytes: settings.maxInputBytes }
    const seconds = Math.round(settings.timeoutMs / 100) / 10
    const prepare: PreparationPoolShape["prepare"] = (input, target, outPath) =>
      Effect.gen(function* () {
        const size = yield* Effect.tryPromise({
          try: () => stat(input.path).then((s) => s.size),
          catch: () => new PreparationFailed({ reason: "the original file could not be read", fix: "upload the file again" })
        })
        if (size > settings.maxInputBytes)
          return yield* new PreparationFailed({
            reason: `the file is ${Math.round(size / 1e6)} MB, more than the ${Math.round(settings.maxInputBytes / 1e6)} MB prepared`,
            fix: "upload a smaller file"
          })
        return yield* prepareRendition(input, target, outPath).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(settings.timeoutMs),
            onTimeout: () =>
              new PreparationFailed({
                reason: `preparing the file took longer than the ${seconds} s allowed`,
                fix: "upload a shorter or smaller video"
              })
          }),
          Effect.tapError(() => Effect.promise(() => Promise.all([rm(outPath, { force: true }), rm(coverPathOf(outPath), { force: true })]))),
          places.withPermits(1)
        )
      })
    return { settings, probe: (path) => probeFileWith(path, limits), prepare }
  })

/** The process's preparation pool, its settings from the environment. */
export class PreparationPool extends Effect.Service<PreparationPool>()("media/PreparationPool", {
  effect: Effect.flatMap(poolSettingsFromEnv, makePreparationPool)
}) {}
