import { Effect, Option, Schema } from "effect"
import { ConnectFailed, type Credentials, type NetworkAnswer, Refresh } from "./adapter.js"
import { decodeBody, excerpt, isSuccess } from "./networkHttp.js"

/** An OAuth 2.0 token answer (RFC 6749 §5.1), as X and LinkedIn give it. */
export const TokenAnswer = Schema.Struct({
  access_token: Schema.String,
  refresh_token: Schema.optional(Schema.String),
  expires_in: Schema.optional(Schema.Number)
})
export type TokenAnswer = typeof TokenAnswer.Type

/** Stored OAuth credentials as the refresh sees them. */
interface OAuthCredentials extends Credentials {
  readonly expiresAt: string
  readonly refreshToken: string
}

/** The fields a token answer sets: a network that does not rotate the refresh token keeps the old one. */
export const fromTokenAnswer = (t: TokenAnswer, previousRefresh: string, defaultLifetimeSeconds: number) => ({
  accessToken: t.access_token,
  refreshToken: t.refresh_token ?? previousRefresh,
  expiresAt: new Date(Date.now() + (t.expires_in ?? defaultLifetimeSeconds) * 1000).toISOString()
})

/**
 * The refresh of an OAuth 2.0 network (grant_type=refresh_token): nothing while the token
 * has more than `marginMs` left; the network down (transport, 5xx, 429) is Unavailable
 * (keep the channel); any other refusal is Failed (the channel must be reconnected).
 */
export const refreshOAuth = <C extends OAuthCredentials>(
  current: C,
  options: {
    readonly marginMs: number
    readonly defaultLifetimeSeconds: number
    readonly exchange: (refreshToken: string) => Effect.Effect<NetworkAnswer>
  }
): Effect.Effect<Refresh> =>
  Effect.gen(function* () {
    if (Date.parse(current.expiresAt) - Date.now() > options.marginMs) return Refresh.Unchanged()
    const answer = yield* options.exchange(current.refreshToken)
    if (answer._tag === "Failed") return Refresh.Unavailable({ reason: answer.error._tag })
    const { response } = answer
    if (response.status >= 500 || response.status === 429) return Refresh.Unavailable({ reason: `HTTP ${response.status}` })
    const t = isSuccess(response) ? decodeBody(TokenAnswer, response) : Option.none()
    if (Option.isNone(t)) return Refresh.Failed({ reason: `HTTP ${response.status}: ${excerpt(response, 120)}` })
    const fresh: Credentials = { ...current, ...fromTokenAnswer(t.value, current.refreshToken, options.defaultLifetimeSeconds) }
    return Refresh.Refreshed({ credentials: fresh })
  })

/**
 * The admin CLI's credentials of an OAuth network as `verify` takes them: `expiresAt` must
 * be a date, and a token that expires soon is refreshed first, as before a publish, so the
 * channel is saved with tokens that work. A refused refresh (or the network unreachable) is
 * a ConnectFailed naming `refusedBy`; the answer is the refreshed credentials, else the given.
 */
export const verifiedTokens = <C extends OAuthCredentials, I>(
  given: C,
  schema: Schema.Schema<C, I>,
  options: { readonly network: string; readonly refusedBy: string; readonly refresh: (c: C) => Effect.Effect<Refresh> }
): Effect.Effect<C, ConnectFailed> =>
  Effect.gen(function* () {
    if (Number.isNaN(Date.parse(given.expiresAt)))
      return yield* new ConnectFailed({ message: `${options.network} credentials: expiresAt is not an ISO 8601 date.` })
    const refreshed = yield* options.refresh(given)
    if (refreshed._tag === "Failed" || refreshed._tag === "Unavailable")
      return yield* new ConnectFailed({ message: `${options.refusedBy} refused to refresh the token: ${refreshed.reason}` })
    return refreshed._tag === "Refreshed" ? Option.getOrElse(Schema.decodeUnknownOption(schema)(refreshed.credentials), () => given) : given
  })
