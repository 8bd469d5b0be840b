import { type ApiError, type ApiErrorTag, errorBody } from "../../domain/errors.js"
import type { OAuthErrorCode, OAuthProblem } from "../../domain/oauth/errors.js"
import { restStatus } from "../http/errors.js"

/**
 * The OAuth surface of the error catalog (spec: "OAuth endpoints answer standard OAuth
 * JSON: error, error_description, msg"). The same cases as REST, named with RFC 6749's
 * codes; the text is the catalog's, as error_description and msg.
 */
export const oauthErrorCode = {
  InvalidRequest: "invalid_request",
  InvalidJson: "invalid_request",
  InvalidId: "invalid_request",
  InvalidDate: "invalid_request",
  RuleViolations: "invalid_request",
  FormConnect: "invalid_request",
  MediaRefused: "invalid_request",
  MissingApiKey: "invalid_client",
  InvalidApiKey: "invalid_client",
  NoSubscription: "access_denied",
  PaymentFailed: "access_denied",
  PlanLimit: "access_denied",
  Forbidden: "access_denied",
  EmailNotVerified: "access_denied",
  MemberPaused: "access_denied",
  PostNotFound: "invalid_request",
  ChannelNotFound: "invalid_request",
  MediaNotFound: "invalid_request",
  UnknownNetwork: "invalid_request",
  RouteNotFound: "invalid_request",
  AlreadyExists: "invalid_request",
  IdempotencyKeyReused: "invalid_request",
  IdempotencyKeyRunning: "invalid_request",
  ChangedMeanwhile: "invalid_request",
  PayloadTooLarge: "invalid_request",
  TooManyRequests: "slow_down",
  ServerError: "server_error",
  ServiceUnavailable: "temporarily_unavailable",
  WebhookNotFound: "invalid_request"
} as const satisfies Record<ApiErrorTag, string>

export interface OAuthErrorBody {
  readonly error: string
  readonly error_description: string
  readonly msg: string
}

/** The body and status an OAuth endpoint answers for a failure. */
export const oauthError = (e: ApiError): { readonly status: number; readonly body: OAuthErrorBody } => {
  const text = errorBody(e).error
  return { status: restStatus[e._tag], body: { error: oauthErrorCode[e._tag], error_description: text, msg: text } }
}

/**
 * The status of each of the protocol's own errors (RFC 6749 5.2: 400, and 401 for a
 * client that failed to authenticate; RFC 7591 3.2.2 and RFC 8628 3.5: 400).
 */
export const oauthProblemStatus = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  authorization_pending: 400,
  slow_down: 400,
  access_denied: 400,
  expired_token: 400
} as const satisfies Record<OAuthErrorCode, number>

/** The one mapping of the OAuth surface: a protocol error or a case of the catalog, to status, body and headers. */
export const oauthFailure = (
  e: OAuthProblem | ApiError
): { readonly status: number; readonly body: OAuthErrorBody; readonly headers: Readonly<Record<string, string>> } => {
  if (e._tag === "OAuthProblem") {
    return {
      status: oauthProblemStatus[e.error],
      body: { error: e.error, error_description: e.description, msg: e.description },
      headers: {}
    }
  }
  return { ...oauthError(e), headers: e.retryAfter !== undefined ? { "retry-after": String(e.retryAfter) } : {} }
}
