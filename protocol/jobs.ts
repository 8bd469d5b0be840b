import { Schema } from "effect"

/** A job on the PUBLISH stream: publish (or, after a lost answer, search for) one item. */
export const PublishJob = Schema.Struct({ itemId: Schema.String, workspaceId: Schema.String })
export type PublishJob = typeof PublishJob.Type
export const PublishJobJson = Schema.parseJson(PublishJob)
