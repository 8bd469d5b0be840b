import { type ApiError, type ApiErrorTag, errorBody } from "../../domain/errors.js"
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
  PlanLimit: "access_denied",
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
