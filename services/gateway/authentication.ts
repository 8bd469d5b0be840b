import { HttpRouter, HttpServerRequest } from "@effect/platform"
import { Context, Effect, FiberRef, Layer, Option, Redacted } from "effect"
import { billingGate } from "../../domain/billing.js"
import { Errors } from "../../domain/errors.js"
import { WorkspaceId } from "../../domain/ids.js"
import { isRole, stripBearer, tokenKindOf, type Principal } from "../../domain/roles.js"
import { Authentication } from "../../protocol/http/security.js"
import { currentRequestFields } from "../platform/logging.js"
import { tokenHash } from "../platform/secrets.js"
import { makeTokensRepo, type TokenRow } from "../repos/tokensRepo.js"
import { markRoute } from "./requestMetrics.js"
import { TokenCache } from "./tokenCache.js"

type AuthenticationError = Effect.Effect.Error<ReturnType<typeof principalOf>> | ReturnType<typeof Errors.noApiKey>

/** The rules of the spec's Authentication part, given the stored token row. */
export const principalOf = (token: string, row: TokenRow, now: Date) => {
  if (tokenKindOf(token) !== row.kind) return Effect.fail(Errors.invalidApiKey())
  let principal: Principal
  if (row.kind === "live") {
    // a workspace key stops working while the owner's account is suspended (rule 3)
    if (row.ownerSuspended === true) return Effect.fail(Errors.invalidApiKey())
    principal = { workspaceId: WorkspaceId.make(row.workspaceId), userId: null, role: "admin", tokenKind: "live", actor: "API" }
  } else {
    // a person's token works only while they are a member and not suspended
    if (row.role === null || !isRole(row.role) || row.userSuspended === true || row.userId === null) {
      return Effect.fail(Errors.invalidApiKey())
    }
    principal = {
      workspaceId: WorkspaceId.make(row.workspaceId),
      userId: row.userId,
      role: row.role,
      tokenKind: row.kind,
      actor: row.userEmail ?? "API"
    }
  }
  const gate = billingGate(row.billingState, row.pastDueSince, now)
  if (gate !== null) return Effect.fail(gate)
  if (row.ownerEmailVerified === false) return Effect.fail(Errors.emailNotVerified())
  if (row.memberPaused === true && principal.role !== "owner") return Effect.fail(Errors.memberPaused())
  return Effect.succeed(principal)
}

/**
 * Authenticates the raw `Authorization` header value: the token's row from the cache
 * (tokenCache.ts: dropped on every change that commits), else from Postgres; the rules
 * applied to it on every request.
 */
export const makeAuthenticate = Effect.gen(function* () {
  const { findByHash } = yield* makeTokensRepo
  const cache = yield* TokenCache
  const lookup = (hash: Buffer) => cache.lookup(hash, findByHash(hash))
  // plain combinators rather than a generator: this runs on every request
  return (header: string) => {
    const token = stripBearer(header)
    if (token === "") return Effect.fail(Errors.noApiKey())
    if (tokenKindOf(token) === null) return Effect.fail(Errors.invalidApiKey())
    return Effect.flatMap(
      Effect.orDie(lookup(tokenHash(token))),
      (row): Effect.Effect<Principal, AuthenticationError> =>
        Option.isNone(row) ? Effect.fail(Errors.invalidApiKey()) : principalOf(token, row.value, new Date())
    )
  }
})

/** The rest of the request's log lines name the workspace (logs: `workspaceId`). */
const annotateWorkspace = (principal: Principal) =>
  Effect.map(FiberRef.get(currentRequestFields), (fields) => {
    if (fields !== null) fields.workspaceId = principal.workspaceId
  })

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticate = yield* makeAuthenticate
    return Authentication.of({
      apiKey: (key) =>
        Effect.contextWithEffect((context: Context.Context<HttpRouter.RouteContext | HttpServerRequest.HttpServerRequest>) => {
          // every API route passes here once matched: its template labels the HTTP metrics
          markRoute(Context.get(context, HttpServerRequest.HttpServerRequest).source, Context.get(context, HttpRouter.RouteContext).route.path)
          return authenticate(Redacted.value(key)).pipe(Effect.tap(annotateWorkspace))
        })
    })
  })
)
