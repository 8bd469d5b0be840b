import { Schema } from "effect"

/**
 * The spec's error catalog ("Errors" → "Exact messages"). Every failure the service
 * answers with is built here, so each message text lives in exactly one place.
 */

/** One problem of a post with one channel's network rules (`errors[]` item). */
export class RuleProblem extends Schema.Class<RuleProblem>("RuleProblem")({
  channelId: Schema.String,
  channelName: Schema.String,
  message: Schema.String
}) {}

/** Any failure answered to a client. `error` is also sent as `msg`. */
export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  status: Schema.Number,
  error: Schema.String,
  fix: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Array(RuleProblem)),
  /** Seconds, sent as the Retry-After header (429). */
  retryAfter: Schema.optional(Schema.Number)
}) {}

export type ApiErrorBody = {
  readonly error: string
  readonly msg: string
  readonly fix?: string
  readonly code?: string
  readonly errors?: ReadonlyArray<{ channelId: string; channelName: string; message: string }>
}

/** The wire body: `error` and `msg` the same text, optional fields only when set. */
export const errorBody = (e: ApiError): ApiErrorBody => ({
  error: e.error,
  msg: e.error,
  ...(e.fix !== undefined ? { fix: e.fix } : {}),
  ...(e.code !== undefined ? { code: e.code } : {}),
  ...(e.errors !== undefined
    ? { errors: e.errors.map((p) => ({ channelId: p.channelId, channelName: p.channelName, message: p.message })) }
    : {})
})

const make = (status: number, error: string, extra: Partial<Omit<ApiError, "status" | "error" | "_tag">> = {}) =>
  new ApiError({ status, error, ...extra })

export const Messages = {
  noApiKey: "No API Key found",
  invalidApiKey: "Invalid API key",
  invalidJson: "The request body is not valid JSON.",
  postNotFound: "Post not found",
  invalidId: "One of the ids is not valid.",
  invalidIdFix: "Check the id. Copy it again from the list it came from.",
  notFound: "Not found",
  notFoundFix: "Check the method and the path. The API reference lists every path.",
  noSubscription: "No subscription found",
  noSubscriptionFix:
    "Ask the workspace owner to choose a plan on the Billing page. Nothing was deleted.",
  paymentFailed: "Publishing is paused because the last payment failed.",
  paymentFailedFix:
    "Ask the workspace owner to pay the open invoice on the Billing page. Nothing was deleted; posts go out again once it is paid.",
  alreadyExists: "That already exists.",
  alreadyExistsFix: "Use a different name or value, or change the one that already exists.",
  idempotencyKeyReused: "This Idempotency-Key was already used with a different request body.",
  idempotencyKeyReusedFix: "Use a new Idempotency-Key for a new post.",
  idempotencyRunning: "A request with this Idempotency-Key is still running.",
  idempotencyRunningFix: "Wait until the first request has finished, then send it again to get its answer.",
  changedMeanwhile: "The post changed while this request ran. Send it again.",
  changedMeanwhileFix: "Send the request again.",
  serverError: "Something went wrong on our side. Try again. If it keeps happening, contact support.",
  formConnect: "This network connects with a form, not a link. Use the app to connect it.",
  fixBeforeSaving: "Please fix these before saving.",
  unknownNetwork: "Unknown network",
  bodyTooLarge: "The request body is larger than 5 MB.",
  bodyTooLargeFix: "Send a smaller body. Upload files with POST /upload and refer to them by id.",
  forbiddenRole: "Your role cannot do this.",
  forbiddenRoleFix: "Ask an owner or admin of the workspace, or use the workspace API key.",
  channelNotFound: "Channel not found",
  emailNotVerified: "The workspace owner has not confirmed their email address yet.",
  emailNotVerifiedFix: "Ask the owner to open the confirmation link that was sent to their email address.",
  memberPaused: "Your access is paused because the workspace plan has no team.",
  memberPausedFix: "Ask the workspace owner to choose a plan with a team on the Billing page.",
  mediaNotFound: "Media not found"
} as const

export const Errors = {
  noApiKey: () => make(401, Messages.noApiKey),
  invalidApiKey: () => make(401, Messages.invalidApiKey),
  invalidJson: () => make(400, Messages.invalidJson),
  badRequest: (message: string) => make(400, message),
  postNotFound: () => make(404, Messages.postNotFound),
  channelNotFound: () => make(404, Messages.channelNotFound),
  mediaNotFound: () => make(404, Messages.mediaNotFound),
  invalidId: () => make(400, Messages.invalidId, { fix: Messages.invalidIdFix }),
  notFound: () => make(404, Messages.notFound, { fix: Messages.notFoundFix }),
  noSubscription: () => make(401, Messages.noSubscription, { code: "no_subscription", fix: Messages.noSubscriptionFix }),
  paymentFailed: () => make(402, Messages.paymentFailed, { code: "payment_failed", fix: Messages.paymentFailedFix }),
  forbidden: (message: string = Messages.forbiddenRole, fix: string = Messages.forbiddenRoleFix) =>
    make(403, message, { fix }),
  emailNotVerified: () => make(403, Messages.emailNotVerified, { code: "email_not_verified", fix: Messages.emailNotVerifiedFix }),
  memberPaused: () => make(403, Messages.memberPaused, { code: "member_paused", fix: Messages.memberPausedFix }),
  alreadyExists: () => make(409, Messages.alreadyExists, { fix: Messages.alreadyExistsFix }),
  idempotencyKeyReused: () =>
    make(409, Messages.idempotencyKeyReused, { code: "idempotency_key_reused", fix: Messages.idempotencyKeyReusedFix }),
  idempotencyRunning: () => make(409, Messages.idempotencyRunning, { fix: Messages.idempotencyRunningFix }),
  /** 409: a conditional update found the post moved on (two writers during an actor hand-over). */
  changedMeanwhile: () => make(409, Messages.changedMeanwhile, { fix: Messages.changedMeanwhileFix }),
  /** 429: `<n>` is the whole minutes to wait, rounded up; Retry-After carries the seconds. */
  tooManyRequests: (retryAfterSeconds: number) => {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds))
    return make(429, `Too many requests. Try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`, {
      retryAfter: seconds
    })
  },
  serverError: (supportEmail: string) =>
    make(500, Messages.serverError, {
      fix: `Try again in a minute. If it keeps happening, email ${supportEmail} with the time of the request.`
    }),
  /** 400 for a date that cannot be parsed; the example is an ISO 8601 timestamp. */
  invalidDate: (example: string) => make(400, `The date is not valid. Use ISO 8601, for example ${example}.`),
  formConnect: () => make(400, Messages.formConnect),
  fixBeforeSaving: (errors: ReadonlyArray<RuleProblem>) => make(400, Messages.fixBeforeSaving, { errors }),
  unknownNetwork: () => make(404, Messages.unknownNetwork),
  bodyTooLarge: () => make(413, Messages.bodyTooLarge, { fix: Messages.bodyTooLargeFix }),
  payloadTooLarge: (message: string, fix: string) => make(413, message, { fix })
} as const

/** `<channelName>: the post is too long, <n> of <max> characters.` */
export const tooLongMessage = (channelName: string, length: number, max: number) =>
  `${channelName}: the post is too long, ${length} of ${max} characters.`
