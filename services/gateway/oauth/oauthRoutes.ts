import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { type ApiError, Errors } from "../../../domain/errors.js"
import { OAuthErrors, OAuthMessages, type OAuthProblem } from "../../../domain/oauth/errors.js"
import { deviceCodePerHour, oauthRegisterPerHour, oauthTokenPerHour, type RateLimit } from "../../../domain/rateWindow.js"
import { oauthFailure } from "../../../protocol/oauth/errors.js"
import { authorizationServerMetadata, OAuthPaths, protectedResourceMetadata } from "../../../protocol/oauth/metadata.js"
import { RateWindows } from "../../actors/rateWindows.js"
import { clientIp } from "../../oauth/clientIp.js"
import { OAuth, type Fields } from "../../oauth/OAuth.js"
import { AppConfig } from "../../platform/config.js"
import { isRedisUnavailable } from "../../platform/redis.js"

/**
 * The OAuth endpoints that answer JSON (spec: OAuth 2.0 for apps): discovery metadata,
 * registration, token, revocation and device codes. Each failure is the protocol's own
 * JSON (`error`, `error_description`, `msg`) through the one mapping in
 * protocol/oauth/errors.ts; answers are never cached. Browser-based clients (an MCP
 * inspector) may call them from another origin: no cookies are involved, so any origin may.
 */

const cors = { "access-control-allow-origin": "*" } as const
const noStore = { "cache-control": "no-store", pragma: "no-cache" } as const

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status, headers: { ...cors, ...noStore } })

const failure = (e: OAuthProblem | ApiError) => {
  const { status, body, headers } = oauthFailure(e)
  return HttpServerResponse.unsafeJson(body, { status, headers: { ...cors, ...noStore, ...headers } })
}

const preflight = HttpServerResponse.empty({
  status: 204,
  headers: {
    ...cors,
    "access-control-allow-methods": "GET, POST, OPTIONS",
    "access-control-allow-headers": "content-type, authorization, mcp-protocol-version",
    "access-control-max-age": "600"
  }
})

/** The body of a token or revoke request: form-encoded or JSON, each field text and sent once. */
const readFields = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const text = yield* request.text.pipe(Effect.mapError(() => OAuthErrors.bodyUnreadable()))
  if (text.trim() === "") return {} as Fields
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (contentType.includes("json")) {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return yield* Effect.fail(Errors.invalidJson())
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) return yield* Effect.fail(OAuthErrors.bodyUnreadable())
    const fields: Record<string, string> = {}
    for (const [k, v] of Object.entries(body)) {
      if (typeof v !== "string") return yield* Effect.fail(OAuthErrors.wrongField(k))
      fields[k] = v
    }
    return fields as Fields
  }
  if (contentType !== "" && !contentType.includes("application/x-www-form-urlencoded")) return yield* Effect.fail(OAuthErrors.bodyUnreadable())
  const fields: Record<string, string> = {}
  for (const [k, v] of new URLSearchParams(text)) {
    // RFC 6749 3.2: a parameter sent twice is an invalid request, not a choice for the server
    if (k in fields) return yield* Effect.fail(OAuthErrors.repeatedField(k))
    fields[k] = v
  }
  return fields as Fields
})

export const OAuthRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const oauth = yield* OAuth
    const windows = yield* RateWindows
    const { publicUrl, trustProxy } = yield* AppConfig

    /** The per-IP window of an endpoint (spec: Limits), shared by every gateway through Redis. */
    const window = (name: string, rate: RateLimit) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const decision = yield* windows.take(clientIp(request, trustProxy), name, rate)
        if (!decision.allowed) return yield* Effect.fail(Errors.tooManyRequests(decision.retryAfterSeconds))
      })

    const answer = <A>(effect: Effect.Effect<A, OAuthProblem | ApiError, HttpServerRequest.HttpServerRequest>, status = 200) =>
      effect.pipe(
        Effect.map((body) => json(body, status)),
        Effect.catchAll((e) => Effect.succeed(failure(e))),
        // codes and device codes live in Redis: while it is away, OAuth's own temporarily_unavailable (503, Retry-After)
        Effect.catchSomeDefect((d) => (isRedisUnavailable(d) ? Option.some(Effect.succeed(failure(Errors.serviceUnavailable()))) : Option.none()))
      )

    const asMetadata = json(authorizationServerMetadata(publicUrl))
    const resourceMetadata = json(protectedResourceMetadata(publicUrl))
    yield* router.get(OAuthPaths.authorizationServerMetadata, Effect.succeed(asMetadata))
    yield* router.get(OAuthPaths.protectedResourceMetadata, Effect.succeed(resourceMetadata))
    yield* router.get(OAuthPaths.protectedResourceMetadataMcp, Effect.succeed(resourceMetadata))

    yield* router.post(
      OAuthPaths.register,
      answer(
        Effect.gen(function* () {
          yield* window("oauth.register", oauthRegisterPerHour)
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = yield* request.json.pipe(Effect.mapError(() => OAuthErrors.invalidClientMetadata(OAuthMessages.registrationNotJson)))
          return yield* oauth.register(body)
        }),
        201
      )
    )

    yield* router.post(
      OAuthPaths.token,
      answer(Effect.zipRight(window("oauth.token", oauthTokenPerHour), Effect.flatMap(readFields, oauth.exchange)))
    )

    // RFC 7009: 200 whatever the token, so the answer tells nothing about it
    yield* router.post(
      OAuthPaths.revoke,
      readFields.pipe(
        Effect.flatMap((fields) => oauth.revoke(fields["token"] ?? "")),
        Effect.ignore,
        Effect.as(json({}))
      )
    )

    yield* router.post(OAuthPaths.deviceCode, answer(Effect.zipRight(window("oauth.device", deviceCodePerHour), oauth.startDevice)))

    for (const path of [
      OAuthPaths.authorizationServerMetadata,
      OAuthPaths.protectedResourceMetadata,
      OAuthPaths.protectedResourceMetadataMcp,
      OAuthPaths.register,
      OAuthPaths.token,
      OAuthPaths.revoke,
      OAuthPaths.deviceCode
    ]) {
      yield* router.options(path, Effect.succeed(preflight))
    }
  })
)
