/**
 * What each network takes as media, as data: formats, sizes, dimensions, shapes,
 * durations, codecs, frame rates, counts per post and same-shape rules. The figures are
 * the networks' own documented limits; each cites the page it comes from. Where a page
 * gives no figure, the comment says what this service assumes instead.
 *
 * Dimensions are orientation-free (longest side, shortest side), as the networks state
 * them for landscape and portrait alike; a file's rendition target orients them to the
 * file (domain/media/mediaPlan.ts). Aspect ratios are width / height as shown.
 */

const KB = 1024
const MB = 1024 * KB
const GB = 1024 * MB

/** Formats a network takes as they are (the probe's names: jpeg, png, gif, webp). */
export type ImageFormatName = "jpeg" | "png" | "gif" | "webp"

/** width / height as shown, both ends included; `label` is how the network writes it. */
export interface AspectRange {
  readonly min: number
  readonly max: number
  readonly label: string
}

export interface ImageRules {
  readonly formats: ReadonlyArray<ImageFormatName>
  readonly maxBytes: number
  readonly maxLongSide: number
  readonly maxShortSide: number
  /** null: any shape. */
  readonly aspect: AspectRange | null
  /** An animated GIF plays (kept as it is when within the limits); otherwise only its first frame is sent. */
  readonly animatedGif: boolean
  /**
   * The only sizes taken, width × height (Dribbble's shots): an image is scaled down to the
   * largest that fits inside it, and refused when it is smaller than all or not their shape.
   */
  readonly exactSizes?: ReadonlyArray<readonly [number, number]>
}

export interface VideoRules {
  /** Containers, video and audio codecs taken as they are (the probe's names); anything else is transcoded to H.264/AAC MP4. */
  readonly containers: ReadonlyArray<string>
  readonly videoCodecs: ReadonlyArray<string>
  readonly audioCodecs: ReadonlyArray<string>
  readonly maxBytes: number
  readonly minSeconds: number
  readonly maxSeconds: number
  readonly maxLongSide: number
  readonly maxShortSide: number
  readonly maxFrameRate: number
  readonly maxBitrateKbps: number
  readonly aspect: AspectRange | null
  /** The network takes a cover image (thumbnail) with the video. */
  readonly cover: boolean
}

export interface MediaRules {
  /** Whose rules these are, for messages ("Bluesky takes at most 3:00"). */
  readonly networkName: string
  /** null: the network takes no photos. */
  readonly images: ImageRules | null
  /** null: the network takes no videos. */
  readonly videos: VideoRules | null
  readonly maxImages: number
  readonly maxVideos: number
  /** Photos and videos in the same post. */
  readonly mixed: boolean
  /** Every photo of a post must have the same shape (carousels that refuse mixed sizes). */
  readonly sameAspect: boolean
}

const h264Mp4 = { containers: ["mp4", "mov"], videoCodecs: ["h264"], audioCodecs: ["aac"] } as const

/** The built-in test network: generous, so a post with usual files passes; `media_rules` borrows another network's. */
const test: MediaRules = {
  networkName: "Test network",
  // this service's own choice: the test network publishes nowhere
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 10 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  videos: {
    ...h264Mp4,
    maxBytes: 1 * GB,
    minSeconds: 0,
    maxSeconds: 3600,
    maxLongSide: 4096,
    maxShortSide: 4096,
    maxFrameRate: 60,
    maxBitrateKbps: 50_000,
    aspect: null,
    cover: false
  },
  maxImages: 4,
  maxVideos: 4,
  mixed: true,
  sameAspect: false
}

const mastodon: MediaRules = {
  networkName: "Mastodon",
  // https://docs.joinmastodon.org/user/posting/#media : images up to 16 MB, resized to at most
  // 8,294,400 pixels (3840×2160); videos up to 99 MB, at most 120 fps, 8,294,400 pixels.
  // Instances may set other limits; these are the defaults of Mastodon 4.
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 16 * MB, maxLongSide: 3840, maxShortSide: 2160, aspect: null, animatedGif: true },
  videos: {
    containers: ["mp4", "mov", "webm"],
    videoCodecs: ["h264", "vp8", "vp9"],
    audioCodecs: ["aac", "opus", "vorbis", "mp3"],
    maxBytes: 99 * MB,
    minSeconds: 0,
    // no documented duration limit; the size limit bounds it
    maxSeconds: 24 * 3600,
    maxLongSide: 3840,
    maxShortSide: 2160,
    maxFrameRate: 120,
    // no documented bitrate limit: 99 MB bounds it
    maxBitrateKbps: 50_000,
    aspect: null,
    cover: false
  },
  // https://docs.joinmastodon.org/methods/statuses/#create : media_ids "up to 4"; a video or audio goes alone
  maxImages: 4,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const bluesky: MediaRules = {
  networkName: "Bluesky",
  // https://github.com/bluesky-social/atproto/blob/main/lexicons/app/bsky/embed/images.json :
  // image blob maxSize 1000000 bytes, accept image/*, maxLength 4 images. The app shows at
  // most 2000×2000 (https://docs.bsky.app/docs/advanced-guides/posts#images-embeds).
  images: { formats: ["jpeg", "png", "webp"], maxBytes: 1_000_000, maxLongSide: 2000, maxShortSide: 2000, aspect: null, animatedGif: false },
  // https://docs.bsky.app/docs/tutorials/video : MP4, at most 100 MB and 3 minutes
  // (app.bsky.embed.video: blob maxSize 100000000, accept video/mp4)
  videos: {
    ...h264Mp4,
    containers: ["mp4"],
    maxBytes: 100_000_000,
    minSeconds: 0,
    maxSeconds: 180,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 20_000,
    aspect: null,
    cover: false
  },
  maxImages: 4,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const x: MediaRules = {
  networkName: "X",
  // https://docs.x.com/x-api/media/quickstart/best-practices : images 5 MB (JPG, PNG, GIF, WEBP),
  // GIF 15 MB; at most 8192×8192. "up to 4 photos, 1 animated GIF or 1 video in a Post".
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 5 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  // same page, Video: MP4/MOV, H.264 High Profile, AAC LC, 0.5 to 140 seconds, 512 MB
  // (amplify_video), at most 1920×1200 (and 1200×1900), at most 60 fps, aspect ratio 1:3 to 3:1,
  // at most 25 Mbps
  videos: {
    ...h264Mp4,
    maxBytes: 512 * MB,
    minSeconds: 0.5,
    maxSeconds: 140,
    maxLongSide: 1920,
    maxShortSide: 1200,
    maxFrameRate: 60,
    maxBitrateKbps: 25_000,
    aspect: { min: 1 / 3, max: 3, label: "1:3 to 3:1" },
    cover: false
  },
  maxImages: 4,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const linkedin: MediaRules = {
  networkName: "LinkedIn",
  // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/images-api :
  // JPG, GIF, PNG; fewer than 36,152,320 pixels (6012×6012). No byte limit is documented: 10 MB is ours.
  images: { formats: ["jpeg", "png", "gif"], maxBytes: 10 * MB, maxLongSide: 6012, maxShortSide: 6012, aspect: null, animatedGif: true },
  // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/videos-api :
  // MP4, 3 seconds to 30 minutes, 75 KB to 500 MB, 256×144 to 4096×2304, 10 to 60 fps,
  // aspect ratio 1:2.4 to 2.4:1; a thumbnail may be uploaded
  videos: {
    ...h264Mp4,
    containers: ["mp4"],
    maxBytes: 500 * MB,
    minSeconds: 3,
    maxSeconds: 30 * 60,
    maxLongSide: 4096,
    maxShortSide: 2304,
    maxFrameRate: 60,
    maxBitrateKbps: 30_000,
    aspect: { min: 1 / 2.4, max: 2.4, label: "1:2.4 to 2.4:1" },
    cover: true
  },
  // https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/multiimage-post-api :
  // 2 to 20 images; a video post has one video and no images
  maxImages: 20,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const telegram: MediaRules = {
  networkName: "Telegram",
  // https://core.telegram.org/bots/api#sendphoto : at most 10 MB, width + height at most
  // 10000, width/height ratio at most 20 (taken here as both sides at most 5000)
  images: {
    formats: ["jpeg", "png", "webp"],
    maxBytes: 10 * MB,
    maxLongSide: 5000,
    maxShortSide: 5000,
    aspect: { min: 1 / 20, max: 20, label: "1:20 to 20:1" },
    animatedGif: false
  },
  // https://core.telegram.org/bots/api#sending-files : files a bot uploads are at most 50 MB;
  // sendVideo: "Telegram clients support MPEG4 videos"
  videos: {
    ...h264Mp4,
    containers: ["mp4"],
    maxBytes: 50 * MB,
    minSeconds: 0,
    maxSeconds: 24 * 3600,
    maxLongSide: 1920,
    maxShortSide: 1920,
    maxFrameRate: 60,
    maxBitrateKbps: 20_000,
    aspect: null,
    cover: true
  },
  // https://core.telegram.org/bots/api#sendmediagroup : 2 to 10 photos and videos together
  maxImages: 10,
  maxVideos: 10,
  mixed: true,
  sameAspect: false
}

const discord: MediaRules = {
  networkName: "Discord",
  // https://discord.com/developers/docs/reference#uploading-files : files of a message up to
  // the upload limit (10 MiB for a server without boosts), at most 10 per message
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 10 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  videos: {
    containers: ["mp4", "mov", "webm"],
    videoCodecs: ["h264", "vp8", "vp9"],
    audioCodecs: ["aac", "opus", "vorbis", "mp3"],
    maxBytes: 10 * MB,
    minSeconds: 0,
    maxSeconds: 24 * 3600,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 10_000,
    aspect: null,
    cover: false
  },
  maxImages: 10,
  maxVideos: 10,
  mixed: true,
  sameAspect: false
}

const instagram: MediaRules = {
  networkName: "Instagram",
  // https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/media#image-specifications :
  // JPEG only, at most 8 MB, aspect ratio 4:5 to 1.91:1, width 320 to 1440 (scaled by Instagram)
  images: {
    formats: ["jpeg"],
    maxBytes: 8 * MB,
    maxLongSide: 1440,
    maxShortSide: 1440,
    aspect: { min: 4 / 5, max: 1.91, label: "4:5 to 1.91:1" },
    animatedGif: false
  },
  // same page, Reels specifications: MOV or MP4, moov atom at the front, HEVC or H.264, AAC,
  // 3 seconds to 15 minutes, at most 300 MB, at most 1920 px wide, 23 to 60 fps, aspect ratio
  // 0.01:1 to 10:1 (9:16 recommended), video bitrate at most 25 Mbps; cover_url takes a cover
  videos: {
    containers: ["mp4", "mov"],
    videoCodecs: ["h264", "hevc"],
    audioCodecs: ["aac"],
    maxBytes: 300 * MB,
    minSeconds: 3,
    maxSeconds: 15 * 60,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 25_000,
    aspect: { min: 0.01, max: 10, label: "0.01:1 to 10:1" },
    cover: true
  },
  // same page, carousels: up to 10 photos and videos
  maxImages: 10,
  maxVideos: 10,
  mixed: true,
  sameAspect: false
}

const facebook: MediaRules = {
  networkName: "Facebook",
  // https://developers.facebook.com/docs/graph-api/reference/page/photos/ : JPEG, PNG, GIF
  // (also BMP, TIFF), smaller than 4 MB (PNG under 1 MB recommended)
  images: { formats: ["jpeg", "png", "gif"], maxBytes: 4 * MB, maxLongSide: 4096, maxShortSide: 4096, aspect: null, animatedGif: true },
  // https://developers.facebook.com/docs/video-api/guides/publishing : up to 10 GB and 4 hours;
  // https://www.facebook.com/help/218673814818907 recommends H.264, AAC, MP4 or MOV, at most 30 fps ("up to 60")
  videos: {
    ...h264Mp4,
    maxBytes: 10 * GB,
    minSeconds: 1,
    maxSeconds: 240 * 60,
    maxLongSide: 3840,
    maxShortSide: 2160,
    maxFrameRate: 60,
    maxBitrateKbps: 50_000,
    aspect: { min: 9 / 16, max: 16 / 9, label: "9:16 to 16:9" },
    cover: true
  },
  // a post has photos (attached_media) or one video
  maxImages: 10,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const threads: MediaRules = {
  networkName: "Threads",
  // https://developers.facebook.com/docs/threads/overview#image-specifications : JPEG or PNG,
  // at most 8 MB, width 320 to 1440 (scaled), aspect ratio at most 10:1
  images: {
    formats: ["jpeg", "png"],
    maxBytes: 8 * MB,
    maxLongSide: 1440,
    maxShortSide: 1440,
    aspect: { min: 1 / 10, max: 10, label: "1:10 to 10:1" },
    animatedGif: false
  },
  // same page, video specifications: MOV or MP4, HEVC or H.264, AAC, at most 5 minutes and
  // 1 GB, 23 to 60 fps, at most 1920 px wide, aspect ratio 0.01:1 to 10:1, at most 100 Mbps
  videos: {
    containers: ["mp4", "mov"],
    videoCodecs: ["h264", "hevc"],
    audioCodecs: ["aac"],
    maxBytes: 1 * GB,
    minSeconds: 0,
    maxSeconds: 5 * 60,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 100_000,
    aspect: { min: 0.01, max: 10, label: "0.01:1 to 10:1" },
    cover: false
  },
  // https://developers.facebook.com/docs/threads/posts#carousel-posts : 2 to 20 photos and videos
  maxImages: 20,
  maxVideos: 20,
  mixed: true,
  sameAspect: false
}

const tiktok: MediaRules = {
  networkName: "TikTok",
  // https://developers.tiktok.com/doc/content-posting-api-media-transfer-guide#image-restrictions :
  // JPEG or WEBP, at most 20 MB, at most 1080p (1920×1080)
  images: { formats: ["jpeg", "webp"], maxBytes: 20 * MB, maxLongSide: 1920, maxShortSide: 1080, aspect: null, animatedGif: false },
  // same page, video restrictions: MP4 (recommended), WEBM, MOV; H.264 (recommended), H.265,
  // VP8, VP9; at most 4 GB and 10 minutes; 360 to 4096 px; 23 to 60 fps
  videos: {
    containers: ["mp4", "mov", "webm"],
    videoCodecs: ["h264", "hevc", "vp8", "vp9"],
    audioCodecs: ["aac", "opus", "vorbis", "mp3"],
    maxBytes: 4 * GB,
    minSeconds: 3,
    maxSeconds: 10 * 60,
    maxLongSide: 4096,
    maxShortSide: 4096,
    maxFrameRate: 60,
    maxBitrateKbps: 50_000,
    aspect: null,
    cover: false
  },
  // https://developers.tiktok.com/doc/content-posting-api-reference-photo-post : up to 35 photos; a video post has one video
  maxImages: 35,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const youtube: MediaRules = {
  networkName: "YouTube",
  images: null,
  // https://developers.google.com/youtube/v3/docs/videos/insert : video/* up to 256 GB;
  // https://support.google.com/youtube/answer/71673 : at most 12 hours;
  // https://support.google.com/youtube/answer/1722171 : MP4, H.264, AAC-LC, up to 60 fps recommended
  videos: {
    containers: ["mp4", "mov", "webm"],
    videoCodecs: ["h264", "hevc", "vp9", "av1"],
    audioCodecs: ["aac", "opus"],
    maxBytes: 256 * GB,
    minSeconds: 1,
    maxSeconds: 12 * 3600,
    maxLongSide: 7680,
    maxShortSide: 4320,
    maxFrameRate: 60,
    maxBitrateKbps: 200_000,
    aspect: null,
    cover: true
  },
  maxImages: 0,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const pinterest: MediaRules = {
  networkName: "Pinterest",
  // https://help.pinterest.com/en/business/article/pinterest-product-specs : BMP, JPEG, PNG,
  // TIFF, GIF, WEBP, at most 20 MB; carousels of 2 to 5 images that all have the same aspect ratio
  images: { formats: ["jpeg", "png"], maxBytes: 20 * MB, maxLongSide: 4096, maxShortSide: 4096, aspect: null, animatedGif: false },
  // same page, video pins: MP4, MOV or M4V, H.264 or H.265, at most 2 GB, 4 seconds to
  // 15 minutes, aspect ratio 1:2 to 1.91:1; a cover image is taken
  videos: {
    containers: ["mp4", "mov"],
    videoCodecs: ["h264", "hevc"],
    audioCodecs: ["aac"],
    maxBytes: 2 * GB,
    minSeconds: 4,
    maxSeconds: 15 * 60,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 50_000,
    aspect: { min: 1 / 2, max: 1.91, label: "1:2 to 1.91:1" },
    cover: true
  },
  maxImages: 5,
  maxVideos: 1,
  mixed: false,
  sameAspect: true
}

const reddit: MediaRules = {
  networkName: "Reddit",
  // Reddit Help (support.reddithelp.com, image posts): JPG, PNG and GIF up to 20 MB. The API
  // reference (reddit.com/dev/api) gives no figures; the 8192×8192 limit is ours.
  images: { formats: ["jpeg", "png", "gif"], maxBytes: 20 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  // Reddit Help (video posts): MP4 or MOV, at most 1 GB and 15 minutes; Reddit transcodes to at
  // most 1080p (so larger videos are scaled here). The API's video submit takes a poster image
  // (video_poster_url): the cover frame preparation makes.
  videos: {
    ...h264Mp4,
    maxBytes: 1 * GB,
    minSeconds: 0,
    maxSeconds: 15 * 60,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 50_000,
    aspect: null,
    cover: true
  },
  maxImages: 1,
  maxVideos: 1,
  mixed: false,
  sameAspect: false
}

const slack: MediaRules = {
  networkName: "Slack",
  // https://docs.slack.dev/reference/methods/files.getUploadURLExternal : any file up to 1 GB,
  // shown inline when Slack can preview it. Slack documents no dimension, frame-rate or bitrate
  // limits: the 8192-pixel images and 4K videos are ours.
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 1 * GB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  videos: {
    containers: ["mp4", "mov", "webm"],
    videoCodecs: ["h264", "hevc", "vp8", "vp9"],
    audioCodecs: ["aac", "opus", "vorbis", "mp3"],
    maxBytes: 1 * GB,
    minSeconds: 0,
    maxSeconds: 24 * 3600,
    maxLongSide: 3840,
    maxShortSide: 2160,
    maxFrameRate: 60,
    maxBitrateKbps: 100_000,
    aspect: null,
    cover: false
  },
  // the catalog's 10 files per message, shared together by one files.completeUploadExternal
  maxImages: 10,
  maxVideos: 10,
  mixed: true,
  sameAspect: false
}

/** Twitch and Kick chat: text only (dev.twitch.tv send-chat-message, docs.kick.com chat: a `message`/`content` string). */
const chatTextOnly = (networkName: string): MediaRules => ({
  networkName,
  images: null,
  videos: null,
  maxImages: 0,
  maxVideos: 0,
  mixed: false,
  sameAspect: false
})

const vk: MediaRules = {
  networkName: "VK",
  // dev.vk.com/en/api/upload/wall-photo: JPG, PNG, GIF; at most 50 MB; width + height at most
  // 14,000 pixels; an aspect ratio of at least 1:20. The sum is kept as 10,000 × 4,000 here.
  images: {
    formats: ["jpeg", "png", "gif"],
    maxBytes: 50 * MB,
    maxLongSide: 10_000,
    maxShortSide: 4000,
    aspect: { min: 1 / 20, max: 20, label: "1:20 to 20:1" },
    animatedGif: true
  },
  // videos go through video.save, which this service does not use: photos only
  videos: null,
  // dev.vk.com/en/method/wall.post: "no more than 10 media to the post"
  maxImages: 10,
  maxVideos: 0,
  mixed: false,
  sameAspect: false
}

const warpcast: MediaRules = {
  networkName: "Farcaster",
  // casts embed files by address (docs.neynar.com/reference/publish-cast: embeds, at most 2);
  // the clients fetch them. No size is documented: 10 MB images and 100 MB MP4 videos are ours.
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 10 * MB, maxLongSide: 4096, maxShortSide: 4096, aspect: null, animatedGif: true },
  videos: {
    ...h264Mp4,
    maxBytes: 100 * MB,
    minSeconds: 0,
    maxSeconds: 10 * 60,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 20_000,
    aspect: null,
    cover: false
  },
  maxImages: 2,
  maxVideos: 2,
  mixed: true,
  sameAspect: false
}

const tumblr: MediaRules = {
  networkName: "Tumblr",
  // Tumblr's NPF specification (npf-spec.md in the tumblr docs repository: image and video blocks, post content
  // limits): media are uploaded with the post; one native video per post. The API's rate limits
  // (api.md) cap uploads per day (250 images, 20 videos, 60 minutes of video); the docs give no
  // size per file: 20 MB per image and 500 MB per video are ours.
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 20 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  videos: {
    ...h264Mp4,
    maxBytes: 500 * MB,
    minSeconds: 0,
    maxSeconds: 60 * 60,
    maxLongSide: 1920,
    maxShortSide: 1080,
    maxFrameRate: 60,
    maxBitrateKbps: 50_000,
    aspect: null,
    cover: false
  },
  maxImages: 10,
  maxVideos: 1,
  mixed: true,
  sameAspect: false
}

const wordpress: MediaRules = {
  networkName: "WordPress",
  // developer.wordpress.org/rest-api/reference/posts (featured_media): the featured image of a
  // post; its size limit is the site's own (upload_max_filesize): 10 MB is ours. No video.
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 10 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  videos: null,
  maxImages: 1,
  maxVideos: 0,
  mixed: false,
  sameAspect: false
}

const medium: MediaRules = {
  networkName: "Medium",
  // https://github.com/Medium/medium-api-docs (3.4 Images): JPEG, PNG, GIF (animated too) and
  // TIFF, one per request; no size is documented: 25 MB is ours. Articles take no video upload.
  images: { formats: ["jpeg", "png", "gif"], maxBytes: 25 * MB, maxLongSide: 8192, maxShortSide: 8192, aspect: null, animatedGif: true },
  videos: null,
  maxImages: 1,
  maxVideos: 0,
  mixed: false,
  sameAspect: false
}

const dribbble: MediaRules = {
  networkName: "Dribbble",
  // https://developer.dribbble.com/v2/shots/ ("Create a shot"): one image, GIF, JPG or PNG,
  // exactly 400×300, 800×600 or 1600×1200, at most 8 MB; animated GIFs play
  images: {
    formats: ["jpeg", "png", "gif"],
    maxBytes: 8 * MB,
    maxLongSide: 1600,
    maxShortSide: 1200,
    aspect: { min: 4 / 3, max: 4 / 3, label: "4:3 (landscape)" },
    animatedGif: true,
    exactSizes: [
      [1600, 1200],
      [800, 600],
      [400, 300]
    ]
  },
  videos: null,
  maxImages: 1,
  maxVideos: 0,
  mixed: false,
  sameAspect: false
}

const lemmy: MediaRules = {
  networkName: "Lemmy",
  // Lemmy stores uploads in pict-rs (join-lemmy.org/docs/administration/configuration.html,
  // pictrs max_file_size default 20 MB; pict-rs' default max_width/max_height 10000); the
  // adapter posts one image (the post's url, or a markdown image in a comment). Videos are
  // an instance option, off by default: this service sends none.
  images: { formats: ["jpeg", "png", "gif", "webp"], maxBytes: 20 * MB, maxLongSide: 10_000, maxShortSide: 10_000, aspect: null, animatedGif: true },
  videos: null,
  maxImages: 1,
  maxVideos: 0,
  mixed: false,
  sameAspect: false
}

/** The media rules of every network that has an adapter, and of the visual networks coming next. */
export const networkMediaRules: Readonly<Record<string, MediaRules>> = {
  test,
  mastodon,
  bluesky,
  x,
  linkedin,
  "linkedin-page": linkedin,
  telegram,
  discord,
  instagram,
  "instagram-standalone": instagram,
  facebook,
  threads,
  tiktok,
  "tiktok-business": tiktok,
  youtube,
  pinterest,
  reddit,
  slack,
  twitch: chatTextOnly("Twitch"),
  kick: chatTextOnly("Kick"),
  vk,
  warpcast,
  tumblr,
  wordpress,
  medium,
  dribbble,
  lemmy
}

/**
 * The rules a channel's files are checked and prepared against: its network's, or none
 * (networks not listed here are checked only by count, as before). The test network
 * rehearses another network's rules with its `media_rules` setting.
 */
export const mediaRulesOf = (network: string, settings: Readonly<Record<string, unknown>>): MediaRules | null => {
  if (network === "test") {
    const borrowed = settings["media_rules"]
    if (typeof borrowed === "string" && borrowed !== "test" && borrowed in networkMediaRules) return networkMediaRules[borrowed]!
  }
  const rules = networkMediaRules[network] ?? null
  // TikTok: the creator's own longest video (creator_info), kept as the channel's default setting when it connected
  const creatorMax = settings["creator_max_video_seconds"]
  if (network === "tiktok" && rules?.videos != null && typeof creatorMax === "number" && creatorMax > 0 && creatorMax < rules.videos.maxSeconds) {
    return { ...rules, videos: { ...rules.videos, maxSeconds: creatorMax } }
  }
  return rules
}

/** The networks whose rules the test network can borrow (its `media_rules` options). */
export const mediaRulesNetworks: ReadonlyArray<string> = Object.keys(networkMediaRules)
