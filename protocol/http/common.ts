import { Schema } from "effect"
import { Uuid } from "../../domain/ids.js"

/** Path parameter `{id}`: a UUID; anything else answers 400 with the invalid-id body. */
export const IdParam = Schema.Struct({ id: Uuid })

export const SuccessTrue = Schema.Struct({ success: Schema.Literal(true) })
