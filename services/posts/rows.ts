import { Schema } from "effect"
import { ChannelId, GroupId, PostId, WorkspaceId } from "../../domain/ids.js"

/** Row shapes read by the posts repositories (decoded at the boundary). */

const Json = Schema.Unknown

export const GroupRow = Schema.Struct({
  id: GroupId,
  workspaceId: WorkspaceId,
  // no `status`: the whole-post status is derived from the channels when answering (domain/posts/states.ts)
  approvalStatus: Schema.NullOr(Schema.Literal("requested", "approved", "changes")),
  approvedBy: Schema.NullOr(Schema.String),
  publishAt: Schema.DateFromSelf,
  repeatDays: Schema.NullOr(Schema.Number),
  shortLink: Schema.Boolean,
  creationMethod: Schema.String,
  author: Schema.String,
  shareToken: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type GroupRow = typeof GroupRow.Type

export const ChannelStatusLiteral = Schema.Literal("draft", "queued", "publishing", "pending", "published", "error", "unconfirmed")

export const ChannelPostRow = Schema.Struct({
  id: PostId,
  groupId: GroupId,
  channelId: ChannelId,
  ordinal: Schema.Number,
  status: ChannelStatusLiteral,
  settings: Json,
  publishDate: Schema.DateFromSelf,
  releaseId: Schema.NullOr(Schema.String),
  releaseUrl: Schema.NullOr(Schema.String),
  error: Json,
  channelName: Schema.String,
  network: Schema.String,
  picture: Schema.NullOr(Schema.String),
  profile: Schema.String,
  customerApproval: Schema.NullOr(Schema.Boolean)
})
export type ChannelPostRow = typeof ChannelPostRow.Type

export const ItemRow = Schema.Struct({
  id: Schema.String,
  postId: Schema.String,
  position: Schema.Number,
  content: Schema.String,
  media: Json,
  delayMinutes: Schema.Number,
  status: ChannelStatusLiteral,
  releaseId: Schema.NullOr(Schema.String),
  releaseUrl: Schema.NullOr(Schema.String),
  publishedAt: Schema.NullOr(Schema.DateFromSelf),
  error: Json,
  held: Schema.NullOr(Schema.String),
  heldAt: Schema.NullOr(Schema.DateFromSelf),
  waitingFor: Schema.NullOr(Schema.String),
  attempts: Schema.Number
})
export type ItemRow = typeof ItemRow.Type

export const TagRow = Schema.Struct({ groupId: Schema.String, id: Schema.String, name: Schema.String, color: Schema.String })
export type TagRow = typeof TagRow.Type

export const ActivityRow = Schema.Struct({
  actor: Schema.String,
  action: Schema.String,
  detail: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf
})

export const CommentRow = Schema.Struct({
  id: Schema.String,
  author: Schema.String,
  role: Schema.String,
  content: Schema.String,
  createdAt: Schema.DateFromSelf
})

/** An item as the rule check reads it again (PUT status `schedule`, approval). */
export const StoredItemRow = Schema.Struct({
  postId: Schema.String,
  position: Schema.Number,
  content: Schema.String,
  media: Json,
  delayMinutes: Schema.Number
})
export type StoredItem = typeof StoredItemRow.Type

/** A whole post's approval and the statuses of its channels (after some were removed). */
export const GroupChannelsRow = Schema.Struct({
  id: Schema.String,
  approvalStatus: Schema.NullOr(Schema.Literal("requested", "approved", "changes")),
  statuses: Schema.Array(ChannelStatusLiteral)
})
export type GroupChannels = typeof GroupChannelsRow.Type

/** A post found by its share token. */
export const SharedPostRow = Schema.Struct({
  id: GroupId,
  workspaceId: WorkspaceId,
  reviewer: Schema.NullOr(Schema.String)
})

/** A file as kept on an item (services/networks/storedMedia.ts: the networks publish it). */
export { decodeStoredMedia, StoredMedia } from "../networks/storedMedia.js"

export const StoredError = Schema.NullOr(Schema.Struct({ message: Schema.String, fix: Schema.String }))
export const decodeStoredError = Schema.decodeUnknownSync(StoredError)

export const decodeSettings = Schema.decodeUnknownSync(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** The first item of a channel post with what a network search needs (GET /posts/{id}/missing). */
export const RootItemRow = Schema.Struct({
  postId: Schema.String,
  channelId: Schema.String,
  network: Schema.String,
  settings: Json,
  itemId: Schema.String,
  content: Schema.String,
  media: Json
})
export type RootItemRow = typeof RootItemRow.Type

/** A publish attempt as the timeline reads it (publish_attempts, migrations 0003 and 0017). */
export const AttemptRow = Schema.Struct({
  channelId: Schema.String,
  itemId: Schema.String,
  position: Schema.Number,
  attempt: Schema.Number,
  operation: Schema.NullOr(Schema.String),
  startedAt: Schema.DateFromSelf,
  durationMs: Schema.NullOr(Schema.Number),
  outcome: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.Struct({ message: Schema.String, fix: Schema.String })),
  calls: Schema.NullOr(
    Schema.Array(
      Schema.Struct({
        method: Schema.String,
        host: Schema.String,
        path: Schema.String,
        status: Schema.NullOr(Schema.Number),
        error: Schema.NullOr(Schema.String),
        startedAt: Schema.String,
        durationMs: Schema.Number
      })
    )
  )
})
export type AttemptRow = typeof AttemptRow.Type
