import type { Network } from "./network.js"

/** Feed networks: text first, media optional. */

export const x: Network = {
  identifier: "x",
  name: "X",
  maxLength: 280,
  counting: "x-weighted",
  needs: null,
  maxMedia: 4,
  comments: true,
  connect: "link",
  serverKeys: ["X_CLIENT_ID", "X_CLIENT_SECRET"],
  settings: [
    {
      key: "who_can_reply_post",
      label: "Who can reply",
      type: "select",
      options: ["everyone", "following", "mentionedUsers", "subscribers", "verified"],
      help: "Who may reply to the post.",
      required: true
    },
    {
      key: "community",
      label: "Community",
      type: "text",
      options: [],
      help: "Id or address of an X Community to post in; leave empty to post on the timeline."
    }
  ],
  tools: [{ methodName: "whoami", description: "Who this channel posts as: id, username and name.", dataSchema: [] }],
  rules:
    "Up to 280 characters, counted the way X counts them: every link counts 23, CJK characters and emoji count 2. " +
    "Up to 4 photos or videos per post. Follow-up comments work."
}

export const linkedin: Network = {
  identifier: "linkedin",
  name: "LinkedIn",
  maxLength: 3000,
  counting: "characters",
  needs: null,
  maxMedia: 9,
  comments: true,
  connect: "link",
  serverKeys: ["LINKEDIN_CLIENT_ID", "LINKEDIN_CLIENT_SECRET"],
  settings: [],
  tools: [],
  rules: "Up to 3000 characters. Up to 9 photos, or 1 video or document. Follow-up comments work."
}

export const linkedinPage: Network = {
  ...linkedin,
  identifier: "linkedin-page",
  name: "LinkedIn Page",
  serverKeys: ["LINKEDIN_PAGE_CLIENT_ID", "LINKEDIN_PAGE_CLIENT_SECRET"],
  rules:
    "Posts as a LinkedIn Page picked when connecting. Up to 3000 characters. " + "Up to 9 photos, or 1 video or document. Follow-up comments work."
}

export const reddit: Network = {
  identifier: "reddit",
  name: "Reddit",
  maxLength: 10000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: true,
  connect: "link",
  serverKeys: ["REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"],
  settings: [
    {
      key: "subreddit",
      label: "Subreddits",
      type: "list",
      options: [],
      help:
        "One entry per subreddit to post in: {subreddit, title, type, url, flair_id}, where type is self (text), link (url) or media; " +
        "flair_id where the subreddit asks for a flair. Find subreddits with the subreddits tool.",
      required: true
    }
  ],
  tools: [
    {
      methodName: "subreddits",
      description: "Search subreddits by name; answers their names and titles.",
      dataSchema: [{ key: "word", type: "string", description: "Word to search subreddit names for" }]
    }
  ],
  rules:
    "Up to 10000 characters of body text, posted to each subreddit listed with its own title (and flair where the subreddit asks for one). " +
    "Up to 1 photo or 1 video (a media post has no body text; a video goes with the cover frame made when it is prepared as its poster, " +
    "so it must be an upload of the media library). Follow-up comments work."
}

export const facebook: Network = {
  identifier: "facebook",
  name: "Facebook Page",
  maxLength: 63206,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: true,
  connect: "link",
  serverKeys: ["FACEBOOK_CLIENT_ID", "FACEBOOK_CLIENT_SECRET"],
  settings: [
    {
      key: "post_type",
      label: "Post type",
      type: "select",
      options: ["post", "story"],
      help: "A feed post (default) or a story; a story needs 1 photo or video."
    }
  ],
  tools: [],
  rules: "Posts as a Facebook Page picked when connecting. Up to 63206 characters. " + "Up to 10 photos, or 1 video. Follow-up comments work."
}

export const threads: Network = {
  identifier: "threads",
  name: "Threads",
  maxLength: 500,
  counting: "characters",
  needs: null,
  maxMedia: 20,
  comments: true,
  connect: "link",
  serverKeys: ["THREADS_CLIENT_ID", "THREADS_CLIENT_SECRET"],
  settings: [],
  tools: [],
  rules: "Up to 500 characters. Text alone, or up to 20 photos or videos (a carousel). Follow-up comments work (replies in the thread)."
}

export const gmb: Network = {
  identifier: "gmb",
  name: "Google My Business",
  maxLength: 1500,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: false,
  connect: "link",
  serverKeys: ["GMB_CLIENT_ID", "GMB_CLIENT_SECRET"],
  settings: [
    {
      key: "topicType",
      label: "Post type",
      type: "select",
      options: ["standard", "event", "offer"],
      help: "A standard update (default), an event or an offer; events and offers need eventTitle, eventStart and eventEnd."
    },
    {
      key: "callToAction",
      label: "Call to action",
      type: "select",
      options: ["none", "book", "order", "shop", "learn_more", "sign_up", "call"],
      help: "A button on the post; every one but call needs callToActionUrl."
    },
    { key: "callToActionUrl", label: "Call to action address", type: "text", options: [], help: "Where the button leads." },
    { key: "eventTitle", label: "Event title", type: "text", options: [], help: "The event's or offer's title." },
    { key: "eventStart", label: "Event start", type: "date", options: [], help: "When the event or offer starts (ISO 8601)." },
    { key: "eventEnd", label: "Event end", type: "date", options: [], help: "When the event or offer ends (ISO 8601)." },
    { key: "offerCouponCode", label: "Coupon code", type: "text", options: [], help: "An offer's coupon code." },
    { key: "offerRedeemUrl", label: "Redeem address", type: "text", options: [], help: "Where an offer is redeemed online." },
    { key: "offerTerms", label: "Terms", type: "text", options: [], help: "An offer's terms and conditions." }
  ],
  tools: [],
  rules:
    "Posts to a business location picked when connecting: a standard update, an event or an offer, with an optional call to action. " +
    "Up to 1500 characters. Up to 1 photo or video. Follow-up comments are not supported."
}

export const vk: Network = {
  identifier: "vk",
  name: "VK",
  maxLength: 2048,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: true,
  connect: "link",
  serverKeys: ["VK_CLIENT_ID"],
  settings: [],
  tools: [],
  rules: "Up to 2048 characters. Up to 10 photos (videos are not taken). Follow-up comments work."
}

export const tumblr: Network = {
  identifier: "tumblr",
  name: "Tumblr",
  maxLength: 32768,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: false,
  connect: "link",
  serverKeys: ["TUMBLR_CLIENT_ID", "TUMBLR_CLIENT_SECRET"],
  settings: [
    {
      key: "blog",
      label: "Blog",
      type: "text",
      options: [],
      help: "Name of the blog to post to; list them with the blogs tool. Left out: the blog picked when connecting."
    },
    { key: "tags", label: "Tags", type: "text", options: [], help: "Tags, comma-separated (optional)." }
  ],
  tools: [{ methodName: "blogs", description: "List the blogs the account can post to (name and title).", dataSchema: [] }],
  rules:
    "Posts to a blog picked when connecting (or the blog setting). Up to 32768 characters. " +
    "Up to 10 files: photos and at most 1 video. Follow-up comments are not supported."
}

export const mewe: Network = {
  identifier: "mewe",
  name: "MeWe",
  maxLength: 63206,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: false,
  connect: "link",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "Up to 63206 characters. Up to 10 photos or videos. Follow-up comments are not supported.",
  // MeWe documents no API for posting: its developer access is given to partners only
  noPublicApi:
    "MeWe offers no public API for posting (its developer access is given to MeWe's partners only), so no channel can be connected to MeWe and nothing can be published there."
}
