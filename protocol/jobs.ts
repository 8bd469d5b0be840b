import { Schema } from "effect"

/** A job on the PUBLISH stream: publish (or, after a lost answer, search for) one item. */
export const PublishJob = Schema.Struct({ itemId: Schema.String, workspaceId: Schema.String })
export type PublishJob = typeof PublishJob.Type
export const PublishJobJson = Schema.parseJson(PublishJob)

/** A job on the PREPARE stream: make the rendition of one file for one target (media_renditions). */
export const PrepareJob = Schema.Struct({ mediaId: Schema.String, targetKey: Schema.String })
export type PrepareJob = typeof PrepareJob.Type
export const PrepareJobJson = Schema.parseJson(PrepareJob)
