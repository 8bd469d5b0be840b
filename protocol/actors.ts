import { Schema } from "effect"
import { ApiError } from "../domain/errors.js"

/**
 * Commands the gateway sends to a workspace's actor over NATS request/reply
 * (subject `<ns>.ws.cmd.<shard>`). The reply is the command's Exit, serialized with
 * the command's own success and failure schemas.
 */

export const PrincipalSchema = Schema.Struct({
  workspaceId: Schema.String,
  userId: Schema.NullOr(Schema.String),
  role: Schema.Literal("owner", "admin", "editor", "client"),
  tokenKind: Schema.Literal("live", "oat", "cli"),
  actor: Schema.String
})

/** DELETE /integrations/{id}: disconnect a channel and delete its unpublished posts. */
export class DeleteChannel extends Schema.TaggedRequest<DeleteChannel>()("DeleteChannel", {
  failure: ApiError,
  success: Schema.Struct({ success: Schema.Literal(true) }),
  payload: { channelId: Schema.String }
}) {}

export const ActorCommand = Schema.Union(DeleteChannel)
export type ActorCommand = typeof ActorCommand.Type

/** What travels on the wire: who asks, for which workspace, what. */
export const ActorEnvelope = Schema.Struct({
  principal: PrincipalSchema,
  command: ActorCommand
})
export type ActorEnvelope = typeof ActorEnvelope.Type

export const ActorEnvelopeJson = Schema.parseJson(ActorEnvelope)
