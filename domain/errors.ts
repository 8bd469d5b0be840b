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

/**
 * What every error carries to a surface: the text (REST sends it as `error` and `msg`,
 * OAuth as `error_description`, MCP as the JSON-RPC message) and the spec's optional
 * extras. Which case it is, is the class; its HTTP status is the contract's business
 * (protocol/http/errors.ts), so this module stays free of HTTP.
 */
const wire = {
  error: Schema.String,
  fix: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Array(RuleProblem)),
  /** Seconds, sent as the Retry-After header (429, 503). */
  retryAfter: Schema.optional(Schema.Number)
}

// ---- 400 ----
/** A missing or wrong field, with a sentence naming it. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", wire) {}
export class InvalidJson extends Schema.TaggedError<InvalidJson>()("InvalidJson", wire) {}
export class InvalidId extends Schema.TaggedError<InvalidId>()("InvalidId", wire) {}
export class InvalidDate extends Schema.TaggedError<InvalidDate>()("InvalidDate", wire) {}
/** A post that breaks network rules: `errors` lists every problem per channel. */
export class RuleViolations extends Schema.TaggedError<RuleViolations>()("RuleViolations", wire) {}
export class FormConnect extends Schema.TaggedError<FormConnect>()("FormConnect", wire) {}
/** A file or address the media library refuses (type, damage, image size, address). */
export class MediaRefused extends Schema.TaggedError<MediaRefused>()("MediaRefused", wire) {}
// ---- 401 ----
export class MissingApiKey extends Schema.TaggedError<MissingApiKey>()("MissingApiKey", wire) {}
export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", wire) {}
export class NoSubscription extends Schema.TaggedError<NoSubscription>()("NoSubscription", wire) {}
// ---- 402 ----
export class PaymentFailed extends Schema.TaggedError<PaymentFailed>()("PaymentFailed", wire) {}
/** More than the plan allows (channels, webhooks), with a fix naming the way out. */
export class PlanLimit extends Schema.TaggedError<PlanLimit>()("PlanLimit", wire) {}
// ---- 403 ----
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", wire) {}
export class EmailNotVerified extends Schema.TaggedError<EmailNotVerified>()("EmailNotVerified", wire) {}
export class MemberPaused extends Schema.TaggedError<MemberPaused>()("MemberPaused", wire) {}
// ---- 404 ----
export class PostNotFound extends Schema.TaggedError<PostNotFound>()("PostNotFound", wire) {}
export class ChannelNotFound extends Schema.TaggedError<ChannelNotFound>()("ChannelNotFound", wire) {}
export class MediaNotFound extends Schema.TaggedError<MediaNotFound>()("MediaNotFound", wire) {}
export class UnknownNetwork extends Schema.TaggedError<UnknownNetwork>()("UnknownNetwork", wire) {}
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", wire) {}
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", wire) {}
// ---- 409 ----
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", wire) {}
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", wire) {}
export class IdempotencyKeyRunning extends Schema.TaggedError<IdempotencyKeyRunning>()("IdempotencyKeyRunning", wire) {}
/** A conditional update found the post moved on (two writers during an actor hand-over). */
export class ChangedMeanwhile extends Schema.TaggedError<ChangedMeanwhile>()("ChangedMeanwhile", wire) {}
// ---- 413 ----
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", wire) {}
// ---- 429 ----
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", wire) {}
// ---- 500 ----
export class ServerError extends Schema.TaggedError<ServerError>()("ServerError", wire) {}
// ---- 503 ----
/**
 * A part the request needs is out of reach for a moment (Postgres or every actor host; Redis
 * for sessions, sign-in states, OAuth codes): nothing was done, Retry-After says when to send
 * it again.
 */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", wire) {}

/** Every failure answered to a client, one class per case; also the schema commands fail with over NATS. */
export const ApiError = Schema.Union(
  InvalidRequest,
  InvalidJson,
  InvalidId,
  InvalidDate,
  RuleViolations,
  FormConnect,
  MediaRefused,
  MissingApiKey,
  InvalidApiKey,
  NoSubscription,
  PaymentFailed,
  PlanLimit,
  Forbidden,
  EmailNotVerified,
  MemberPaused,
  PostNotFound,
  ChannelNotFound,
  MediaNotFound,
  UnknownNetwork,
  RouteNotFound,
  AlreadyExists,
  IdempotencyKeyReused,
  IdempotencyKeyRunning,
  ChangedMeanwhile,
  PayloadTooLarge,
  TooManyRequests,
  ServerError,
  ServiceUnavailable,
  WebhookNotFound
)
export type ApiError = typeof ApiError.Type
export type ApiErrorTag = ApiError["_tag"]

export const isApiError: (u: unknown) => u is ApiError = Schema.is(ApiError)

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
  ...(e.errors !== undefined ? { errors: e.errors.map((p) => ({ channelId: p.channelId, channelName: p.channelName, message: p.message })) } : {})
})

type Extra = { readonly fix?: string; readonly code?: string; readonly errors?: ReadonlyArray<RuleProblem>; readonly retryAfter?: number }

/** Builds a case with its text; optional extras only when given (so they stay absent on the wire). */
const make = <E>(Case: new (fields: { error: string } & Extra) => E, error: string, extra: Extra = {}): E => new Case({ error, ...extra })

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
  noSubscriptionFix: "Ask the workspace owner to choose a plan on the Billing page. Nothing was deleted.",
  paymentFailed: "Publishing is paused because the last payment failed.",
  paymentFailedFix: "Ask the workspace owner to pay the open invoice on the Billing page. Nothing was deleted; posts go out again once it is paid.",
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
  mediaNotFound: "Media not found",
  settingsAfterPublishing: "Settings can only change before the post is published.",
  settingsAfterPublishingFix: "Change the settings of posts that are draft, queued or failed; published posts stay as they went out.",
  requestNotJsonObject: "The request body must be a JSON object with the documented fields.",
  requestUnreadable: "The request could not be read.",
  multipartUnreadable: "The multipart/form-data body could not be read. Send the file in the field `file`.",
  uploadTooLarge: "The file is larger than the largest upload this server takes.",
  uploadTooLargeFix: "Send a smaller file.",
  uploadNameRefused: "The file name cannot be used. Send the file with a plain name, for example photo.jpg.",
  webhookNotFound: "Webhook not found",
  serviceUnavailable: "The service is briefly unavailable. Send the request again in a few seconds.",
  deliveryNotFound: "Delivery not found"
} as const

export const Errors = {
  noApiKey: () => make(MissingApiKey, Messages.noApiKey),
  invalidApiKey: () => make(InvalidApiKey, Messages.invalidApiKey),
  invalidJson: () => make(InvalidJson, Messages.invalidJson),
  badRequest: (message: string, fix?: string) => make(InvalidRequest, message, fix !== undefined ? { fix } : {}),
  postNotFound: () => make(PostNotFound, Messages.postNotFound),
  channelNotFound: () => make(ChannelNotFound, Messages.channelNotFound),
  mediaNotFound: () => make(MediaNotFound, Messages.mediaNotFound),
  invalidId: () => make(InvalidId, Messages.invalidId, { fix: Messages.invalidIdFix }),
  notFound: () => make(RouteNotFound, Messages.notFound, { fix: Messages.notFoundFix }),
  noSubscription: () => make(NoSubscription, Messages.noSubscription, { code: "no_subscription", fix: Messages.noSubscriptionFix }),
  paymentFailed: () => make(PaymentFailed, Messages.paymentFailed, { code: "payment_failed", fix: Messages.paymentFailedFix }),
  forbidden: (message: string = Messages.forbiddenRole, fix: string = Messages.forbiddenRoleFix) => make(Forbidden, message, { fix }),
  emailNotVerified: () => make(EmailNotVerified, Messages.emailNotVerified, { code: "email_not_verified", fix: Messages.emailNotVerifiedFix }),
  memberPaused: () => make(MemberPaused, Messages.memberPaused, { code: "member_paused", fix: Messages.memberPausedFix }),
  alreadyExists: () => make(AlreadyExists, Messages.alreadyExists, { fix: Messages.alreadyExistsFix }),
  idempotencyKeyReused: () =>
    make(IdempotencyKeyReused, Messages.idempotencyKeyReused, { code: "idempotency_key_reused", fix: Messages.idempotencyKeyReusedFix }),
  idempotencyRunning: () => make(IdempotencyKeyRunning, Messages.idempotencyRunning, { fix: Messages.idempotencyRunningFix }),
  /** 409: a conditional update found the post moved on (two writers during an actor hand-over). */
  changedMeanwhile: () => make(ChangedMeanwhile, Messages.changedMeanwhile, { fix: Messages.changedMeanwhileFix }),
  /** 429: `<n>` is the whole minutes to wait, rounded up; Retry-After carries the seconds. */
  tooManyRequests: (retryAfterSeconds: number) => {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds))
    return make(TooManyRequests, `Too many requests. Try again in ${Math.max(1, Math.ceil(seconds / 60))} minutes.`, {
      retryAfter: seconds
    })
  },
  /** 503: nothing was done; the same request succeeds once the part is back (seconds, sent as Retry-After). */
  serviceUnavailable: (retryAfterSeconds = 2) =>
    make(ServiceUnavailable, "The service is briefly unavailable: a part it needs for this request is restarting.", {
      fix: `Nothing was done. Send the same request again in ${retryAfterSeconds} seconds.`,
      retryAfter: retryAfterSeconds
    }),
  serverError: (supportEmail: string) =>
    make(ServerError, Messages.serverError, {
      fix: `Try again in a minute. If it keeps happening, email ${supportEmail} with the time of the request.`
    }),
  /**
   * 503 while Postgres cannot be reached (a restart, a switch-over): nothing in the request
   * may be relied on as saved, and the same request sent again is safe (with its
   * Idempotency-Key, a post that did commit is answered, not made twice).
   */
  databaseUnavailable: (retryAfterSeconds: number) =>
    make(ServiceUnavailable, Messages.serviceUnavailable, {
      code: "service_unavailable",
      fix: `The database is briefly unavailable; retry after ${retryAfterSeconds} seconds, with the same Idempotency-Key for POST /posts.`,
      retryAfter: retryAfterSeconds
    }),
  /** 503 when no actor host answered the command within the client's bound (none owns the workspace's shard). */
  actorsUnavailable: (retryAfterSeconds: number) =>
    make(ServiceUnavailable, Messages.serviceUnavailable, {
      code: "service_unavailable",
      fix: `No worker answered in time; retry after ${retryAfterSeconds} seconds, with the same Idempotency-Key for POST /posts.`,
      retryAfter: retryAfterSeconds
    }),
  /** 402: more than the plan allows; domain/plans.ts writes the sentence and the fix. */
  planLimit: (message: string, fix: string) => make(PlanLimit, message, { fix }),
  /** 400 for a date that cannot be parsed; the example is an ISO 8601 timestamp. */
  invalidDate: (example: string) => make(InvalidDate, `The date is not valid. Use ISO 8601, for example ${example}.`),
  /** 400 for a date outside the years the service keeps (domain/posts/dates.ts). */
  dateOutOfRange: (field: string, earliest: string, latest: string) => make(InvalidDate, `${field} must be between ${earliest} and ${latest}.`),
  /** 400: Postgres cannot store U+0000, so no text may carry it. */
  nulCharacter: (field: string) => make(InvalidRequest, `${field} must not contain the character U+0000.`),
  nulCharacterInKey: (field: string) => make(InvalidRequest, `${field} must not have a key with the character U+0000.`),
  /** 400 before the body is read: arrays and objects deeper than `max` (domain/requests.ts). */
  nestedTooDeep: (max: number) =>
    make(InvalidRequest, `The request body is nested more than ${max} levels deep. Send at most ${max} levels of arrays and objects.`),
  /** 400: a proxy or client that repeats the header; which key counts would be a guess. */
  repeatedAuthorization: (count: number) => make(InvalidRequest, `Send the key in one Authorization header; this request has ${count}.`),
  formConnect: () => make(FormConnect, Messages.formConnect),
  fixBeforeSaving: (errors: ReadonlyArray<RuleProblem>) => make(RuleViolations, Messages.fixBeforeSaving, { errors }),
  unknownNetwork: () => make(UnknownNetwork, Messages.unknownNetwork),
  bodyTooLarge: () => make(PayloadTooLarge, Messages.bodyTooLarge, { fix: Messages.bodyTooLargeFix }),
  payloadTooLarge: (message: string, fix: string) => make(PayloadTooLarge, message, { fix }),
  settingsAfterPublishing: () => make(InvalidRequest, Messages.settingsAfterPublishing, { fix: Messages.settingsAfterPublishingFix }),
  /** 400 from the media library: a refused file or address, with what to do. */
  mediaRefused: (message: string, fix?: string) => make(MediaRefused, message, fix !== undefined ? { fix } : {}),
  webhookNotFound: () => make(WebhookNotFound, Messages.webhookNotFound),
  /** POST /posts with a planId whose body, channels or rules are no longer what the preview saw. */
  planChanged: (what: string) =>
    make(ChangedMeanwhile, `The post changed since its preview: ${what}.`, {
      fix: "Preview it again (POST /public/v1/posts/preview), check the answer, then post with the new planId.",
      code: "plan_changed"
    }),
  /** A webhook's delivery that is not there (its 404 has the webhook's error type). */
  deliveryNotFound: () => make(WebhookNotFound, Messages.deliveryNotFound)
} as const

/** `<channelName>: the post is too long, <n> of <max> characters.` */
export const tooLongMessage = (channelName: string, length: number, max: number) =>
  `${channelName}: the post is too long, ${length} of ${max} characters.`
