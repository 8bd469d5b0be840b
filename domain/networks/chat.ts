import type { Network } from "./network.js"

/** Chat apps and live-stream chats: a post is a message in a channel or chat. */

const channelSetting = {
  key: "channel",
  label: "Channel",
  type: "text",
  options: [],
  help: "Id of the channel to post in; list the channels with the channels tool.",
  required: true
} as const

const channelsTool = {
  methodName: "channels",
  description: "List the channels the app can post in (id and name).",
  dataSchema: []
} as const

export const discord: Network = {
  identifier: "discord",
  name: "Discord",
  maxLength: 1980,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: true,
  connect: "link",
  serverKeys: ["DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET", "DISCORD_BOT_TOKEN_ID"],
  settings: [channelSetting],
  tools: [channelsTool],
  rules:
    "Posts as the bot in a channel of the server added when connecting. Up to 1980 characters. " +
    "Up to 10 files. Follow-up comments work (as replies in a thread)."
}

export const slack: Network = {
  identifier: "slack",
  name: "Slack",
  // docs.slack.dev/reference/methods/chat.postMessage: text over 40,000 characters is truncated
  maxLength: 40000,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: true,
  connect: "link",
  serverKeys: ["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET"],
  settings: [channelSetting],
  tools: [channelsTool],
  rules:
    "Posts as the app in a channel of the workspace (the one picked when connecting, or the channel setting). " +
    "Up to 40000 characters. Up to 10 files, shared with the text as one message. Follow-up comments work (as replies in a thread)."
}

export const kick: Network = {
  identifier: "kick",
  name: "Kick",
  maxLength: 500,
  counting: "characters",
  needs: null,
  maxMedia: 0,
  comments: true,
  connect: "link",
  serverKeys: ["KICK_CLIENT_ID", "KICK_CLIENT_SECRET"],
  settings: [],
  tools: [],
  rules:
    "A chat message in the broadcaster's Kick chat, up to 500 characters. Text only: no photos or videos. " + "Follow-up comments work (as replies)."
}

export const twitch: Network = {
  identifier: "twitch",
  name: "Twitch",
  maxLength: 500,
  counting: "characters",
  needs: null,
  maxMedia: 0,
  comments: true,
  connect: "link",
  serverKeys: ["TWITCH_CLIENT_ID", "TWITCH_CLIENT_SECRET"],
  // dev.twitch.tv/docs/api/reference#send-chat-announcement: an announcement is highlighted in a colour
  settings: [
    {
      key: "announcement",
      label: "Announcement",
      type: "toggle",
      options: [],
      help: "Send the post as a highlighted chat announcement instead of a plain message (follow-ups stay plain messages)."
    },
    {
      key: "color",
      label: "Announcement colour",
      type: "select",
      options: ["primary", "blue", "green", "orange", "purple"],
      help: "The announcement's colour; primary is the channel's accent colour."
    }
  ],
  tools: [],
  rules:
    "A chat message (or, with the announcement setting, an announcement) in the broadcaster's chat, up to 500 characters. " +
    "Text only: no photos or videos. Follow-up comments work (as replies)."
}

export const telegram: Network = {
  identifier: "telegram",
  name: "Telegram",
  maxLength: 4096,
  counting: "characters",
  needs: null,
  maxMedia: 10,
  comments: true,
  connect: "form",
  serverKeys: [],
  settings: [],
  tools: [],
  rules:
    "Posts as a bot in the chat or channel it was added to. Up to 4096 characters. " +
    "Up to 10 photos or videos (an album). Follow-up comments work (as replies)."
}
