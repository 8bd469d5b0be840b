import { describe, expect, it } from "vitest"
import { describePlan, formatDuration, planMedia, type FileToPlan, type MediaPlan } from "../../../domain/media/mediaPlan.js"
import type { ImageFacts, VideoFacts } from "../../../domain/media/preparation.js"
import { targetKey } from "../../../domain/media/preparation.js"
import { mediaRulesOf, networkMediaRules } from "../../../domain/networks/mediaRules.js"
import { networks } from "../../../domain/networks/index.js"

const MB = 1024 * 1024

const image = (name: string, over: Partial<ImageFacts> = {}): FileToPlan => ({
  name,
  facts: {
    kind: "image",
    format: "jpeg",
    width: 1200,
    height: 900,
    orientation: 1,
    animated: false,
    frames: 1,
    colourSpace: "srgb",
    bytes: 400_000,
    ...over
  }
})

const video = (name: string, over: Partial<VideoFacts> = {}): FileToPlan => ({
  name,
  facts: {
    kind: "video",
    container: "mp4",
    videoCodec: "h264",
    audioCodec: "aac",
    durationSeconds: 30,
    width: 1280,
    height: 720,
    frameRate: 30,
    bitrateKbps: 4000,
    bytes: 15 * MB,
    ...over
  }
})

const rules = (network: string, settings: Record<string, unknown> = {}) => {
  const found = mediaRulesOf(network, settings)
  if (found === null) throw new Error(`no media rules for ${network}`)
  return found
}

const refusals = (plan: MediaPlan) => (plan._tag === "Refused" ? plan.problems : [])
const steps = (plan: MediaPlan) => (plan._tag === "Planned" ? plan.files.map((f) => (f._tag === "Prepare" ? f.steps : ["as is"])) : [])

describe("network media rules: what cannot be fixed is refused, naming the file and the limit", () => {
  it.each([
    [
      "a 20-minute video for Bluesky's 3 minutes",
      "bluesky",
      [video("video.mp4", { durationSeconds: 1200 })],
      "video.mp4 is 20:00 long; Bluesky takes at most 3:00."
    ],
    [
      "a 20-minute video for Instagram's 15 minutes",
      "instagram",
      [video("talk.mov", { durationSeconds: 1200, container: "mov" })],
      "talk.mov is 20:00 long; Instagram takes at most 15:00."
    ],
    [
      "a 2-second video for Instagram's 3 seconds",
      "instagram",
      [video("blink.mp4", { durationSeconds: 2 })],
      "blink.mp4 is 0:02 long; Instagram takes at least 0:03."
    ],
    ["3 minutes for X's 140 seconds", "x", [video("clip.mp4", { durationSeconds: 180 })], "clip.mp4 is 3:00 long; X takes at most 2:20."],
    [
      "11 photos for a carousel of 10",
      "instagram",
      Array.from({ length: 11 }, (_, i) => image(`p${i}.jpg`, { width: 1080, height: 1080 })),
      "The post has 11 photos; Instagram takes at most 10 in one post."
    ],
    [
      "5 photos for Bluesky's 4",
      "bluesky",
      Array.from({ length: 5 }, (_, i) => image(`p${i}.jpg`)),
      "The post has 5 photos; Bluesky takes at most 4 in one post."
    ],
    [
      "photos and a video on X",
      "x",
      [image("a.jpg"), video("b.mp4")],
      "The post has photos and a video (b.mp4); X takes either photos or one video in a post."
    ],
    ["a photo for YouTube", "youtube", [image("a.jpg")], "a.jpg is a photo; YouTube takes only videos."],
    [
      "a tall photo for Instagram",
      "instagram",
      [image("tall.jpg", { width: 1000, height: 3000 })],
      "tall.jpg is 1000×3000 (0.33:1); Instagram takes shapes from 4:5 to 1.91:1."
    ],
    [
      "a panorama video for X",
      "x",
      [video("pano.mp4", { width: 4000, height: 1000 })],
      "pano.mp4 is 4000×1000 (4:1); X takes shapes from 1:3 to 3:1."
    ],
    [
      "Pinterest photos of different shapes",
      "pinterest",
      [image("a.jpg", { width: 1000, height: 1500 }), image("b.jpg", { width: 1000, height: 1000 })],
      "b.jpg is 1000×1000 (1:1) but a.jpg is 1000×1500 (0.67:1); Pinterest needs every photo of a post in the same shape."
    ],
    [
      "an hour for Telegram's 50 MB",
      "telegram",
      [video("long.mp4", { durationSeconds: 3600, bytes: 900 * MB })],
      "long.mp4 is 1:00:00 long and cannot be made smaller than 50 MB, Telegram's limit, without spoiling it."
    ],
    [
      "a square shot for Dribbble's 4:3",
      "dribbble",
      [image("square.png", { format: "png", width: 1000, height: 1000 })],
      "square.png is 1000×1000 (1:1); Dribbble takes shapes from 4:3 (landscape)."
    ],
    [
      "a 4:3 shot smaller than Dribbble's 400×300",
      "dribbble",
      [image("tiny.png", { format: "png", width: 200, height: 150 })],
      "tiny.png is 200×150; Dribbble takes only 1600×1200, 800×600, 400×300."
    ],
    [
      "a shot nearly 4:3 that would not scale to one of Dribbble's sizes exactly",
      "dribbble",
      [image("near.png", { format: "png", width: 1000, height: 751 })],
      "near.png is 1000×751; Dribbble takes only"
    ]
  ])("%s", (_, network, files, message) => {
    const problems = refusals(planMedia(files, rules(network)))
    expect(problems.some((p) => p.startsWith(message))).toBe(true)
  })

  it("every problem is listed at once", () => {
    const plan = planMedia([video("a.mp4", { durationSeconds: 1200 }), video("b.mp4", { durationSeconds: 1300 })], rules("bluesky"))
    expect(refusals(plan)).toHaveLength(3) // two videos, and each too long
  })
})

describe("network media rules: what preparation fixes is planned, in words and as a target", () => {
  it.each([
    [
      "an HEIC photo for Instagram becomes a JPG",
      "instagram",
      image("IMG_1.heic", { format: "heif", width: 4032, height: 3024, bytes: 2 * MB }),
      ["converted from HEIC to JPG", "scaled down from 4032×3024 to 1440×1080"]
    ],
    [
      "a rotated JPG is turned upright",
      "mastodon",
      image("phone.jpg", { orientation: 6, width: 4000, height: 3000 }),
      ["turned upright as the camera recorded it", "scaled down from 3000×4000 to 2160×2880"]
    ],
    [
      "an AVIF for Bluesky becomes a JPG under 1 MB",
      "bluesky",
      image("a.avif", { format: "avif", bytes: 3 * MB }),
      ["converted from AVIF to JPG", "made smaller than 976.6 KB (it is 3 MB)"]
    ],
    ["a PNG stays a PNG where PNG is taken", "x", image("shot.png", { format: "png" }), ["metadata (location, camera) removed"]],
    [
      "an animated GIF for Instagram sends its first frame",
      "instagram",
      image("fun.gif", { format: "gif", animated: true, frames: 12, width: 1000, height: 1000 }),
      ["only the first frame of the animation is sent (Instagram does not play animated GIF)", "converted from GIF to JPG"]
    ],
    [
      "a 4K HEVC video for X becomes 1080p H.264",
      "x",
      video("4k.mov", { container: "mov", videoCodec: "hevc", width: 3840, height: 2160, bytes: 200 * MB }),
      ["converted from HEVC in MOV to H.264 in MP4", "scaled down from 3840×2160 to 1920×1080"]
    ],
    [
      "a vertical video keeps its orientation",
      "bluesky",
      video("tall.mp4", { width: 2160, height: 3840, videoCodec: "hevc" }),
      ["converted from HEVC in MP4 to H.264 in MP4", "scaled down from 2160×3840 to 1080×1920"]
    ],
    ["a 120 fps video for X drops to 60", "x", video("fast.mp4", { frameRate: 120 }), ["frame rate lowered from 120 to 60 fps"]],
    [
      "a 4:3 shot for Dribbble becomes the largest of its sizes inside it",
      "dribbble",
      image("shot.png", { format: "png", width: 1000, height: 750 }),
      ["scaled down from 1000×750 to 800×600"]
    ],
    [
      "a large 4:3 shot for Dribbble becomes 1600×1200",
      "dribbble",
      image("big.jpg", { width: 4000, height: 3000 }),
      ["scaled down from 4000×3000 to 1600×1200"]
    ],
    [
      "a WEBM with Opus for LinkedIn",
      "linkedin",
      video("rec.webm", { container: "webm", videoCodec: "vp9", audioCodec: "opus" }),
      ["converted from VP9 in WEBM to H.264 in MP4", "sound converted from Opus to AAC", "a cover image made from its first second"]
    ]
  ])("%s", (_, network, file, expected) => {
    const plan = planMedia([file], rules(network))
    expect(plan._tag).toBe("Planned")
    for (const step of expected) expect(steps(plan)[0]).toContain(step)
  })

  it("a video the network takes as it is is sent as it is", () => {
    expect(planMedia([video("ok.mp4")], rules("x"))).toEqual({ _tag: "Planned", files: [{ _tag: "AsIs", name: "ok.mp4" }] })
  })

  it("an animated GIF a network plays is sent as it is", () => {
    expect(planMedia([image("fun.gif", { format: "gif", animated: true, frames: 12 })], rules("mastodon"))).toEqual({
      _tag: "Planned",
      files: [{ _tag: "AsIs", name: "fun.gif" }]
    })
  })

  it("a silent video needs no sound conversion", () => {
    expect(planMedia([video("mute.mp4", { audioCodec: null })], rules("bluesky"))._tag).toBe("Planned")
    expect(steps(planMedia([video("mute.webm", { audioCodec: null, container: "webm", videoCodec: "vp9" })], rules("x")))[0]).not.toContain("sound")
  })

  it("two channels with the same rules get the same target (one rendition)", () => {
    const file = image("IMG.heic", { format: "heif", width: 4032, height: 3024 })
    const keyFor = (network: string) => {
      const plan = planMedia([file], rules(network))
      return plan._tag === "Planned" && plan.files[0]!._tag === "Prepare" ? targetKey(plan.files[0]!.target) : null
    }
    expect(keyFor("instagram")).toBe(keyFor("instagram-standalone"))
    expect(keyFor("instagram")).not.toBe(keyFor("bluesky"))
  })

  it("the video's bitrate comes from the size limit when that is tighter", () => {
    const plan = planMedia([video("long.mp4", { durationSeconds: 170, videoCodec: "hevc" })], rules("bluesky"))
    const target = plan._tag === "Planned" && plan.files[0]!._tag === "Prepare" ? plan.files[0]!.target : null
    expect(target?.kind).toBe("video")
    // 100 MB over 170 s is about 4235 kbps in all; 90% of it less the sound
    if (target?.kind === "video") expect(target.maxVideoBitrateKbps).toBe(4100)
  })

  it("describes the plan in words", () => {
    expect(describePlan(planMedia([video("ok.mp4")], rules("x")))).toEqual(["ok.mp4: sent as it is."])
  })
})

describe("network media rules as data", () => {
  it("every network with an adapter, and the visual networks, have media rules", () => {
    for (const id of [
      "test",
      "mastodon",
      "bluesky",
      "x",
      "linkedin",
      "telegram",
      "discord",
      "instagram",
      "facebook",
      "threads",
      "tiktok",
      "youtube",
      "pinterest",
      "reddit",
      "slack",
      "twitch",
      "kick",
      "dribbble"
    ]) {
      expect(networkMediaRules[id], id).toBeDefined()
    }
  })

  it("the test network borrows another network's rules with its media_rules setting", () => {
    expect(rules("test").networkName).toBe("Test network")
    expect(rules("test", { media_rules: "bluesky" }).networkName).toBe("Bluesky")
    expect(rules("test", { media_rules: "nope" }).networkName).toBe("Test network")
    const test = networks.find((n) => n.identifier === "test")
    expect(test?.settings.find((s) => s.key === "media_rules")?.options).toContain("instagram")
  })

  it.each([
    [1200, "20:00"],
    [180, "3:00"],
    [3725, "1:02:05"],
    [2, "0:02"],
    [0.5, "0:00.5"]
  ])("%s seconds read %s", (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text)
  })
})
