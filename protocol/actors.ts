import { Schema } from "effect"
import {
  ChangedMeanwhile,
  ChannelNotFound,
  Forbidden,
  IdempotencyKeyReused,
  IdempotencyKeyRunning,
  InvalidDate,
  InvalidId,
  InvalidRequest,
  PostNotFound,
  RuleViolations,
  TooManyRequests
} from "../domain/errors.js"
import { WorkspaceId } from "../domain/ids.js"
import { WholePost } from "./http/postResources.js"

/**
 * Commands the gateway sends to a workspace's actor over NATS request/reply
 * (subject `<ns>.ws.cmd.<shard>`). The reply is the command's Exit, serialized with
 * the command's own success and failure schemas.
 */

export const PrincipalSchema = Schema.Struct({
  workspaceId: WorkspaceId,
  userId: Schema.NullOr(Schema.String),
  role: Schema.Literal("owner", "admin", "editor", "client"),
  tokenKind: Schema.Literal("live", "oat", "cli", "share"),
  actor: Schema.String
})

/** Every change of a post can meet a refused role, a missing post or a concurrent writer. */
const PostChangeFailure = Schema.Union(Forbidden, PostNotFound, ChangedMeanwhile, InvalidRequest, RuleViolations)

/** DELETE /integrations/{id}: disconnect a channel and delete its unpublished posts. */
export class DeleteChannel extends Schema.TaggedRequest<DeleteChannel>()("DeleteChannel", {
  failure: Schema.Union(Forbidden, ChannelNotFound),
  success: Schema.Struct({ success: Schema.Literal(true) }),
  payload: { channelId: Schema.String }
}) {}

/** The answer of POST /posts as it is sent and kept for Idempotency-Key replays. */
export const PostsAnswer = Schema.Struct({
  statusCode: Schema.Number,
  body: Schema.Unknown,
  replayed: Schema.Boolean
})

/** POST /posts: create or edit, with the optional Idempotency-Key. */
export class CreatePosts extends Schema.TaggedRequest<CreatePosts>()("CreatePosts", {
  failure: Schema.Union(
    PostChangeFailure,
    InvalidId,
    InvalidDate,
    ChannelNotFound,
    IdempotencyKeyReused,
    IdempotencyKeyRunning,
    TooManyRequests
  ),
  success: PostsAnswer,
  payload: { body: Schema.Unknown, idempotencyKey: Schema.NullOr(Schema.String) }
}) {}

/** The whole post after a change, rendered by the actor from what it committed. */
const WholePostAnswer = WholePost

export class MovePost extends Schema.TaggedRequest<MovePost>()("MovePost", {
  failure: Schema.Union(PostChangeFailure, InvalidDate),
  success: WholePostAnswer,
  payload: { postId: Schema.String, date: Schema.String }
}) {}

export class SetPostStatus extends Schema.TaggedRequest<SetPostStatus>()("SetPostStatus", {
  failure: PostChangeFailure,
  success: WholePostAnswer,
  payload: { postId: Schema.String, status: Schema.Literal("draft", "schedule") }
}) {}

export class SetPostSettings extends Schema.TaggedRequest<SetPostSettings>()("SetPostSettings", {
  failure: PostChangeFailure,
  success: WholePostAnswer,
  payload: { postId: Schema.String, settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }
}) {}

export class DeletePost extends Schema.TaggedRequest<DeletePost>()("DeletePost", {
  failure: Schema.Union(Forbidden, PostNotFound, ChangedMeanwhile),
  success: Schema.Struct({ error: Schema.Literal(false), success: Schema.Literal(true) }),
  payload: { postId: Schema.String }
}) {}

/** The share page: the client approves, or asks for changes with a comment. */
export class ReviewPost extends Schema.TaggedRequest<ReviewPost>()("ReviewPost", {
  failure: PostChangeFailure,
  success: WholePostAnswer,
  payload: {
    groupId: Schema.String,
    decision: Schema.Literal("approve", "changes"),
    comment: Schema.String,
    reviewer: Schema.String
  }
}) {}

export const ActorCommand = Schema.Union(
  DeleteChannel,
  CreatePosts,
  MovePost,
  SetPostStatus,
  SetPostSettings,
  DeletePost,
  ReviewPost
)
export type ActorCommand = typeof ActorCommand.Type

/** What travels on the wire: who asks, for which workspace, what. */
export const ActorEnvelope = Schema.Struct({
  principal: PrincipalSchema,
  command: ActorCommand
})
export type ActorEnvelope = typeof ActorEnvelope.Type

export const ActorEnvelopeJson = Schema.parseJson(ActorEnvelope)

/**
 * Whether sending the command again after a lost answer cannot apply it twice: a keyed
 * POST /posts replays its first answer, and moving a post to a date or status, or
 * merging settings, ends in the same state. Deletes and reviews would answer 404 or
 * "not waiting" the second time, so they are not repeated.
 */
export const isRetrySafe = (command: ActorCommand): boolean => {
  switch (command._tag) {
    case "CreatePosts":
      return command.idempotencyKey !== null
    case "MovePost":
    case "SetPostStatus":
    case "SetPostSettings":
      return true
    case "DeleteChannel":
    case "DeletePost":
    case "ReviewPost":
      return false
  }
}
