/**
 * Message texts of the posts domain that the spec's catalog (domain/errors.ts) does not
 * spell out. They say what is wrong and what to do, like the catalog's own messages.
 */

export const PostMessages = {
  releaseIdMissing: "releaseId is required: the id of the post on the network.",
  dateInPast: "The date is in the past. Use a time from now on.",
  bodyNotObject: "The request body must be a JSON object.",
  noEntries: "posts must have at least one entry, one per channel.",
  noChannels: "channels must have at least one channel id.",
  noItems: (at: string) => `${at}.value must have at least one item: the post itself.`,
  channelMissing: (at: string) => `${at}.integration.id is required: the channel to post to.`,
  channelConflict: (at: string) => `${at}.integration.id and ${at}.channelId name different channels. Give one of them.`,
  duplicateChannel: (at: string, channelId: string) =>
    `${at} repeats channel ${channelId}. Give each channel once; use follow-up items for more text.`,
  groupConflict: (at: string) => `${at}.group names a different post than the rest of the request. One request edits one post.`,
  repeatConflict: "inter and repeatDays differ. Give one of them.",
  mediaAliasConflict: (at: string) => `${at} has both image and media. Give the files in one of them.`,
  mediaRefEmpty: (at: string) => `${at} needs an id from POST /upload or a path.`,
  contentMissing: "content is required: the text of the post.",
  contentEmpty: (at: string) => `${at} is empty. Write the text of the post.`,
  contentEmptyAfterHtml: (at: string) => `${at} is empty once HTML is turned into text. Write the text of the post.`,
  tagEmpty: (at: string) => `${at} must not be empty.`,
  mediaPathRefused: (path: string, reason: string) => `The file at ${path} could not be taken into the media library: ${reason}`,
  notWaitingForApproval: "This post is not waiting for approval."
} as const

/** Texts of `errors[].message` for broken network rules; each starts with `<channelName>: `. */
export const RuleMessages = {
  disabled: (channel: string) => `${channel}: the channel is switched off. Turn it on in the app before posting.`,
  reconnect: (channel: string) => `${channel}: the channel must be reconnected in the app before posting.`,
  needsMedia: (channel: string) => `${channel}: this network needs at least one photo or video on the post.`,
  needsVideo: (channel: string) => `${channel}: this network needs a video on the post.`,
  noFollowUps: (channel: string, count: number) =>
    `${channel}: this network does not take follow-up comments, and the post has ${count}. Send only the post.`,
  tooManyFiles: (channel: string, where: string, count: number, max: number) => `${channel}: ${where} has too many files, ${count} of ${max}.`,
  mediaNotFound: (channel: string, id: string) =>
    `${channel}: media ${id} was not found. Upload the file with POST /upload and use the id it returns.`,
  mediaPathNotPublic: (channel: string, path: string) =>
    `${channel}: the file address ${path} is not an http or https address. Upload the file with POST /upload and use the id it returns.`,
  settingRequired: (channel: string, key: string, label: string) => `${channel}: the setting ${key} (${label}) is required.`,
  settingNotAnOption: (channel: string, key: string, options: ReadonlyArray<string>) =>
    `${channel}: the setting ${key} must be one of ${options.join(", ")}.`,
  settingNotANumber: (channel: string, key: string) => `${channel}: the setting ${key} must be a number of 0 or more.`,
  settingNotIds: (channel: string, key: string) => `${channel}: the setting ${key} must be ids (whole numbers), comma-separated.`,
  settingEntryMissing: (channel: string, key: string, index: number, field: string) =>
    `${channel}: entry ${index + 1} of the setting ${key} needs a ${field}.`,
  settingUnknown: (channel: string, key: string, network: string, keys: ReadonlyArray<string>) =>
    `${channel}: ${key} is not a setting of ${network}. ` + (keys.length === 0 ? `${network} has no settings.` : `Its settings: ${keys.join(", ")}.`)
} as const

/**
 * A post that fails on its network is not an HTTP error (spec: "Post failures on a
 * network"): its channel gets `error: {message, fix}` in plain language. The publisher's
 * own texts; a network's rejection keeps the network's reason.
 */
export const PublishMessages = {
  noAdapter: (network: string) => ({
    message: `Publishing to ${network} is not connected on this server yet.`,
    fix: "Connect the network's server keys, then retry the post."
  }),
  unreadableCredentials: {
    message: "The channel's connection to its network could not be read.",
    fix: "Reconnect the channel, then retry the post."
  },
  disconnected: (network: string, reason: string) => ({
    message: `${network} refused this channel's sign-in (${reason}), so the post was not sent.`,
    fix: "Reconnect the channel (GET /public/v1/social/{network}?refresh=<channel id>, or in the app), then retry the post."
  }),
  unreachable: (network: string, reason: string) => ({
    message: `${network} could not be reached (${reason}).`,
    fix: "Retry the post later."
  }),
  lostAnswer: {
    message: "The network did not answer, and a search could not tell whether the post went live.",
    fix: "Check the channel on the network. If the post is live, link it with PUT /posts/{id}/release-id; if not, retry it."
  },
  /** A follow-up whose previous item failed or could not be confirmed: it has nothing to reply to. */
  previousItemNotLive: {
    message: "Not sent, because the item before this follow-up did not go out (it failed or could not be confirmed).",
    fix: "Retry the post with POST /posts/{id}/retry; this follow-up then goes out after the item before it."
  }
} as const

/** POST /integration-trigger: the helper tools' refusals. */
export const ToolMessages = {
  networkUnknown: "The channel's network is not known.",
  noTools: (network: string) => `${network} has no tools.`,
  unknownTool: (methodName: string, network: string, tools: ReadonlyArray<string>) =>
    `Unknown methodName ${methodName}. ${network} tools: ${tools.join(", ")}.`,
  notConnected: (network: string) => `${network} tools need a connection to ${network}, which this server does not have yet.`,
  echoNeedsText: "The tool echo needs data.text, a string.",
  reconnect: (network: string) => `The channel's connection to ${network} has ended. Reconnect the channel in the app, then run the tool again.`,
  unavailable: (network: string, reason: string) => `${network} could not be asked (${reason}). Try again in a minute.`
} as const
