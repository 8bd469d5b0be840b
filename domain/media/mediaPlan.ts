import type { ImageRules, MediaRules, VideoRules } from "../networks/mediaRules.js"
import type { ImageFacts, MediaFacts, RenditionTarget, VideoFacts } from "./preparation.js"

/**
 * A post's files against one network's media rules: what preparation will make of each
 * file (in words, and as a rendition target), or why the network cannot take them.
 * What preparation can fix (format, size, dimensions, rotation, codec, frame rate, bytes)
 * is planned; what it cannot (duration, shape, counts, a file too long to fit the size
 * limit at a watchable quality) is refused, naming the file and the limit. Pure.
 */

export interface FileToPlan {
  /** The file's name, as people know it. */
  readonly name: string
  readonly facts: MediaFacts
}

export type FilePlan =
  /** The network takes the file as it is. */
  | { readonly _tag: "AsIs"; readonly name: string }
  /** A rendition is made first; `steps` says what changes, in words. */
  | { readonly _tag: "Prepare"; readonly name: string; readonly target: RenditionTarget; readonly steps: ReadonlyArray<string> }

export type MediaPlan =
  | { readonly _tag: "Planned"; readonly files: ReadonlyArray<FilePlan> }
  | { readonly _tag: "Refused"; readonly problems: ReadonlyArray<string> }

/** Below this video bitrate a rendition squeezed into the size limit is not worth watching: refused instead. */
export const MIN_VIDEO_KBPS = 300
/** Kept for the audio track and the container when a video's bitrate is derived from the size limit. */
const AUDIO_KBPS = 128
/** Share of the byte budget given to the streams (the rest is margin for the container and rate control). */
const BUDGET_SHARE = 0.9

const formatLabels: Readonly<Record<string, string>> = {
  jpeg: "JPG",
  png: "PNG",
  gif: "GIF",
  webp: "WEBP",
  heif: "HEIC",
  heic: "HEIC",
  avif: "AVIF",
  h264: "H.264",
  hevc: "HEVC",
  vp8: "VP8",
  vp9: "VP9",
  av1: "AV1",
  aac: "AAC",
  opus: "Opus"
}
const label = (name: string) => formatLabels[name.toLowerCase()] ?? name.toUpperCase()

/** 1200 → "20:00", 3725 → "1:02:05", 0.5 → "0:00.5". */
export const formatDuration = (seconds: number): string => {
  const whole = Math.floor(seconds)
  const fraction = seconds - whole
  const h = Math.floor(whole / 3600)
  const m = Math.floor((whole % 3600) / 60)
  const s = whole % 60
  const tail = fraction >= 0.05 && seconds < 60 ? `.${Math.round(fraction * 10)}` : ""
  const ss = `${String(s).padStart(2, "0")}${tail}`
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`
}

/** 5242880 → "5 MB", 1000000 → "976.6 KB". */
export const formatBytes = (bytes: number): string => {
  const units = ["bytes", "KB", "MB", "GB", "TB"] as const
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${unit === 0 ? String(value) : String(Math.round(value * 10) / 10)} ${units[unit]}`
}

const ratioText = (width: number, height: number) => `${Math.round((width / height) * 100) / 100}:1`

/** Width and height as shown: EXIF orientations 5 to 8 turn the picture a quarter. */
export const shownSize = (facts: MediaFacts): { readonly width: number; readonly height: number } =>
  facts.kind === "image" && facts.orientation >= 5 && facts.orientation <= 8
    ? { width: facts.height, height: facts.width }
    : { width: facts.width, height: facts.height }

/** The longest and shortest side limits, turned to the file's own orientation. */
const box = (width: number, height: number, maxLong: number, maxShort: number) =>
  width >= height ? { maxWidth: maxLong, maxHeight: maxShort } : { maxWidth: maxShort, maxHeight: maxLong }

/** The size after scaling down to fit the box (never up), keeping the shape. */
const fitted = (width: number, height: number, maxWidth: number, maxHeight: number) => {
  const scale = Math.min(1, maxWidth / width, maxHeight / height)
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)), scaled: scale < 1 }
}

const shapeProblem = (name: string, width: number, height: number, rules: MediaRules, aspect: ImageRules["aspect"]) => {
  if (aspect === null) return null
  const ratio = width / height
  // a hundredth of slack: 1080×1350 is 4:5 even when rounded
  if (ratio >= aspect.min * 0.99 && ratio <= aspect.max * 1.01) return null
  return `${name} is ${width}×${height} (${ratioText(width, height)}); ${rules.networkName} takes shapes from ${aspect.label}. Crop it to fit, then upload it again.`
}

type Planned = { readonly plan: FilePlan } | { readonly problem: string }

/** Networks that take only some sizes: the largest that fits inside the image, which must scale to it exactly. */
const exactBox = (
  name: string,
  width: number,
  height: number,
  rules: MediaRules,
  sizes: ReadonlyArray<readonly [number, number]>
): { readonly problem: string } | { readonly limits: { readonly maxWidth: number; readonly maxHeight: number } } => {
  const taken = sizes.map(([w, h]) => `${w}×${h}`).join(", ")
  const [w, h] = [...sizes].filter(([sw, sh]) => sw <= width && sh <= height).sort((a, b) => b[0] * b[1] - a[0] * a[1])[0] ?? [0, 0]
  const scaled = fitted(width, height, w, h)
  if (w === 0 || scaled.width !== w || scaled.height !== h) {
    return {
      problem: `${name} is ${width}×${height}; ${rules.networkName} takes only ${taken}. Crop or scale it to one of those, then upload it again.`
    }
  }
  return { limits: { maxWidth: w, maxHeight: h } }
}

const planImage = (name: string, facts: ImageFacts, rules: MediaRules, images: ImageRules): Planned => {
  const { height, width } = shownSize(facts)
  const shape = shapeProblem(name, width, height, rules, images.aspect)
  if (shape !== null) return { problem: shape }
  const format = facts.format.toLowerCase()
  const taken = (images.formats as ReadonlyArray<string>).includes(format)
  const exact = images.exactSizes === undefined ? null : exactBox(name, width, height, rules, images.exactSizes)
  if (exact !== null && "problem" in exact) return exact
  const limits = exact?.limits ?? box(width, height, images.maxLongSide, images.maxShortSide)
  const size = fitted(width, height, limits.maxWidth, limits.maxHeight)
  // an animated GIF the network plays is sent as it is, when it is within the limits
  if (facts.animated && format === "gif" && taken && images.animatedGif && !size.scaled && facts.bytes <= images.maxBytes) {
    return { plan: { _tag: "AsIs", name } }
  }
  const to = format === "png" && images.formats.includes("png") ? "png" : images.formats.includes("jpeg") ? "jpeg" : "png"
  const steps: Array<string> = []
  if (facts.animated) steps.push(`only the first frame of the animation is sent (${rules.networkName} does not play animated ${label(format)})`)
  if (facts.orientation !== 1) steps.push("turned upright as the camera recorded it")
  if (format !== to) steps.push(`converted from ${label(format)} to ${label(to)}`)
  if (size.scaled) steps.push(`scaled down from ${width}×${height} to ${size.width}×${size.height}`)
  if (facts.bytes > images.maxBytes) steps.push(`made smaller than ${formatBytes(images.maxBytes)} (it is ${formatBytes(facts.bytes)})`)
  steps.push("metadata (location, camera) removed")
  return {
    plan: {
      _tag: "Prepare",
      name,
      target: { kind: "image", format: to, maxWidth: limits.maxWidth, maxHeight: limits.maxHeight, maxBytes: images.maxBytes },
      steps
    }
  }
}

const planVideo = (name: string, facts: VideoFacts, rules: MediaRules, videos: VideoRules): Planned => {
  const network = rules.networkName
  if (facts.durationSeconds > videos.maxSeconds) {
    return {
      problem: `${name} is ${formatDuration(facts.durationSeconds)} long; ${network} takes at most ${formatDuration(videos.maxSeconds)}. Shorten the video, then upload it again.`
    }
  }
  if (facts.durationSeconds < videos.minSeconds) {
    return {
      problem: `${name} is ${formatDuration(facts.durationSeconds)} long; ${network} takes at least ${formatDuration(videos.minSeconds)}. Use a longer video.`
    }
  }
  const shape = shapeProblem(name, facts.width, facts.height, rules, videos.aspect)
  if (shape !== null) return { problem: shape }

  const limits = box(facts.width, facts.height, videos.maxLongSide, videos.maxShortSide)
  const size = fitted(facts.width, facts.height, limits.maxWidth, limits.maxHeight)
  const seconds = Math.max(facts.durationSeconds, 1)
  // what the byte limit leaves for the video stream over the whole duration
  const budgetKbps = Math.floor(((videos.maxBytes * 8) / 1000 / seconds) * BUDGET_SHARE) - AUDIO_KBPS
  const bitrateKbps = Math.min(videos.maxBitrateKbps, budgetKbps)
  const codecTaken = videos.videoCodecs.includes(facts.videoCodec.toLowerCase())
  const audioTaken = facts.audioCodec === null || videos.audioCodecs.includes(facts.audioCodec.toLowerCase())
  const containerTaken = videos.containers.includes(facts.container.toLowerCase())
  const tooFast = facts.frameRate > videos.maxFrameRate + 0.01
  const tooBig = facts.bytes > videos.maxBytes
  const tooDense = facts.bitrateKbps > videos.maxBitrateKbps
  const asIs = codecTaken && audioTaken && containerTaken && !size.scaled && !tooFast && !tooBig && !tooDense && !videos.cover
  if (asIs) return { plan: { _tag: "AsIs", name } }
  if (bitrateKbps < MIN_VIDEO_KBPS) {
    return {
      problem:
        `${name} is ${formatDuration(facts.durationSeconds)} long and cannot be made smaller than ${formatBytes(videos.maxBytes)}, ` +
        `${network}'s limit, without spoiling it. Shorten the video, then upload it again.`
    }
  }
  const steps: Array<string> = []
  if (!codecTaken || !containerTaken) steps.push(`converted from ${label(facts.videoCodec)} in ${label(facts.container)} to H.264 in MP4`)
  else steps.push("rewritten as H.264 in MP4 (ready to stream)")
  if (facts.audioCodec !== null && !audioTaken) steps.push(`sound converted from ${label(facts.audioCodec)} to AAC`)
  if (size.scaled) steps.push(`scaled down from ${facts.width}×${facts.height} to ${size.width}×${size.height}`)
  if (tooFast) steps.push(`frame rate lowered from ${Math.round(facts.frameRate * 100) / 100} to ${videos.maxFrameRate} fps`)
  if (tooBig) steps.push(`made smaller than ${formatBytes(videos.maxBytes)} (it is ${formatBytes(facts.bytes)})`)
  if (videos.cover) steps.push("a cover image made from its first second")
  // rounded down to 100 kbps, so near-identical limits share one rendition
  const maxVideoBitrateKbps = Math.max(MIN_VIDEO_KBPS, Math.floor(bitrateKbps / 100) * 100)
  return {
    plan: {
      _tag: "Prepare",
      name,
      target: {
        kind: "video",
        maxWidth: limits.maxWidth,
        maxHeight: limits.maxHeight,
        maxBytes: videos.maxBytes,
        maxFrameRate: Math.min(videos.maxFrameRate, 60),
        maxVideoBitrateKbps,
        cover: videos.cover
      },
      steps
    }
  }
}

const countProblems = (files: ReadonlyArray<FileToPlan>, rules: MediaRules): ReadonlyArray<string> => {
  const network = rules.networkName
  const images = files.filter((f) => f.facts.kind === "image")
  const videos = files.filter((f) => f.facts.kind === "video")
  const problems: Array<string> = []
  if (images.length > 0 && rules.images === null) problems.push(`${images[0]!.name} is a photo; ${network} takes only videos.`)
  if (videos.length > 0 && rules.videos === null) problems.push(`${videos[0]!.name} is a video; ${network} takes only photos.`)
  if (rules.images !== null && images.length > rules.maxImages) {
    problems.push(`The post has ${images.length} photos; ${network} takes at most ${rules.maxImages} in one post.`)
  }
  if (rules.videos !== null && videos.length > rules.maxVideos) {
    problems.push(`The post has ${videos.length} videos; ${network} takes at most ${rules.maxVideos} in one post.`)
  }
  if (!rules.mixed && images.length > 0 && videos.length > 0 && rules.images !== null && rules.videos !== null) {
    problems.push(`The post has photos and a video (${videos[0]!.name}); ${network} takes either photos or one video in a post.`)
  }
  if (rules.sameAspect && images.length > 1) {
    const [first, ...rest] = images
    const a = shownSize(first!.facts)
    for (const other of rest) {
      const b = shownSize(other.facts)
      if (Math.abs(a.width / a.height - b.width / b.height) > 0.01 * (a.width / a.height)) {
        problems.push(
          `${other.name} is ${b.width}×${b.height} (${ratioText(b.width, b.height)}) but ${first!.name} is ${a.width}×${a.height} ` +
            `(${ratioText(a.width, a.height)}); ${network} needs every photo of a post in the same shape.`
        )
      }
    }
  }
  return problems
}

/** The plan of a post's files (in order) for one network's rules. */
export const planMedia = (files: ReadonlyArray<FileToPlan>, rules: MediaRules): MediaPlan => {
  const problems: Array<string> = [...countProblems(files, rules)]
  const plans: Array<FilePlan> = []
  for (const file of files) {
    const { facts, name } = file
    if (facts.kind === "image" && rules.images === null) continue
    if (facts.kind === "video" && rules.videos === null) continue
    const planned = facts.kind === "image" ? planImage(name, facts, rules, rules.images!) : planVideo(name, facts, rules, rules.videos!)
    if ("problem" in planned) problems.push(planned.problem)
    else plans.push(planned.plan)
  }
  return problems.length > 0 ? { _tag: "Refused", problems } : { _tag: "Planned", files: plans }
}

/** "photo.heic: turned upright, converted from HEIC to JPG, …" for each file a rendition is made for. */
export const describePlan = (plan: MediaPlan): ReadonlyArray<string> =>
  plan._tag === "Refused"
    ? plan.problems
    : plan.files.map((f) => (f._tag === "AsIs" ? `${f.name}: sent as it is.` : `${f.name}: ${f.steps.join(", ")}.`))
