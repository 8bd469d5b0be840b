import { Config, Effect, Option, Redacted, Schema } from "effect"
import { ConnectFailed, type Connected, type NetworkAdapter, Refresh } from "../adapter.js"
import { decodeForVerify, readCredentials } from "../adapterKit.js"
import { connectFailedGraph, GRAPH_VERSION, graphGet, LongLivedToken, readGraph, refreshLongLived } from "../metaGraph.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, trimBase } from "../networkHttp.js"
import { instagramAdapterMethods, makeInstagramPublishing } from "./graphPublishing.js"

/**
 * Instagram through Instagram Login (developers.facebook.com/docs/instagram-platform/
 * instagram-api-with-instagram-login): the person signs in on instagram.com, the code
 * becomes a short-lived token (api.instagram.com/oauth/access_token), then a long-lived
 * one of 60 days (`ig_exchange_token`), refreshed ahead of its expiry with
 * `GET /refresh_access_token?grant_type=ig_refresh_token`. Business and Creator accounts
 * only. Publishing is the same as with Facebook Login, on graph.instagram.com.
 */
const NAME = "Instagram"
const SCOPES = "instagram_business_basic,instagram_business_content_publish,instagram_business_manage_comments,instagram_business_manage_insights"
/** Long-lived tokens last 60 days; refresh a week ahead (a refresh needs a token that is still valid). */
const REFRESH_MARGIN_MS = 7 * 86_400_000

export interface InstagramStandaloneOptions {
  /** graph.instagram.com */
  readonly apiUrl: string
  /** www.instagram.com (the sign-in page) */
  readonly authUrl: string
  /** api.instagram.com (the code exchange) */
  readonly tokenUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({ accessToken: Schema.String, igUserId: Schema.String, expiresAt: Schema.String })
type Stored = typeof Stored.Type
/** The code exchange answers `{access_token, user_id}`, newer versions inside `data: [...]`. */
const ShortToken = Schema.Union(
  Schema.Struct({ access_token: Schema.String }),
  Schema.Struct({ data: Schema.NonEmptyArray(Schema.Struct({ access_token: Schema.String })) })
)
const Me = Schema.Struct({
  user_id: Schema.String,
  username: Schema.String,
  name: Schema.optional(Schema.String),
  account_type: Schema.optional(Schema.String),
  profile_picture_url: Schema.optional(Schema.String)
})
type Me = typeof Me.Type

const PROFESSIONAL = new Set(["BUSINESS", "MEDIA_CREATOR", "CREATOR"])

export const makeInstagramStandaloneAdapterWith = (options: InstagramStandaloneOptions) =>
  Effect.gen(function* () {
    const deps = yield* NetworkDeps
    const { outbound } = deps
    const api = trimBase(options.apiUrl)
    const graph = `${api}/${GRAPH_VERSION}`
    const auth = trimBase(options.authUrl)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const credentialsOf = readCredentials(Stored, NAME)
    const publishing = makeInstagramPublishing({ name: NAME, graph, deps })

    const whoIs = (token: string) =>
      Effect.gen(function* () {
        const answer = yield* graphGet(outbound, `${graph}/me?fields=user_id,username,name,account_type,profile_picture_url`, token)
        const me = readGraph(Me, answer)
        if (Option.isNone(me)) return yield* connectFailedGraph(NAME, answer)
        if (me.value.account_type !== undefined && !PROFESSIONAL.has(me.value.account_type))
          return yield* new ConnectFailed({
            message: `@${me.value.username} is a personal Instagram account; only Business and Creator accounts can publish. Switch it to a professional account, then connect again.`
          })
        return me.value
      })

    const connected = (stored: Stored, me: Me): Connected => ({
      credentials: stored,
      profile: { accountId: me.user_id, name: me.name ?? me.username, profile: me.username, picture: me.profile_picture_url ?? null }
    })

    const exchange = (code: string, redirectUri: string) =>
      Effect.gen(function* () {
        const shortAnswer = yield* call(outbound, {
          url: options.tokenUrl,
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body: new URLSearchParams({
            client_id: clientId ?? "",
            client_secret: clientSecret ?? "",
            grant_type: "authorization_code",
            redirect_uri: redirectUri,
            code
          }).toString()
        })
        const short = readGraph(ShortToken, shortAnswer)
        if (Option.isNone(short)) return yield* connectFailedGraph(NAME, shortAnswer)
        const shortToken = "data" in short.value ? short.value.data[0].access_token : short.value.access_token
        const longAnswer = yield* graphGet(
          outbound,
          `${api}/access_token?${new URLSearchParams({ grant_type: "ig_exchange_token", client_secret: clientSecret ?? "" }).toString()}`,
          shortToken
        )
        const long = readGraph(LongLivedToken, longAnswer)
        if (Option.isNone(long)) return yield* connectFailedGraph(NAME, longAnswer)
        const me = yield* whoIs(long.value.access_token)
        return connected(
          {
            accessToken: long.value.access_token,
            igUserId: me.user_id,
            expiresAt: new Date(Date.now() + (long.value.expires_in ?? 5_184_000) * 1000).toISOString()
          },
          me
        )
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, igUserId and expiresAt (ISO 8601)")(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: "Instagram credentials: expiresAt is not an ISO 8601 date." })
        const me = yield* whoIs(given.accessToken)
        if (me.user_id !== given.igUserId)
          return yield* new ConnectFailed({ message: `The token belongs to the Instagram account ${me.user_id}, not igUserId ${given.igUserId}.` })
        return connected(given, me)
      })

    const adapter: NetworkAdapter = {
      identifier: "instagram-standalone",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Instagram is not set up on this server (INSTAGRAM_STANDALONE_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/authorize?${new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: "code", scope: SCOPES, state }).toString()}`
              ),
        exchange: ({ code, redirectUri }) => exchange(code, redirectUri)
      },
      verify,
      refresh: (credentials) =>
        Effect.flatMap(
          Effect.option(credentialsOf(credentials)),
          Option.match({
            onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })),
            onSome: (c) =>
              refreshLongLived(c, REFRESH_MARGIN_MS, (token) => graphGet(outbound, `${api}/refresh_access_token?grant_type=ig_refresh_token`, token))
          })
        ),
      ...instagramAdapterMethods(NAME, credentialsOf, publishing)
    }
    return adapter
  })

export const makeInstagramStandaloneAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.option(Config.string("INSTAGRAM_STANDALONE_API_URL")).pipe(Effect.orDie)
  const authUrl = yield* Config.option(Config.string("INSTAGRAM_STANDALONE_AUTH_URL")).pipe(Effect.orDie)
  const keys = yield* Config.all({
    clientId: Config.option(Config.string("INSTAGRAM_STANDALONE_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("INSTAGRAM_STANDALONE_CLIENT_SECRET"))
  }).pipe(Effect.orDie)
  return yield* makeInstagramStandaloneAdapterWith({
    apiUrl: Option.getOrElse(apiUrl, () => "https://graph.instagram.com"),
    authUrl: Option.getOrElse(authUrl, () => "https://www.instagram.com"),
    // one address overrides both sign-in hosts (the simulator serves them together)
    tokenUrl: Option.match(authUrl, {
      onNone: () => "https://api.instagram.com/oauth/access_token",
      onSome: (a) => `${trimBase(a)}/oauth/access_token`
    }),
    ...keys
  })
})
