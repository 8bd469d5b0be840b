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
