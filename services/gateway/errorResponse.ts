import { HttpApiError, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option, Predicate } from "effect"
import { type ApiError, Errors, errorBody, isApiError, Messages } from "../../domain/errors.js"
import { INVALID_ID } from "../../domain/ids.js"
import { decodeIssueProblem } from "../../domain/fieldProblem.js"
import { statusOf } from "../../protocol/http/errors.js"
import { isRedisUnavailable } from "../platform/redis.js"
import { isDatabaseOutage } from "../platform/databaseOutage.js"
import { NoAnswer, NoOwner } from "../sharding/actorRequests.js"

/**
 * Seconds a client is told to wait when Postgres or the actors are out of reach: a restart
 * or a switch-over takes a few seconds, a new actor host takes a lost shard within its
 * lease's 6 s.
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5

/**
 * The REST surface's one mapping: every failure becomes the spec's error body, with the
 * case's status (protocol/http/errors.ts): typed errors, unknown paths, unparsable or
 * oversized bodies, schema failures and defects.
 */

const tooLarge = (u: unknown): boolean => u instanceof Error && (u.message === "maxBytes exceeded" || tooLarge(u.cause))

/** A schema failure: an invalid id wins, else one plain sentence about the deepest field (domain/fieldProblem.ts). */
export const decodeErrorToApiError = (e: HttpApiError.HttpApiDecodeError): ApiError => {
  if (e.issues.some((i) => i.message === INVALID_ID)) return Errors.invalidId()
  if (e.issues.every((i) => i.path.length === 0 && i._tag !== "Missing")) return Errors.badRequest(Messages.requestNotJsonObject)
  return Errors.badRequest(decodeIssueProblem(e.issues, "The request"))
}

/**
 * @effect/platform stores an uploaded file in a temp file named after the client's file
 * name, before any handler runs: a name the file system refuses (U+0000, `.`, `..`, too
 * long) is the client's to fix. Other write failures (disk full) stay server errors.
 */
const refusedFileName = (cause: unknown): ApiError | null => {
  const code = Predicate.hasProperty(cause, "code") ? cause.code : undefined
  if (code === "ERR_INVALID_ARG_VALUE") return Errors.nulCharacter("The file name")
  if (code === "EISDIR" || code === "ENAMETOOLONG") return Errors.badRequest(Messages.uploadNameRefused)
  return null
}

/** A multipart body that could not be read (POST /upload turns "too large" into 413 with its limit first). */
const multipartError = (failure: unknown): ApiError | null => {
  const reason = Predicate.hasProperty(failure, "reason") ? failure.reason : undefined
  if (reason === "FileTooLarge" || reason === "BodyTooLarge") return Errors.payloadTooLarge(Messages.uploadTooLarge, Messages.uploadTooLargeFix)
  if (reason === "InternalError") return refusedFileName(Predicate.hasProperty(failure, "cause") ? failure.cause : undefined)
  return Errors.badRequest(Messages.multipartUnreadable)
}

/** A request body that could not be read: over the limit (413), not JSON (400), or unreadable. */
const requestError = (failure: HttpServerError.RequestError) => {
  if (tooLarge(failure.cause)) return Errors.bodyTooLarge()
  if (failure.cause instanceof SyntaxError || failure.reason === "Decode") return Errors.invalidJson()
  return Errors.badRequest(Messages.requestUnreadable)
}

/** The request's JSON body, for handlers that read it themselves (POST /posts). */
export const readJsonBody = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.json.pipe(Effect.mapError(requestError)))

/** Maps anything that failed or died to an ApiError (null: an unexpected failure). */
export const toApiError = (failure: unknown): ApiError | null => {
  if (isApiError(failure)) return failure
  if (failure instanceof HttpServerError.RouteNotFound) return Errors.notFound()
  if (failure instanceof HttpApiError.HttpApiDecodeError) return decodeErrorToApiError(failure)
  if (failure instanceof HttpServerError.RequestError) return requestError(failure)
  if (Predicate.isTagged(failure, "MultipartError")) return multipartError(failure)
  // a request that needed Redis while it was away (a session, a sign-in state): 503 with Retry-After, never 500
  if (isRedisUnavailable(failure)) return Errors.serviceUnavailable()
  // Postgres out of reach, here or in the actor that ran the command: 503, not 500
  if (isDatabaseOutage(failure)) return Errors.databaseUnavailable(UNAVAILABLE_RETRY_AFTER_SECONDS)
  // no actor host answered within the client's bound (services/sharding/actorClient.ts)
  if (failure instanceof NoOwner || failure instanceof NoAnswer) return Errors.actorsUnavailable(UNAVAILABLE_RETRY_AFTER_SECONDS)
  return null
}

export const apiErrorResponse = (e: ApiError) =>
  HttpServerResponse.unsafeJson(errorBody(e), {
    status: statusOf(e),
    headers: e.retryAfter !== undefined ? { "retry-after": String(e.retryAfter) } : {}
  })

/** Turns a failed request's cause into the response the client gets. */
export const causeToResponse = (cause: Cause.Cause<unknown>, supportEmail: string) => {
  const failure = Cause.failureOption(cause).pipe(Option.orElse(() => Cause.dieOption(cause)))
  if (Option.isNone(failure)) {
    // interrupted: the client went away; answer something sane anyway
    return Effect.succeed(apiErrorResponse(Errors.serverError(supportEmail)))
  }
  const mapped = toApiError(failure.value)
  // one short line, not the cause: an outage answers many requests so, all alike
  if (mapped !== null && mapped._tag === "ServiceUnavailable")
    return Effect.logWarning(`answered 503: ${mapped.fix ?? ""}`).pipe(Effect.as(apiErrorResponse(mapped)))
  if (mapped !== null) return Effect.succeed(apiErrorResponse(mapped))
  return Effect.logError("request failed", cause).pipe(Effect.as(apiErrorResponse(Errors.serverError(supportEmail))))
}
