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
import { ImportRowAnswer } from "./http/postsBulk.js"

/**
 * Commands the gateway sends to a workspace's actor over NATS request/reply
 * (subject `<ns>.ws.cmd.<shard>`). The reply is the command's Exit, serialized with
 * the command's own success and failure schemas.
 */

export const PrincipalSchema = Schema.Struct({
  workspaceId: WorkspaceId,
  userId: Schema.NullOr(Schema.String),
  role: Schema.Literal("owner", "admin", "editor", "client"),
  tokenKind: Schema.Literal("live", "oat", "cli", "share", "session"),
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
  failure: Schema.Union(PostChangeFailure, InvalidId, InvalidDate, ChannelNotFound, IdempotencyKeyReused, IdempotencyKeyRunning, TooManyRequests),
  success: PostsAnswer,
  payload: {
    body: Schema.Unknown,
    idempotencyKey: Schema.NullOr(Schema.String),
    /** The surface's own creationMethod when the body gives none (MCP: `mcp`); else how the caller signed in. */
    defaultCreationMethod: Schema.optional(Schema.Literal("mcp")),
    /**
     * Files the body gives by path, already found in or imported into the library by the
     * gateway (domain/posts/mediaByPath.ts): path → media id. Kept apart from the body so
     * the body's hash (Idempotency-Key) is what the client sent.
     */
    mediaByPath: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
    /**
     * The request was taken from the rate window already. Imports send ImportPosts now; a
     * gateway of the release before it still sends each row of a file so during a rolling deploy.
     */
    counted: Schema.optionalWith(Schema.Boolean, { default: () => false })
  }
}) {}

/** A valid row of POST /posts/import: the POST /posts body it stands for, its row key and its files found by path. */
export const ImportRow = Schema.Struct({
  row: Schema.Int,
  body: Schema.Unknown,
  /** `<file key>:row-<n>` under the file's Idempotency-Key (services/posts/PostsImport.ts), else null. */
  idempotencyKey: Schema.NullOr(Schema.String),
  mediaByPath: Schema.Record({ key: Schema.String, value: Schema.String })
})
export type ImportRow = typeof ImportRow.Type

/**
 * POST /posts/import: the file's valid rows saved as one batch, in one transaction with the
 * command's record (all rows commit together or none). The import took its requests from
 * the rate window already. Answers one row answer each, in the rows' order: saved, or
 * refused with the body POST /posts would answer (a row refused at save time rolls back alone).
 * A large file travels by reference like any large command (INLINE_PAYLOAD_BYTES).
 */
export class ImportPosts extends Schema.TaggedRequest<ImportPosts>()("ImportPosts", {
  failure: Forbidden,
  success: Schema.Array(ImportRowAnswer),
  payload: { rows: Schema.Array(ImportRow) }
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

/** POST /posts/{id}/retry: failed and unconfirmed channels and follow-ups queued again, now. */
export class RetryPost extends Schema.TaggedRequest<RetryPost>()("RetryPost", {
  failure: Schema.Union(Forbidden, PostNotFound, ChangedMeanwhile),
  success: WholePostAnswer,
  payload: { postId: Schema.String }
}) {}

/** PUT /posts/{id}/release-id: one channel's post marked live with the id the caller found. */
export class LinkRelease extends Schema.TaggedRequest<LinkRelease>()("LinkRelease", {
  failure: Schema.Union(Forbidden, PostNotFound, ChangedMeanwhile, InvalidRequest),
  success: WholePostAnswer,
  payload: { postId: Schema.String, releaseId: Schema.String, releaseUrl: Schema.NullOr(Schema.String) }
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
  ImportPosts,
  MovePost,
  SetPostStatus,
  SetPostSettings,
  DeletePost,
  ReviewPost,
  RetryPost,
  LinkRelease
)
export type ActorCommand = typeof ActorCommand.Type

/**
 * A command as the gateway sends it: its id (the same on every retry of one request, so
 * the actor runs it once), how many times it was sent, who asks, for which workspace, what.
 */
export const ActorEnvelope = Schema.Struct({
  commandId: Schema.UUID,
  attempt: Schema.Int.pipe(Schema.positive()),
  principal: PrincipalSchema,
  command: ActorCommand
})
export type ActorEnvelope = typeof ActorEnvelope.Type

export const ActorEnvelopeJson = Schema.parseJson(ActorEnvelope)

/**
 * A NATS message holds 1 MiB by default; a command (POST /posts takes bodies up to 5 MB)
 * or an answer larger than this is passed by reference: stored in Postgres, its id sent.
 */
export const INLINE_PAYLOAD_BYTES = 512 * 1024

/** The request message: the envelope, or the id of its stored JSON. */
export const ActorRequest = Schema.Union(
  Schema.TaggedStruct("Inline", { envelope: ActorEnvelope }),
  Schema.TaggedStruct("Stored", { ref: Schema.UUID })
)
export const ActorRequestJson = Schema.parseJson(ActorRequest)

/**
 * The reply message: the command's Exit (serialized with its own schemas), or the id of its
 * stored JSON, or NotOwner: this host does not hold the shard's lease (any more),
 * ran nothing, and the gateway asks again until the owner answers.
 */
export const ActorReply = Schema.Union(
  Schema.TaggedStruct("Answer", { exit: Schema.Unknown }),
  Schema.TaggedStruct("Stored", { ref: Schema.UUID }),
  Schema.TaggedStruct("NotOwner", {})
)
export const ActorReplyJson = Schema.parseJson(ActorReply)
