import { HttpApiSchema } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import * as E from "../../domain/errors.js"
import { MAX_JSON_DEPTH } from "../../domain/requests.js"

/**
 * The REST surface of the error catalog: each case's HTTP status (spec: Errors → Status
 * codes) and how the contract documents it. The body on the wire is always the spec's
 * (`error` and `msg` the same text, plus `fix`/`code`/`errors`), written by the
 * gateway's one error mapping; the classes' own encoding (with `_tag`) never leaves the
 * service, so each case is documented with that body.
 */

export const restStatus = {
  InvalidRequest: 400,
  InvalidJson: 400,
  InvalidId: 400,
  InvalidDate: 400,
  RuleViolations: 400,
  FormConnect: 400,
  MediaRefused: 400,
  MissingApiKey: 401,
  InvalidApiKey: 401,
  NoSubscription: 401,
  PaymentFailed: 402,
  PlanLimit: 402,
  Forbidden: 403,
  EmailNotVerified: 403,
  MemberPaused: 403,
  PostNotFound: 404,
  ChannelNotFound: 404,
  MediaNotFound: 404,
  UnknownNetwork: 404,
  RouteNotFound: 404,
  AlreadyExists: 409,
  IdempotencyKeyReused: 409,
  IdempotencyKeyRunning: 409,
  ChangedMeanwhile: 409,
  PayloadTooLarge: 413,
  TooManyRequests: 429,
  ServerError: 500,
  ServiceUnavailable: 503,
  WebhookNotFound: 404
} as const satisfies Record<E.ApiErrorTag, number>

export const statusOf = (e: E.ApiError): number => restStatus[e._tag]

/** The spec's error body. */
export const ErrorBody = Schema.Struct({
  error: Schema.String.annotations({ description: "What is wrong, in plain words" }),
  msg: Schema.String.annotations({ description: "The same text as error (compatibility)" }),
  fix: Schema.optional(Schema.String.annotations({ description: "What to do" })),
  code: Schema.optional(Schema.String.annotations({ description: "Stable name of some errors" })),
  errors: Schema.optional(
    Schema.Array(Schema.Struct({ channelId: Schema.String, channelName: Schema.String, message: Schema.String })).annotations({
      description: "Every broken network rule, per channel"
    })
  )
})

const { $schema: _ignored, ...bodyJsonSchema } = JSONSchema.make(ErrorBody)

/** A case as the contract declares it: its status, and the spec's body as its documented schema. */
const documented = <A, I>(Case: Schema.Schema<A, I>, tag: E.ApiErrorTag, description: string, example?: string) =>
  Case.annotations({
    ...HttpApiSchema.annotations({ status: restStatus[tag] }),
    identifier: tag,
    description,
    jsonSchema: { ...bodyJsonSchema, description, ...(example !== undefined ? { examples: [{ error: example, msg: example }] } : {}) }
  })

const M = E.Messages

export const InvalidRequest = documented(
  E.InvalidRequest,
  "InvalidRequest",
  `A missing or wrong field; the message names it and what is allowed. Any request: two Authorization headers, the character U+0000 in a text, or a body nested more than ${MAX_JSON_DEPTH} levels deep`
)
export const InvalidJson = documented(E.InvalidJson, "InvalidJson", "The body is not valid JSON", M.invalidJson)
export const InvalidId = documented(E.InvalidId, "InvalidId", "An id that is not a UUID", M.invalidId)
export const InvalidDate = documented(E.InvalidDate, "InvalidDate", "A date that cannot be parsed as ISO 8601, or outside the years 1970 to 9999")
export const RuleViolations = documented(
  E.RuleViolations,
  "RuleViolations",
  "The post breaks network rules: nothing was saved; `errors` lists every problem per channel",
  M.fixBeforeSaving
)
export const FormConnect = documented(E.FormConnect, "FormConnect", "The network connects with a form, not a link", M.formConnect)
export const MediaRefused = documented(
  E.MediaRefused,
  "MediaRefused",
  "A refused file or address (type, damage, image over the image limit, private address)"
)
export const MissingApiKey = documented(E.MissingApiKey, "MissingApiKey", "No Authorization header", M.noApiKey)
export const InvalidApiKey = documented(E.InvalidApiKey, "InvalidApiKey", "Key wrong, rotated or revoked", M.invalidApiKey)
export const NoSubscription = documented(E.NoSubscription, "NoSubscription", "The workspace has no plan (code no_subscription)", M.noSubscription)
export const PaymentFailed = documented(
  E.PaymentFailed,
  "PaymentFailed",
  "Publishing is paused after the 7-day grace of a failed payment (code payment_failed)",
  M.paymentFailed
)
export const PlanLimit = documented(E.PlanLimit, "PlanLimit", "More than the plan allows, for example more channels; fix names the way out")
export const Forbidden = documented(E.Forbidden, "Forbidden", "The role cannot do this", M.forbiddenRole)
export const EmailNotVerified = documented(
  E.EmailNotVerified,
  "EmailNotVerified",
  "The owner has not confirmed their email (code email_not_verified)",
  M.emailNotVerified
)
export const MemberPaused = documented(E.MemberPaused, "MemberPaused", "Access paused: the plan has no team (code member_paused)", M.memberPaused)
export const PostNotFound = documented(E.PostNotFound, "PostNotFound", "The post does not exist in this workspace", M.postNotFound)
export const ChannelNotFound = documented(E.ChannelNotFound, "ChannelNotFound", "The channel does not exist in this workspace", M.channelNotFound)
export const MediaNotFound = documented(E.MediaNotFound, "MediaNotFound", "The media does not exist in this workspace", M.mediaNotFound)
export const UnknownNetwork = documented(E.UnknownNetwork, "UnknownNetwork", "No network has this identifier", M.unknownNetwork)
export const RouteNotFound = documented(E.RouteNotFound, "RouteNotFound", "The path does not exist", M.notFound)
export const AlreadyExists = documented(E.AlreadyExists, "AlreadyExists", "A unique value already exists", M.alreadyExists)
export const IdempotencyKeyReused = documented(
  E.IdempotencyKeyReused,
  "IdempotencyKeyReused",
  "The Idempotency-Key was used with a different body (code idempotency_key_reused)",
  M.idempotencyKeyReused
)
export const IdempotencyKeyRunning = documented(
  E.IdempotencyKeyRunning,
  "IdempotencyKeyRunning",
  "The first request with this Idempotency-Key still runs",
  M.idempotencyRunning
)
export const ChangedMeanwhile = documented(
  E.ChangedMeanwhile,
  "ChangedMeanwhile",
  "The post changed while the request ran; send it again",
  M.changedMeanwhile
)
export const PayloadTooLarge = documented(
  E.PayloadTooLarge,
  "PayloadTooLarge",
  "JSON body over 5 MB, or an upload over the largest file size",
  M.bodyTooLarge
)
export const TooManyRequests = documented(E.TooManyRequests, "TooManyRequests", "Over a rate limit; Retry-After holds the seconds to wait")
export const ServerError = documented(E.ServerError, "ServerError", "Server-side failure", M.serverError)
export const ServiceUnavailable = documented(
  E.ServiceUnavailable,
  "ServiceUnavailable",
  "A part the request needs is briefly out of reach (the database or every worker during a restart; " +
    "Redis for sign-in links, sessions, OAuth codes); nothing was done, Retry-After holds the seconds to wait",
  M.serviceUnavailable
)
