import type { Network } from "./network.js"

/** Open and federated networks; most connect with a form (server, handle, key). */

export const mastodon: Network = {
  identifier: "mastodon",
  name: "Mastodon",
  maxLength: 500,
  counting: "characters",
  needs: null,
  maxMedia: 4,
  comments: true,
  connect: "link",
  // this server registers its app on each instance (POST /api/v1/apps): no keys needed
  serverKeys: [],
  settings: [],
  tools: [],
  rules:
    "Up to 500 characters (once connected, the server's own limit: GoToSocial 5000, Pleroma 5000 …). " +
    "Up to 4 photos, or 1 video (Pixelfed: a photo or video is required). Follow-up comments work (as replies)."
}

export const bluesky: Network = {
  identifier: "bluesky",
  name: "Bluesky",
  maxLength: 300,
  counting: "graphemes",
  needs: null,
  maxMedia: 4,
  comments: true,
  connect: "form",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "Up to 300 characters, counted as they look (an emoji counts 1). " + "Up to 4 images, or 1 video. Follow-up comments work (as replies)."
}

export const lemmy: Network = {
  identifier: "lemmy",
  name: "Lemmy",
  maxLength: 10000,
  counting: "characters",
  needs: null,
  maxMedia: 1,
  comments: true,
  connect: "form",
  serverKeys: [],
  settings: [
    {
      key: "subreddit",
      label: "Communities",
      type: "list",
      options: [],
      help:
        "One entry per community to post in: {subreddit, title, url}, where subreddit is the community id or name " +
        "(technology, or technology@lemmy.ml for one another instance federates). Find communities with the communities tool.",
      required: true
    }
  ],
  tools: [
    {
      methodName: "subreddits",
      description: "Search Lemmy communities by keyword; answers their ids and titles.",
      dataSchema: [{ key: "word", type: "string", description: "Keyword to search for" }]
    },
    {
      methodName: "communities",
      description: "List the instance's communities, or find one by name; answers their ids, names and titles.",
      dataSchema: [{ key: "name", type: "string", description: "A community's name (optional: all of them without it)" }]
    }
  ],
  rules: "Up to 10000 characters, posted to each community listed with its own title. " + "Up to 1 photo (no videos). Follow-up comments work."
}

export const warpcast: Network = {
  identifier: "warpcast",
  name: "Farcaster",
  maxLength: 800,
  counting: "characters",
  needs: null,
  maxMedia: 2,
  comments: true,
  connect: "form",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "Up to 800 characters. Up to 2 photos or videos. Follow-up comments work (as replies)."
}

export const nostr: Network = {
  identifier: "nostr",
  name: "Nostr",
  maxLength: 100000,
  counting: "characters",
  needs: null,
  maxMedia: 4,
  comments: true,
  connect: "form",
  serverKeys: [],
  settings: [],
  tools: [],
  rules: "Up to 100000 characters. Up to 4 photos or videos. Follow-up comments work (as replies)."
}
