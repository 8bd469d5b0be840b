/**
 * The bounds of a POST /posts body (and PUT /posts/{id}/settings), generously above real
 * use, so one request cannot hold a workspace's actor for long. The body schemas
 * (domain/posts/body.ts) carry them, so the 400 messages and the OpenAPI document state
 * them; docs/api.md lists them.
 */
export const PostLimits = {
  /** Entries of `posts`, or ids of `channels`: one per channel. */
  channels: 100,
  /** Items of one channel: the post and its follow-ups (`value`; `thread` holds the follow-ups only). */
  itemsPerChannel: 100,
  /** Files of one item (`image`/`media`). */
  mediaPerItem: 20,
  tags: 100,
  /** Keys of one channel's `settings`. */
  settingsKeys: 100,
  /** `delay` of a follow-up, in minutes: at most a year. */
  delayMinutes: 525_600
} as const
