import { randomBytes, randomUUID, timingSafeEqual } from "node:crypto"
import { Data, Effect, Either, Option, Schema } from "effect"
import { pollAnswer } from "../../domain/oauth/deviceFlow.js"
import { OAuthErrors, OAuthMessages, type OAuthProblem } from "../../domain/oauth/errors.js"
import { redirectUriProblem } from "../../domain/oauth/redirectUris.js"
import { GrantTypes, OAuthRules, TokenEndpointAuthMethods } from "../../domain/oauth/rules.js"
import { OAuthPaths } from "../../protocol/oauth/metadata.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { AppConfig } from "../platform/config.js"
import { policyRequire } from "../platform/policy.js"
import { newToken, tokenHash } from "../platform/secrets.js"
import { PersonTokensRepo } from "../people/personTokensRepo.js"
import { OAuthClientsRepo, type OAuthClientRow } from "./oauthClientsRepo.js"
import { isS256Challenge, pkceMatches } from "./pkce.js"
import { ShortLivedState, type DeviceDecision } from "./shortLivedState.js"
import { withSpan } from "../platform/tracing.js"

/** An authorize request that cannot name a trusted redirect address: shown as a page, never redirected. */
export class AuthorizeNotShown extends Data.TaggedError("AuthorizeNotShown")<{ readonly message: string }> {}
/** An authorize request with a good client and redirect address but a bad parameter: sent back to the app. */
export class AuthorizeRedirect extends Data.TaggedError("AuthorizeRedirect")<{ readonly location: string }> {}

/** A checked authorization request, as the Allow screen shows it. */
export interface AuthorizationRequest {
  readonly clientId: string
  readonly clientName: string
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly state: string | null
}

export type Fields = Readonly<Record<string, string>>

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)

/** `redirect_uri` with the answer's parameters added (its own query kept). */
export const redirectWith = (redirectUri: string, params: Readonly<Record<string, string | null>>): string => {
  const url = new URL(redirectUri)
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v)
  return url.toString()
}

const sameSecret = (stored: Uint8Array, given: string) => {
  const hash = tokenHash(given)
  return stored.length === hash.length && timingSafeEqual(stored, hash)
}

/** A registration's body: a JSON object (RFC 7591 client metadata), its fields checked one by one below. */
const decodeMetadata = Schema.decodeUnknownOption(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const isAuthMethod = Schema.is(Schema.Literal(...TokenEndpointAuthMethods))

const textField = (body: Readonly<Record<string, unknown>>, field: string): Either.Either<string | undefined, OAuthProblem> => {
  const v = body[field]
  if (v === undefined || v === null) return Either.right(undefined)
  return typeof v === "string" ? Either.right(v) : Either.left(OAuthErrors.invalidClientMetadata(OAuthMessages.wrongField(field)))
}

/**
 * OAuth 2.0 for apps and the device flow (spec: Authentication → OAuth 2.0 for apps):
 * registration, the authorization request and the person's Allow / Cancel, the token
 * endpoint's two grants, revocation, and the device codes. Every edge (JSON endpoints,
 * the Allow and device pages) calls these methods.
 */
export class OAuth extends Effect.Service<OAuth>()("oauth/OAuth", {
  effect: Effect.gen(function* () {
    const clients = yield* OAuthClientsRepo
    const tokens = yield* PersonTokensRepo
    const state = yield* ShortLivedState
    const { publicUrl } = yield* AppConfig

    const findClient = (clientId: string) =>
      isUuid(clientId) ? clients.findById(clientId).pipe(Effect.orDie) : Effect.succeed(Option.none<OAuthClientRow>())

    /** POST /oauth/register (RFC 7591): the 201 answer, with the secret only here for client_secret_post. */
    const register = (body: unknown) =>
      Effect.gen(function* () {
        const decoded = decodeMetadata(body)
        if (Option.isNone(decoded)) return yield* OAuthErrors.invalidClientMetadata(OAuthMessages.registrationNotJson)
        const fields = decoded.value
        const uris = fields["redirect_uris"]
        if (!Array.isArray(uris) || uris.length === 0) return yield* OAuthErrors.invalidRedirectUri(OAuthMessages.redirectUrisRequired)
        if (uris.length > OAuthRules.redirectUrisMax)
          return yield* OAuthErrors.invalidRedirectUri(OAuthMessages.redirectUrisCount(OAuthRules.redirectUrisMax))
        const redirectUris: Array<string> = []
        for (const uri of uris) {
          if (typeof uri !== "string") return yield* OAuthErrors.invalidRedirectUri(OAuthMessages.redirectUrisRequired)
          const problem = redirectUriProblem(uri, OAuthRules.redirectUriMaxLength)
          if (problem !== null) return yield* OAuthErrors.invalidRedirectUri(problem)
          redirectUris.push(uri)
        }
        const name = (yield* textField(fields, "client_name"))?.trim() ?? ""
        if (name.length > OAuthRules.clientNameMax)
          return yield* OAuthErrors.invalidClientMetadata(OAuthMessages.clientNameLength(OAuthRules.clientNameMax))
        const method = (yield* textField(fields, "token_endpoint_auth_method")) ?? "none"
        if (!isAuthMethod(method)) return yield* OAuthErrors.invalidClientMetadata(OAuthMessages.authMethod)
        const authMethod = method
        const secret = authMethod === "client_secret_post" ? randomBytes(32).toString("base64url") : null
        const row = yield* clients
          .insert({
            id: randomUUID(),
            clientName: name === "" ? OAuthRules.unnamedApp : name,
            redirectUris,
            tokenEndpointAuthMethod: authMethod,
            secretHash: secret === null ? null : tokenHash(secret)
          })
          .pipe(Effect.orDie)
        return {
          client_id: row.id,
          client_name: row.clientName,
          redirect_uris: row.redirectUris,
          grant_types: [GrantTypes.authorizationCode],
          response_types: ["code"],
          token_endpoint_auth_method: row.tokenEndpointAuthMethod,
          client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
          ...(secret === null ? {} : { client_secret: secret })
        }
      }).pipe(withSpan("OAuth.register"))

    /**
     * GET /oauth/authorize's parameters. An unknown client or a redirect address that is
     * not exactly a registered one is shown as a page (never redirected: RFC 6749 4.1.2.1);
     * other faults go back to the app with `error` and `state`.
     */
    const checkAuthorization = (query: Fields) =>
      Effect.gen(function* () {
        const clientId = query["client_id"] ?? ""
        const client = yield* findClient(clientId)
        if (Option.isNone(client)) {
          return yield* new AuthorizeNotShown({
            message: "This app is not registered (unknown client_id). Ask the app's maker to register it again."
          })
        }
        const redirectUri = query["redirect_uri"] ?? ""
        if (!client.value.redirectUris.includes(redirectUri)) {
          return yield* new AuthorizeNotShown({
            message: "The app asked to send you to an address it has not registered (redirect_uri). Nothing was shared."
          })
        }
        const stateParam = query["state"] ?? null
        const back = (error: string, description: string) =>
          new AuthorizeRedirect({ location: redirectWith(redirectUri, { error, error_description: description, state: stateParam }) })
        if (query["response_type"] !== "code") return yield* back("unsupported_response_type", "response_type must be code.")
        const challenge = query["code_challenge"] ?? ""
        if (query["code_challenge_method"] !== "S256") {
          return yield* back("invalid_request", "PKCE is required: code_challenge_method must be S256 (plain is refused).")
        }
        if (!isS256Challenge(challenge)) {
          return yield* back("invalid_request", "code_challenge is required: the base64url SHA-256 of the code verifier, without padding.")
        }
        return {
          clientId: client.value.id,
          clientName: client.value.clientName,
          redirectUri,
          codeChallenge: challenge,
          state: stateParam
        } satisfies AuthorizationRequest
      }).pipe(withSpan("OAuth.checkAuthorization"))

    /** Allow on the Allow screen, for the workspace of the current principal: the app's address with a new code. */
    const allow = (request: AuthorizationRequest) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const code = randomBytes(32).toString("base64url")
        yield* state.putCode(code, {
          clientId: request.clientId,
          redirectUri: request.redirectUri,
          codeChallenge: request.codeChallenge,
          workspaceId: principal.workspaceId,
          userId: principal.userId ?? ""
        })
        return redirectWith(request.redirectUri, { code, state: request.state })
      }).pipe(withSpan("OAuth.allow"), policyRequire("apps.approve"))

    /** Cancel on the Allow screen: back to the app with access_denied, nothing issued. */
    const cancel = (request: AuthorizationRequest) => redirectWith(request.redirectUri, { error: "access_denied", state: request.state })

    const issue = (input: { workspaceId: string; userId: string; kind: "oat" | "cli"; label: string; oauthClientId: string | null }) =>
      Effect.gen(function* () {
        const token = newToken(input.kind === "oat" ? "svc_oat_" : "svc_cli_")
        yield* tokens.insert({ id: randomUUID(), tokenHash: tokenHash(token), ...input }).pipe(Effect.orDie)
        return { access_token: token, token_type: "Bearer", scope: OAuthRules.scope }
      })

    const required = (fields: Fields, name: string) => {
      const v = fields[name]
      return v === undefined || v === "" ? Effect.fail(OAuthErrors.missingField(name)) : Effect.succeed(v)
    }

    /** The code grant: the code is taken first, so any failure after it uses it up (spec). */
    const codeGrant = (fields: Fields) =>
      Effect.gen(function* () {
        const code = yield* required(fields, "code")
        const clientId = yield* required(fields, "client_id")
        const redirectUri = yield* required(fields, "redirect_uri")
        const verifier = yield* required(fields, "code_verifier")
        const grant = yield* state.takeCode(code)
        if (Option.isNone(grant)) return yield* OAuthErrors.unknownCode()
        const client = yield* findClient(clientId)
        if (Option.isNone(client)) return yield* OAuthErrors.unknownClient()
        const secretHash = client.value.secretHash
        if (secretHash !== null && !sameSecret(secretHash, fields["client_secret"] ?? "")) return yield* OAuthErrors.wrongClientSecret()
        if (grant.value.clientId !== client.value.id) return yield* OAuthErrors.codeOfAnotherClient()
        if (grant.value.redirectUri !== redirectUri) return yield* OAuthErrors.redirectMismatch()
        if (!pkceMatches(verifier, grant.value.codeChallenge)) return yield* OAuthErrors.pkceFailed()
        return yield* issue({
          workspaceId: grant.value.workspaceId,
          userId: grant.value.userId,
          kind: "oat",
          label: client.value.clientName,
          oauthClientId: client.value.id
        })
      })

    /** The device grant: the spec's poll table (domain/oauth/deviceFlow.ts); the token once. */
    const deviceGrant = (fields: Fields) =>
      Effect.gen(function* () {
        const deviceCode = yield* required(fields, "device_code")
        const approved = yield* Effect.flatMap(state.pollDevice(deviceCode), (poll) =>
          Either.match(pollAnswer(poll), { onLeft: Effect.fail, onRight: Effect.succeed })
        )
        return yield* issue({ ...approved, kind: "cli", label: OAuthRules.commandLineLabel, oauthClientId: null })
      })

    /** POST /oauth/token. */
    const exchange = (fields: Fields) =>
      Effect.gen(function* () {
        const grantType = yield* required(fields, "grant_type")
        if (grantType === GrantTypes.authorizationCode) return yield* codeGrant(fields)
        if (grantType === GrantTypes.deviceCode) return yield* deviceGrant(fields)
        return yield* OAuthErrors.unsupportedGrantType()
      }).pipe(withSpan("OAuth.exchange"))

    /** POST /oauth/revoke (RFC 7009): an OAuth or CLI token stops working at once; anything else is ignored. */
    const revoke = (token: string) =>
      (token.startsWith("svc_oat_") || token.startsWith("svc_cli_") ? tokens.revokeByHash(tokenHash(token)).pipe(Effect.orDie) : Effect.void).pipe(
        withSpan("OAuth.revoke")
      )

    /** POST /oauth/device/code. */
    const startDevice = Effect.gen(function* () {
      const { deviceCode, userCode } = yield* state.startDevice()
      const verificationUri = `${publicUrl}${OAuthPaths.device}`
      return {
        device_code: deviceCode,
        user_code: userCode,
        verification_uri: verificationUri,
        verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
        expires_in: OAuthRules.deviceCodeTtlSeconds,
        interval: OAuthRules.pollIntervalSeconds
      }
    }).pipe(withSpan("OAuth.startDevice"))

    const devicePending = (userCode: string) => state.isPending(userCode)

    /** Approve or Deny on the verification page, for the workspace of the current principal. */
    const decideDevice = (userCode: string, decision: DeviceDecision) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        return yield* state.decideDevice(userCode, decision, { workspaceId: principal.workspaceId, userId: principal.userId ?? "" })
      }).pipe(withSpan("OAuth.decideDevice"), policyRequire("apps.approve"))

    return { register, checkAuthorization, allow, cancel, exchange, revoke, startDevice, devicePending, decideDevice }
  }),
  dependencies: [OAuthClientsRepo.Live, PersonTokensRepo.Live, ShortLivedState.Live]
}) {}
