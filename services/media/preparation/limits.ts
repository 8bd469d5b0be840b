import { Config, Effect } from "effect"

/** What the probe refuses before anything is decoded (docs/media-preparation.md: Limits). */
export interface ProbeLimits {
  /** MEDIA_MAX_INPUT_BYTES: the largest file probed or prepared. */
  readonly maxInputBytes: number
  /** An image decoding to more pixels than this (one frame) is a decompression bomb. */
  readonly maxImagePixels: number
  /** An animated image with more frames than this is refused. */
  readonly maxImageFrames: number
  /** HEIC is read whole into memory (the WebAssembly decoder takes a buffer): its own cap. */
  readonly maxHeicBytes: number
  /** A video wider or taller than this (coded size) is refused. */
  readonly maxVideoSide: number
  /** A video declaring more frames than this, or a frame rate above `maxVideoFrameRate`, is refused. */
  readonly maxVideoFrames: number
  readonly maxVideoFrameRate: number
  /** FFprobe's time limit for one file. */
  readonly probeTimeoutMs: number
}

export const GIB = 1024 * 1024 * 1024

export const defaultProbeLimits: ProbeLimits = {
  maxInputBytes: 2 * GIB,
  maxImagePixels: 100_000_000,
  maxImageFrames: 1_000,
  maxHeicBytes: 64 * 1024 * 1024,
  maxVideoSide: 8192,
  // ten hours at 60 fps
  maxVideoFrames: 2_160_000,
  maxVideoFrameRate: 240,
  probeTimeoutMs: 30_000
}

/** The limits with MEDIA_MAX_INPUT_BYTES from the environment (an invalid value is a defect at start). */
export const probeLimitsFromEnv: Effect.Effect<ProbeLimits> = Config.integer("MEDIA_MAX_INPUT_BYTES").pipe(
  Config.withDefault(defaultProbeLimits.maxInputBytes),
  Config.validate({ message: "MEDIA_MAX_INPUT_BYTES must be a positive number of bytes", validation: (n) => n > 0 }),
  Effect.map((maxInputBytes): ProbeLimits => ({ ...defaultProbeLimits, maxInputBytes })),
  Effect.orDie
)
