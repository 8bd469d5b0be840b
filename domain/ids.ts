import { Schema } from "effect"

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Spec: all ids are UUIDs; "Ids in paths that are not UUIDs give 400". */
export const isUuid = (s: string): boolean => uuidPattern.test(s)

/**
 * Marks a decode failure as "not a valid id" so the HTTP edge answers the spec's
 * invalid-id body, wherever the id was (path, query or body).
 */
export const INVALID_ID = "One of the ids is not valid."

/** A UUID in a path, query or body; failures carry the INVALID_ID message. */
export const Uuid = Schema.String.pipe(
  Schema.filter(isUuid, { message: () => INVALID_ID }),
  Schema.annotations({ jsonSchema: { type: "string", format: "uuid" }, description: "A UUID" })
)

/**
 * Branded ids: a channel id cannot be passed where a post id is expected. Each is a
 * UUID (decoding checks it); `make` brands a value already known to be one.
 */
export const WorkspaceId = Uuid.pipe(Schema.brand("WorkspaceId"))
export type WorkspaceId = typeof WorkspaceId.Type
export const ChannelId = Uuid.pipe(Schema.brand("ChannelId"))
export type ChannelId = typeof ChannelId.Type
/** A per-channel post id. */
export const PostId = Uuid.pipe(Schema.brand("PostId"))
export type PostId = typeof PostId.Type
/** The id of a whole post (its group). */
export const GroupId = Uuid.pipe(Schema.brand("GroupId"))
export type GroupId = typeof GroupId.Type
/** Where the spec takes "a per-channel post id or a group id". */
export const PostRef = Uuid.pipe(Schema.brand("PostRef"))
export type PostRef = typeof PostRef.Type
export const CustomerId = Uuid.pipe(Schema.brand("CustomerId"))
export type CustomerId = typeof CustomerId.Type
export const MediaId = Uuid.pipe(Schema.brand("MediaId"))
export type MediaId = typeof MediaId.Type
