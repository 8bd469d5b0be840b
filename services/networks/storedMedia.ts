import { Schema } from "effect"
import { ItemMedia } from "../../protocol/http/postResources.js"

/** A file as kept on a post's item: a snapshot of the media item when the post was saved; what an adapter publishes. */
export const StoredMedia = ItemMedia
export type StoredMedia = typeof StoredMedia.Type
export const decodeStoredMedia = Schema.decodeUnknownSync(Schema.Array(StoredMedia))
