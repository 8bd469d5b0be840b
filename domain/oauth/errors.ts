import { Schema } from "effect"

/**
 * The OAuth protocol's own errors (RFC 6749 5.2, RFC 7591 3.2.2, RFC 8628 3.5), with the
 * text of each case written once. They stay surface-free like the catalog in
 * domain/errors.ts: protocol/oauth/errors.ts gives them their status and JSON body.
 */
export const OAuthErrorCodes = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "authorization_pending",
  "slow_down",
  "access_denied",
  "expired_token"
] as const
export type OAuthErrorCode = (typeof OAuthErrorCodes)[number]

export class OAuthProblem extends Schema.TaggedError<OAuthProblem>()("OAuthProblem", {
  error: Schema.Literal(...OAuthErrorCodes),
  description: Schema.String
}) {}

const problem = (error: OAuthErrorCode, description: string) => new OAuthProblem({ error, description })

export const OAuthMessages = {
  pkceFailed: "PKCE check failed",
  unknownClient: "Unknown client_id. Register the app with POST /oauth/register first.",
  wrongClientSecret: "The client_secret is wrong or missing.",
  unknownCode: "The code is unknown, was already used or has expired. Start the authorization again.",
  codeOfAnotherClient: "The code was issued to another client.",
  redirectMismatch: "redirect_uri must be the one the code was requested with.",
  unknownDeviceCode: "Unknown device code, or the token was already collected.",
  authorizationPending: "The person has not approved the request yet. Poll again after the interval.",
  slowDown: "Polling too fast. Wait the interval (3 seconds, plus 5 after each slow_down) between polls.",
  accessDenied: "The person denied the request.",
  expiredToken: "The device code has expired (after 600 seconds). Start again with POST /oauth/device/code.",
  unsupportedGrantType: "grant_type must be authorization_code or urn:ietf:params:oauth:grant-type:device_code.",
  bodyUnreadable: "The body must be JSON or form-encoded (application/x-www-form-urlencoded) with text fields.",
  registrationNotJson: "The body must be a JSON object with the client's metadata (RFC 7591).",
  redirectUrisRequired: "redirect_uris is required: a list of at least one address.",
  authMethod: "token_endpoint_auth_method must be none or client_secret_post.",
  clientNameLength: (max: number) => `client_name may be up to ${max} characters.`,
  redirectUrisCount: (max: number) => `redirect_uris may hold up to ${max} addresses.`,
  missingField: (field: string) => `Missing field ${field}.`,
  wrongField: (field: string) => `Wrong field ${field}: it must be text.`,
  repeatedField: (field: string) => `Send ${field} once: it appears more than once.`
} as const

export const OAuthErrors = {
  missingField: (field: string) => problem("invalid_request", OAuthMessages.missingField(field)),
  wrongField: (field: string) => problem("invalid_request", OAuthMessages.wrongField(field)),
  repeatedField: (field: string) => problem("invalid_request", OAuthMessages.repeatedField(field)),
  bodyUnreadable: () => problem("invalid_request", OAuthMessages.bodyUnreadable),
  unknownClient: () => problem("invalid_client", OAuthMessages.unknownClient),
  wrongClientSecret: () => problem("invalid_client", OAuthMessages.wrongClientSecret),
  pkceFailed: () => problem("invalid_grant", OAuthMessages.pkceFailed),
  unknownCode: () => problem("invalid_grant", OAuthMessages.unknownCode),
  codeOfAnotherClient: () => problem("invalid_grant", OAuthMessages.codeOfAnotherClient),
  redirectMismatch: () => problem("invalid_grant", OAuthMessages.redirectMismatch),
  unknownDeviceCode: () => problem("invalid_grant", OAuthMessages.unknownDeviceCode),
  authorizationPending: () => problem("authorization_pending", OAuthMessages.authorizationPending),
  slowDown: () => problem("slow_down", OAuthMessages.slowDown),
  accessDenied: () => problem("access_denied", OAuthMessages.accessDenied),
  expiredToken: () => problem("expired_token", OAuthMessages.expiredToken),
  unsupportedGrantType: () => problem("unsupported_grant_type", OAuthMessages.unsupportedGrantType),
  invalidRedirectUri: (why: string) => problem("invalid_redirect_uri", why),
  invalidClientMetadata: (why: string) => problem("invalid_client_metadata", why)
} as const
