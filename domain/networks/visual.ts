import type { Network } from "./network.js"

/** Networks built around a photo or a video: a post without one is refused. */

const postType = {
  key: "post_type",
  label: "Post type",
  type: "select",
  options: ["post", "story"],
  help: "A feed post or a story; a story takes 1 photo or video.",
  required: true
} as const

export const instagram: Network = {
  identifier: "instagram",
  name: "Instagram (Facebook Business)",
  maxLength: 2200,
  counting: "characters",
  needs: "media",
  maxMedia: 10,
  comments: true,
  connect: "link",
  serverKeys: ["INSTAGRAM_CLIENT_ID", "INSTAGRAM_CLIENT_SECRET"],
  settings: [postType],
  tools: [],
  rules:
    "Posts to an Instagram business account picked when connecting. Up to 2200 characters. " +
    "Needs at least 1 photo or video; up to 10 make a carousel. Follow-up comments work."
}

export const instagramStandalone: Network = {
  identifier: "instagram-standalone",
  name: "Instagram (Standalone)",
  maxLength: 2200,
  counting: "characters",
  needs: "media",
  maxMedia: 10,
  comments: true,
  connect: "link",
  serverKeys: ["INSTAGRAM_STANDALONE_CLIENT_ID", "INSTAGRAM_STANDALONE_CLIENT_SECRET"],
  settings: [],
  tools: [],
  rules: "Up to 2200 characters. Needs at least 1 photo or video; up to 10 make a carousel. Follow-up comments work."
}

export const youtube: Network = {
  identifier: "youtube",
  name: "YouTube",
  maxLength: 5000,
  counting: "characters",
  needs: "video",
  maxMedia: 1,
  comments: false,
  connect: "link",
  serverKeys: ["YOUTUBE_CLIENT_ID", "YOUTUBE_CLIENT_SECRET"],
  settings: [
    {
      key: "title",
      label: "Title",
      type: "text",
      options: [],
      help: "The video's title (up to 100 characters).",
      required: true
    },
    {
      key: "type",
      label: "Visibility",
      type: "select",
      options: ["public", "private", "unlisted"],
      help: "Who can watch the video.",
      required: true
    },
    { key: "tags", label: "Tags", type: "list", options: [], help: "Words that help people find the video (a list of text)." },
    {
      key: "made_for_kids",
      label: "Made for kids",
      type: "toggle",
      options: [],
      help: "Whether the video is made for children (YouTube's COPPA setting)."
    },
    { key: "thumbnail", label: "Thumbnail", type: "text", options: [], help: "Address of a JPEG or PNG image shown before the video plays." }
  ],
  tools: [],
  rules:
    "Posts to the channel of the Google account signed in with. The text is the description, up to 5000 characters. " +
    "Needs exactly 1 video; a vertical video up to 3 minutes is a Short. Follow-up comments are not supported."
}

const tiktokToggle = (key: string, label: string, help: string) => ({ key, label, type: "toggle", options: [], help, required: true }) as const

const tiktokSettings = [
  {
    key: "privacy_level",
    label: "Who can view",
    type: "select",
    options: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"],
    help: "Who can view the post; the account's own privacy settings may narrow the choice.",
    required: true
  },
  tiktokToggle("duet", "Allow duets", "Whether others may duet the video."),
  tiktokToggle("stitch", "Allow stitches", "Whether others may stitch the video."),
  tiktokToggle("comment", "Allow comments", "Whether viewers may comment.")
] as const

export const tiktok: Network = {
  identifier: "tiktok",
  name: "TikTok",
  maxLength: 2000,
  counting: "characters",
  needs: "media",
  maxMedia: 35,
  comments: false,
  connect: "link",
  serverKeys: ["TIKTOK_CLIENT_ID", "TIKTOK_CLIENT_SECRET"],
  settings: tiktokSettings,
  tools: [],
  rules:
    "Up to 2000 characters. Needs 1 video (no longer than the creator may post), or 1 to 35 photos (a photo post). " +
    "Until TikTok audits this server's app, every post is private (SELF_ONLY). Follow-up comments are not supported."
}

export const tiktokBusiness: Network = {
  identifier: "tiktok-business",
  name: "TikTok Business",
  maxLength: 2200,
  counting: "characters",
  needs: "media",
  maxMedia: 35,
  // the API for Business comments on the account's own posts (/business/comment/create/)
  comments: true,
  connect: "link",
  serverKeys: ["TIKTOK_BUSINESS_CLIENT_ID", "TIKTOK_BUSINESS_CLIENT_SECRET"],
  // TikTok's switches; a business account's posts are public (no privacy level to choose)
  settings: tiktokSettings.slice(1).map(({ required: _, ...toggle }) => toggle),
  tools: [],
  rules:
    "Up to 2200 characters. Needs 1 video, or 1 to 35 photos (a photo post), which TikTok fetches from this server's public address. " +
    "Follow-up comments work (comments on the post, up to 150 characters each, once TikTok has made the post public)."
}

export const pinterest: Network = {
  identifier: "pinterest",
  name: "Pinterest",
  maxLength: 500,
  counting: "characters",
  needs: "media",
  maxMedia: 5,
  comments: false,
  connect: "link",
  serverKeys: ["PINTEREST_CLIENT_ID", "PINTEREST_CLIENT_SECRET"],
  settings: [
    {
      key: "board",
      label: "Board",
      type: "text",
      options: [],
      help: "Id of the board to pin to; list the boards with the boards tool. Left out: the channel's default board.",
      required: true
    },
    { key: "title", label: "Title", type: "text", options: [], help: "The pin's title, up to 100 characters (optional)." },
    { key: "link", label: "Link", type: "text", options: [], help: "Where the pin leads when opened (optional)." }
  ],
  tools: [
    {
      methodName: "boards",
      description: "List the account's boards (id and name).",
      dataSchema: []
    }
  ],
  rules:
    "Up to 500 characters of description. Needs 1 photo or video, or 2 to 5 photos (a carousel), pinned to a board " +
    "(the channel's default board unless the post names one). Follow-up comments are not supported."
}

export const dribbble: Network = {
  identifier: "dribbble",
  name: "Dribbble",
  maxLength: 40000,
  counting: "characters",
  needs: "media",
  maxMedia: 1,
  comments: false,
  connect: "link",
  serverKeys: ["DRIBBBLE_CLIENT_ID", "DRIBBBLE_CLIENT_SECRET"],
  settings: [],
  tools: [],
  rules: "Up to 40000 characters of description. Needs exactly 1 image (the shot). Follow-up comments are not supported."
}
