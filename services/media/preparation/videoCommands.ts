import type { VideoFacts, VideoTarget } from "../../../domain/media/preparation.js"
import { fitInside } from "./fit.js"

/** libx264's preset: `veryfast` keeps a 60 s 1080p transcode near real time on one core pair, at a modest size cost over `medium`. */
export const X264_PRESET = "veryfast"
export const X264_CRF = 23
export const AUDIO_KBPS = 128

/** The demuxer FFmpeg is forced to use for a container the probe recognised (never guessed from the file). */
export const demuxerOf = (container: string): string => (container === "webm" || container === "mkv" ? "matroska" : "mov")

/** What every FFmpeg run starts with: no stdin, quiet, and the input read only as a local file by the named demuxer. */
const inputArgs = (file: string, container: string, seekSeconds?: number): Array<string> => [
  "-nostdin",
  "-hide_banner",
  "-loglevel",
  "error",
  "-y",
  ...(seekSeconds !== undefined ? ["-ss", seekSeconds.toFixed(3)] : []),
  "-protocol_whitelist",
  "file",
  "-f",
  demuxerOf(container),
  "-i",
  file
]

/** Copies the streams into an MP4 with the index (moov) first, so players start before the end arrives. */
export const remuxArgs = (file: string, facts: VideoFacts, outPath: string): ReadonlyArray<string> => [
  ...inputArgs(file, facts.container),
  "-map",
  "0:v:0",
  "-map",
  "0:a:0?",
  "-c",
  "copy",
  "-map_metadata",
  "-1",
  "-map_chapters",
  "-1",
  "-movflags",
  "+faststart",
  "-f",
  "mp4",
  outPath
]

/** The video bitrate cap: the target's, lowered so that the whole file fits `maxBytes` (8 % room for the container). */
export const videoBitrateCapKbps = (facts: VideoFacts, target: VideoTarget): number => {
  const seconds = Math.max(facts.durationSeconds, 0.1)
  const budget = ((target.maxBytes * 8) / 1000 / seconds) * 0.92 - (facts.audioCodec === null ? 0 : AUDIO_KBPS)
  return Math.floor(Math.min(target.maxVideoBitrateKbps, budget))
}

/**
 * H.264 (High profile, 4:2:0, CRF 23 capped at the bitrate above) and AAC in an MP4 with
 * faststart, scaled inside the target (FFmpeg turns the picture upright by the
 * container's rotation first), frame rate capped; metadata and chapters dropped.
 */
export const transcodeArgs = (file: string, facts: VideoFacts, target: VideoTarget, outPath: string): ReadonlyArray<string> => {
  const size = fitInside(facts.width, facts.height, target.maxWidth, target.maxHeight, true)
  const filters = [
    `scale=${size.width}:${size.height}`,
    ...(facts.frameRate > target.maxFrameRate ? [`fps=${target.maxFrameRate}`] : []),
    "format=yuv420p"
  ]
  const cap = videoBitrateCapKbps(facts, target)
  return [
    ...inputArgs(file, facts.container),
    "-map",
    "0:v:0",
    "-map",
    "0:a:0?",
    "-vf",
    filters.join(","),
    "-c:v",
    "libx264",
    "-preset",
    X264_PRESET,
    "-profile:v",
    "high",
    "-crf",
    String(X264_CRF),
    "-maxrate",
    `${cap}k`,
    "-bufsize",
    `${cap * 2}k`,
    "-c:a",
    "aac",
    "-b:a",
    `${AUDIO_KBPS}k`,
    "-ac",
    "2",
    "-map_metadata",
    "-1",
    "-map_chapters",
    "-1",
    "-movflags",
    "+faststart",
    "-f",
    "mp4",
    outPath
  ]
}

/** One JPEG frame (a second in, or the middle of a shorter video), upright, inside the target's size. */
export const coverArgs = (file: string, facts: VideoFacts, target: VideoTarget, coverPath: string): ReadonlyArray<string> => {
  const size = fitInside(facts.width, facts.height, target.maxWidth, target.maxHeight, true)
  return [
    ...inputArgs(file, facts.container, Math.min(1, facts.durationSeconds / 2)),
    "-map",
    "0:v:0",
    "-frames:v",
    "1",
    "-vf",
    `scale=${size.width}:${size.height}`,
    "-q:v",
    "3",
    "-map_metadata",
    "-1",
    "-f",
    "image2",
    "-c:v",
    "mjpeg",
    coverPath
  ]
}
