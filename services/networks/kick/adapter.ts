import { createHash } from "node:crypto"
import { Effect, Option, Redacted, Schema } from "effect"
import { ConnectFailed, type Connected, type NetworkAdapter, type NetworkAnswer, PublishAnswer, type PublishRequest, Refresh } from "../adapter.js"
import {
  answerOf,
  cannotSearch,
  connectFailedFrom,
  decodeForVerify,
  networkAppConfig,
  noStatistics,
  readCredentials,
  unknownTool
} from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, verifiedTokens, TokenAnswer } from "../oauthRefresh.js"
import { bearerJson, call, decodeBody, excerpt, isSuccess, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * Kick's public API (docs.kick.com): the broadcaster signs in with OAuth 2.1 and PKCE on
 * id.kick.com (`/oauth/authorize`, `/oauth/token`; access tokens of two hours, a new refresh
 * token on each refresh), and a post is a chat message in their own channel
 * (`POST /public/v1/chat`, type `user`), a follow-up a reply (`reply_to_message_id`).
 * Chat is text only and cannot be searched: a lost answer ends `unconfirmed`.
 */
const NAME = "Kick"
const SCOPES = "user:read channel:read chat:write"
/** Access tokens last two hours: refreshed ten minutes ahead. */
const REFRESH_MARGIN_MS = 10 * 60_000
const TOKEN_LIFETIME_SECONDS = 7200

export interface KickOptions {
  /** KICK_API_URL: the public API as documented before method paths (https://api.kick.com/public/v1). */
  readonly apiUrl: string
  /** KICK_AUTH_URL: the OAuth server (https://id.kick.com). */
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

/** The CLI gives the broadcaster's id as a number or a string; it is kept as digits. */
const UserId = Schema.Union(Schema.String, Schema.Number).pipe(
  Schema.transform(Schema.String.pipe(Schema.pattern(/^\d+$/)), { decode: (v) => String(v), encode: (v) => v })
)
const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  broadcasterUserId: UserId,
  slug: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type

const Users = Schema.Struct({
  data: Schema.Array(Schema.Struct({ user_id: Schema.Number, name: Schema.String, profile_picture: Schema.optional(Schema.NullOr(Schema.String)) }))
})
const Channels = Schema.Struct({ data: Schema.Array(Schema.Struct({ broadcaster_user_id: Schema.Number, slug: Schema.String })) })
const Sent = Schema.Struct({ data: Schema.Struct({ is_sent: Schema.Boolean, message_id: Schema.String }) })
const Problem = Schema.Struct({ message: Schema.String })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

/** base64url(sha256(verifier)): the PKCE S256 challenge. */
const pkceChallenge = (verifier: string) => createHash("sha256").update(verifier).digest("base64url")

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(Problem, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (p) => p.message
  })
  if (response.status === 403)
    return { message: `Kick refused the message: ${reason}`, fix: "Reconnect the channel with the chat:write permission, then retry." }
  if (/content|length|characters/i.test(reason))
    return { message: `Kick refused the message: ${reason}`, fix: "Shorten the text to 500 characters, then retry." }
  return { message: `Kick refused the message: ${reason}`, fix: "Change the message as Kick says, then retry." }
}

const channelUrl = (slug: string | undefined) => (slug === undefined ? "https://kick.com" : `https://kick.com/${slug}`)

export const classifyKick = (answer: NetworkAnswer, slug?: string): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const sent = isSuccess(response) ? decodeBody(Sent, response) : Option.none()
  if (Option.isSome(sent)) {
    if (!sent.value.data.is_sent)
      return PublishAnswer.Rejected({
        message: "Kick took the message but did not send it to the chat (chat rules, slow mode or a filter).",
        fix: "Check the channel's chat settings, then retry."
      })
    if (sent.value.data.message_id !== "") return PublishAnswer.Published({ releaseId: sent.value.data.message_id, releaseUrl: channelUrl(slug) })
  }
  return statusAnswer(NAME, response, rejection)
}

export const makeKickAdapterWith = (options: KickOptions) =>
  Effect.gen(function* () {
    const { outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()

    /** POST /oauth/token on id.kick.com, the app's credentials in the form. */
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${auth}/oauth/token`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "", client_secret: clientSecret ?? "" }).toString()
      })

    const refreshStored = (c: Stored) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
      })

    /** The token's user (GET /users) and their channel's slug (GET /channels): the broadcaster. */
    const connected = (tokens: { readonly accessToken: string; readonly refreshToken: string; readonly expiresAt: string }, expected?: string) =>
      Effect.gen(function* () {
        const answer = yield* call(outbound, { url: `${api}/users`, headers: bearerJson(tokens.accessToken) })
        const user = Option.flatMap(read(Users, answer), (u) => Option.fromNullable(u.data[0]))
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const id = String(user.value.user_id)
        if (expected !== undefined && expected !== id)
          return yield* new ConnectFailed({
            message: `This Kick token belongs to the user ${id}, not to the broadcaster ${expected}: sign in as the broadcaster.`
          })
        const channel = read(Channels, yield* call(outbound, { url: `${api}/channels`, headers: bearerJson(tokens.accessToken) }))
        const slug = Option.getOrUndefined(Option.flatMap(channel, (c) => Option.fromNullable(c.data[0]?.slug)))
        const result: Connected = {
          credentials: { ...tokens, broadcasterUserId: id, ...(slug === undefined ? {} : { slug }) },
          profile: { accountId: id, name: user.value.name, profile: slug ?? user.value.name, picture: user.value.profile_picture ?? null }
        }
        return result
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken, expiresAt (ISO 8601) and broadcasterUserId")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "Kick", refusedBy: "Kick", refresh: refreshStored })
        return yield* connected(
          { accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: current.expiresAt },
          given.broadcasterUserId
        )
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          // Kick chat takes text only (the catalog refuses files before saving)
          if (request.media.length > 0)
            return PublishAnswer.Rejected({ message: "Kick chat takes text only.", fix: "Remove the photos and videos, then retry." })
          const answer = yield* call(outbound, {
            url: `${api}/chat`,
            method: "POST",
            headers: bearerJson(c.accessToken),
            body: JSON.stringify({
              type: "user",
              broadcaster_user_id: Number(c.broadcasterUserId),
              content: request.item.content,
              ...(request.previousReleaseId === null ? {} : { reply_to_message_id: request.previousReleaseId })
            })
          })
          return classifyKick(answer, c.slug)
        })
      )

    const adapter: NetworkAdapter = {
      identifier: "kick",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state, codeVerifier }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Kick is not set up on this server (KICK_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/authorize?${new URLSearchParams({
                  response_type: "code",
                  client_id: clientId,
                  redirect_uri: redirectUri,
                  scope: SCOPES,
                  code_challenge: pkceChallenge(codeVerifier),
                  code_challenge_method: "S256",
                  state
                }).toString()}`
              ),
        exchange: ({ code, redirectUri, codeVerifier }) =>
          Effect.gen(function* () {
            if (clientId === undefined || clientSecret === undefined)
              return yield* new ConnectFailed({ message: "Kick is not set up on this server (KICK_CLIENT_ID, KICK_CLIENT_SECRET)." })
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            return yield* connected(fromTokenAnswer(t.value, "", TOKEN_LIFETIME_SECONDS))
          })
      },
      verify,
      shortLivedTokens: true,
      refresh: (credentials) =>
        Effect.flatMap(
          credentialsOf(credentials).pipe(Effect.option),
          Option.match({ onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })), onSome: refreshStored })
        ),
      publish: send,
      publishFollowUp: send,
      search: () => cannotSearch(NAME),
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: (answer) => classifyKick(answer)
    }
    return adapter
  })

export const makeKickAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("kick", { apiUrl: "https://api.kick.com/public/v1", authUrl: "https://id.kick.com" })
  return yield* makeKickAdapterWith(options)
})
