import { createHash } from "node:crypto"
import { Config, Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readAllMedia, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, verifiedTokens, TokenAnswer } from "../oauthRefresh.js"
import {
  bearerJson,
  call,
  decodeBody,
  excerpt,
  isSuccess,
  multipart,
  retryAfterMs,
  sameText,
  statusAnswer,
  transportAnswer,
  trimBase
} from "../networkHttp.js"

/**
 * X API v2 (docs.x.com): OAuth 2.0 with PKCE, access tokens that last 2 hours refreshed
 * before use (X rotates refresh tokens: the old one stops working), media with
 * POST /2/media/upload, posts with POST /2/tweets (threads with
 * reply.in_reply_to_tweet_id), search of the account's own recent posts.
 */
const NAME = "X"
const SCOPES = "tweet.read tweet.write users.read offline.access media.write"
/** Refresh when the token has less than this left. */
const REFRESH_MARGIN_MS = 5 * 60_000

export interface XOptions {
  readonly apiUrl: string
  readonly authorizeUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  userId: Schema.optional(Schema.String),
  username: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type
const Me = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    username: Schema.String,
    name: Schema.optional(Schema.String),
    profile_image_url: Schema.optional(Schema.String),
    public_metrics: Schema.optional(
      Schema.Struct({
        followers_count: Schema.optional(Schema.Number),
        following_count: Schema.optional(Schema.Number),
        tweet_count: Schema.optional(Schema.Number)
      })
    )
  })
})
const Tweet = Schema.Struct({ data: Schema.Struct({ id: Schema.String, text: Schema.optional(Schema.String) }) })
const Tweets = Schema.Struct({ data: Schema.optional(Schema.Array(Schema.Struct({ id: Schema.String, text: Schema.String }))) })
const TweetMetrics = Schema.Struct({
  data: Schema.Struct({
    public_metrics: Schema.Struct({
      like_count: Schema.optional(Schema.Number),
      retweet_count: Schema.optional(Schema.Number),
      reply_count: Schema.optional(Schema.Number),
      impression_count: Schema.optional(Schema.Number),
      quote_count: Schema.optional(Schema.Number)
    })
  })
})
const Media = Schema.Struct({ data: Schema.Struct({ id: Schema.String }) })
const Problem = Schema.Struct({
  title: Schema.optional(Schema.String),
  detail: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Array(Schema.Struct({ message: Schema.String })))
})

/** base64url(sha256(verifier)): the PKCE S256 challenge. */
export const pkceChallenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url")

const reasonOf = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) =>
  Option.match(decodeBody(Problem, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (p) => p.detail ?? p.errors?.[0]?.message ?? p.title ?? `HTTP ${response.status}`
  })

const rejection = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) => {
  const reason = reasonOf(response)
  if (/duplicate/i.test(reason))
    return {
      message: `X refused the post as a duplicate of a recent one: ${reason}`,
      fix: "Change the text, or check the account: the post may already be live."
    }
  if (/too long|length/i.test(reason))
    return { message: `X refused the post: ${reason}`, fix: "Shorten the text to 280 characters as X counts them (links count 23), then retry." }
  return { message: `X refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

/** The wait X names for a 429: Retry-After, else x-rate-limit-reset (epoch seconds). */
const rateLimitWait = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0], now = Date.now()) => {
  if (response.headers["retry-after"] !== undefined) return retryAfterMs(response)
  const reset = Number(response.headers["x-rate-limit-reset"])
  return Number.isFinite(reset) && reset > 0 ? Math.max(1000, reset * 1000 - now) : 60_000
}

export const classifyXWith =
  (username: string | undefined) =>
  (answer: NetworkAnswer): PublishAnswer => {
    if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
    const { response } = answer
    const tweet = isSuccess(response) ? decodeBody(Tweet, response) : Option.none()
    if (Option.isSome(tweet)) {
      return PublishAnswer.Published({
        releaseId: tweet.value.data.id,
        releaseUrl: `https://x.com/${username ?? "i/web"}/status/${tweet.value.data.id}`
      })
    }
    if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: rateLimitWait(response) })
    return statusAnswer(NAME, response, rejection)
  }

const whoSettings: Readonly<Record<string, string>> = {
  following: "following",
  mentionedUsers: "mentionedUsers",
  subscribers: "subscribers",
  verified: "verified"
}

export const makeXAdapterWith = (options: XOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()

    /** POST /2/oauth2/token with the client's Basic credentials (a confidential client). */
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${api}/2/oauth2/token`,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
          ...(clientSecret === undefined ? {} : { authorization: `Basic ${Buffer.from(`${clientId ?? ""}:${clientSecret}`).toString("base64")}` })
        },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "" }).toString()
      })

    const me = (accessToken: string) =>
      call(outbound, { url: `${api}/2/users/me?user.fields=profile_image_url,public_metrics`, headers: bearerJson(accessToken) })

    const connected = (stored: Omit<Stored, "userId" | "username">) =>
      Effect.gen(function* () {
        const answer = yield* me(stored.accessToken)
        const user = read(Me, answer)
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const u = user.value.data
        return {
          credentials: { ...stored, userId: u.id, username: u.username },
          profile: { accountId: u.id, name: u.name ?? u.username, profile: u.username, picture: u.profile_image_url ?? null }
        }
      })

    const fromToken = (t: TokenAnswer, previousRefresh = "") => fromTokenAnswer(t, previousRefresh, 7200)

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken and expiresAt (ISO 8601)")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "X", refusedBy: "X", refresh: refreshStored })
        return yield* connected({ accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: current.expiresAt })
      })

    const refreshStored = (c: Stored) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: 7200,
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
      })

    const uploadAll = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const files = yield* readAllMedia(media, request.media)
        const ids: Array<string> = []
        for (const file of files) {
          const category = file.mime === "image/gif" ? "tweet_gif" : file.mime.startsWith("video/") ? "tweet_video" : "tweet_image"
          const form = multipart([
            { name: "media", filename: file.name || "media", mime: file.mime, bytes: file.bytes },
            { name: "media_category", value: category }
          ])
          const answer = yield* call(outbound, {
            url: `${api}/2/media/upload`,
            method: "POST",
            headers: { authorization: `Bearer ${c.accessToken}`, "content-type": form.contentType, accept: "application/json" },
            body: form.body,
            timeoutMs: 120_000
          })
          const uploaded = read(Media, answer)
          if (Option.isNone(uploaded)) {
            const why = classifyXWith(c.username)(answer)
            return yield* Effect.fail(
              why._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `a file upload got no answer: ${why.reason}` }) : why
            )
          }
          ids.push(uploaded.value.data.id)
        }
        return ids
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const mediaIds = yield* uploadAll(c, request)
          const who = request.channel.settings["who_can_reply_post"]
          const community = request.channel.settings["community"]
          const body = {
            text: request.item.content,
            ...(mediaIds.length > 0 ? { media: { media_ids: mediaIds } } : {}),
            ...(request.previousReleaseId === null ? {} : { reply: { in_reply_to_tweet_id: request.previousReleaseId } }),
            ...(request.previousReleaseId === null && typeof who === "string" && whoSettings[who] !== undefined
              ? { reply_settings: whoSettings[who] }
              : {}),
            ...(request.previousReleaseId === null && typeof community === "string" && community.trim() !== ""
              ? { community_id: community.trim().replace(/^.*\/communities\//, "") }
              : {})
          }
          const answer = yield* call(outbound, {
            url: `${api}/2/tweets`,
            method: "POST",
            headers: bearerJson(c.accessToken),
            body: JSON.stringify(body)
          })
          return classifyXWith(c.username)(answer)
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const userId = c.value.userId ?? Option.getOrUndefined(Option.map(read(Me, yield* me(c.value.accessToken)), (m) => m.data.id))
        if (userId === undefined) return SearchAnswer.CannotTell({ reason: "the account could not be read" })
        const answer = yield* call(outbound, {
          url: `${api}/2/users/${encodeURIComponent(userId)}/tweets?max_results=20`,
          headers: bearerJson(c.value.accessToken)
        })
        const tweets = read(Tweets, answer)
        if (Option.isNone(tweets))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        // X shortens links to t.co: compare with every address replaced
        const plain = (text: string) => text.replace(/https?:\/\/\S+/g, "<link>")
        const found = (tweets.value.data ?? []).find((t) => sameText(plain(t.text), plain(request.item.content)))
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: found.id, releaseUrl: `https://x.com/${c.value.username ?? "i/web"}/status/${found.id}` })
      })

    const adapter: NetworkAdapter = {
      identifier: "x",
      // access tokens live hours and are renewed with the refresh token: their expiry is no warning
      shortLivedTokens: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ codeVerifier, redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "X is not set up on this server (X_CLIENT_ID)." }))
            : Effect.succeed(
                `${options.authorizeUrl}?${new URLSearchParams({
                  response_type: "code",
                  client_id: clientId,
                  redirect_uri: redirectUri,
                  scope: SCOPES,
                  state,
                  code_challenge: pkceChallenge(codeVerifier),
                  code_challenge_method: "S256"
                }).toString()}`
              ),
        exchange: ({ code, codeVerifier, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            return yield* connected(fromToken(t.value))
          })
      },
      verify,
      refresh: (credentials) =>
        Effect.flatMap(
          credentialsOf(credentials).pipe(Effect.option),
          Option.match({
            onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })),
            onSome: refreshStored
          })
        ),
      publish: send,
      publishFollowUp: send,
      search,
      statistics: {
        channel: (credentials) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const user = read(Me, yield* me(c.value.accessToken))
            const metrics = Option.flatMap(user, (u) => Option.fromNullable(u.data.public_metrics))
            if (Option.isNone(metrics)) return Statistics.Missing({ message: "X did not answer with the account's numbers." })
            return Statistics.Metrics({
              metrics: [
                metricToday("Followers", metrics.value.followers_count ?? 0),
                metricToday("Following", metrics.value.following_count ?? 0),
                metricToday("Posts", metrics.value.tweet_count ?? 0)
              ]
            })
          }),
        post: (credentials, releaseId) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const answer = yield* call(outbound, {
              url: `${api}/2/tweets/${encodeURIComponent(releaseId)}?tweet.fields=public_metrics`,
              headers: bearerJson(c.value.accessToken)
            })
            const m = read(TweetMetrics, answer)
            if (Option.isNone(m)) return Statistics.Missing({ message: "X did not answer with the post's numbers." })
            const p = m.value.data.public_metrics
            return Statistics.Metrics({
              metrics: [
                metricToday("Impressions", p.impression_count ?? 0),
                metricToday("Likes", p.like_count ?? 0),
                metricToday("Reposts", p.retweet_count ?? 0),
                metricToday("Replies", p.reply_count ?? 0),
                metricToday("Quotes", p.quote_count ?? 0)
              ]
            })
          })
      },
      runTool: ({ credentials, methodName }) =>
        Effect.gen(function* () {
          if (methodName !== "whoami") return yield* unknownTool(methodName, NAME, ["whoami"])
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's X connection cannot be read. Reconnect it."))
          )
          const user = read(Me, yield* me(c.accessToken))
          if (Option.isNone(user))
            return yield* Effect.fail(Errors.badRequest("X did not say who this channel is. Reconnect it if this keeps happening."))
          return { id: user.value.data.id, username: user.value.data.username, name: user.value.data.name ?? user.value.data.username }
        }),
      classify: classifyXWith(undefined)
    }
    return adapter
  })

export const makeXAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.option(Config.string("X_API_URL")).pipe(Effect.orDie)
  const authorize = yield* Config.option(Config.string("X_AUTHORIZE_URL")).pipe(Effect.orDie)
  const keys = yield* Config.all({
    clientId: Config.option(Config.string("X_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("X_CLIENT_SECRET"))
  }).pipe(Effect.orDie)
  const api = trimBase(Option.getOrElse(apiUrl, () => "https://api.x.com"))
  const authorizeUrl = Option.getOrElse(authorize, () => (Option.isSome(apiUrl) ? `${api}/i/oauth2/authorize` : "https://x.com/i/oauth2/authorize"))
  return yield* makeXAdapterWith({ apiUrl: api, authorizeUrl, ...keys })
})
