import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { Uuid } from "../../domain/ids.js"

/** Path parameter `{id}`: a UUID; anything else answers 400 with the invalid-id body. */
export const IdParam = Schema.Struct({ id: Uuid })

/** Every error body of the spec: `error` and `msg` the same text. */
export const ErrorBody = Schema.Struct({
  error: Schema.String,
  msg: Schema.String,
  fix: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  errors: Schema.optional(
    Schema.Array(Schema.Struct({ channelId: Schema.String, channelName: Schema.String, message: Schema.String }))
  )
}).annotations({ identifier: "Error" })

const errorAt = (status: number, identifier: string, description: string) =>
  ErrorBody.annotations({ ...HttpApiSchema.annotations({ status }), identifier, description })

/** Documented error answers (the gateway's error middleware writes them). */
export const BadRequest = errorAt(400, "BadRequest", "Missing or wrong field, invalid id, unparsable JSON or date")
export const Unauthorized = errorAt(401, "Unauthorized", "No API Key found, Invalid API key, or No subscription found")
export const PaymentRequired = errorAt(402, "PaymentRequired", "Plan limit, or publishing paused after a failed payment")
export const Forbidden = errorAt(403, "Forbidden", "The role cannot do this")
export const NotFound = errorAt(404, "NotFound", "Not found in this workspace")
export const Conflict = errorAt(409, "Conflict", "Already exists, or Idempotency-Key conflict")
export const PayloadTooLarge = errorAt(413, "PayloadTooLarge", "Body over 5 MB, or upload over the largest size")
export const TooManyRequests = errorAt(429, "TooManyRequests", "Rate limit; Retry-After holds the seconds to wait")
export const ServerError = errorAt(500, "ServerError", "Server-side failure")

export const SuccessTrue = Schema.Struct({ success: Schema.Literal(true) })
