import { Option, Schema } from "effect"
import { Uuid } from "../../domain/ids.js"

/** Path parameter `{id}`: a UUID; anything else answers 400 with the invalid-id body. */
export const IdParam = Schema.Struct({ id: Uuid })

export const SuccessTrue = Schema.Struct({ success: Schema.Literal(true) })

/**
 * An optional query parameter. `name=` left empty (what forms, tools and reference
 * clients send for "no filter") reads as absent; any other text is decoded by `schema`.
 */
export const optionalParam = <A, R>(schema: Schema.Schema<A, string, R>) =>
  Schema.optionalToOptional(Schema.String, schema, {
    decode: Option.filter((text) => text.trim() !== ""),
    encode: (value) => value
  })
