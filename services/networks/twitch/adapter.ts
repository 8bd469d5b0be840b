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
import { call, decodeBody, excerpt, isSuccess, retryAfterMs, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * Twitch (dev.twitch.tv/docs/api): the broadcaster signs in on id.twitch.tv (authorization
 * code; access tokens of about four hours, renewed with the refresh token), and a post is a
 * message in their own chat (`POST /helix/chat/messages`, the broadcaster as sender), or an
 * announcement (`POST /helix/chat/announcements`, setting `announcement`) which Twitch
 * answers 204 without an id. Follow-ups reply to the message (`reply_parent_message_id`).
 * Chat is text only and cannot be searched: a lost answer ends `unconfirmed`.
 */
const NAME = "Twitch"
const SCOPES = "user:read:chat user:write:chat moderator:manage:announcements"
/** Access tokens last about four hours: refreshed ten minutes ahead. */
const REFRESH_MARGIN_MS = 10 * 60_000
const TOKEN_LIFETIME_SECONDS = 4 * 3600
/** Announcements answer no id: theirs is made from the item, and a reply cannot name it. */
const ANNOUNCEMENT_PREFIX = "announcement:"
export const ANNOUNCEMENT_COLORS = ["primary", "blue", "green", "orange", "purple"] as const

export interface TwitchOptions {
  /** TWITCH_API_URL: Helix as documented before method paths (https://api.twitch.tv/helix). */
  readonly apiUrl: string
  /** TWITCH_AUTH_URL: the OAuth server (https://id.twitch.tv). */
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  broadcasterId: Schema.String,
  login: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type

const Users = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({ id: Schema.String, login: Schema.String, display_name: Schema.String, profile_image_url: Schema.optional(Schema.String) })
  )
})
const Sent = Schema.Struct({
  data: Schema.NonEmptyArray(
    Schema.Struct({
      message_id: Schema.String,
      is_sent: Schema.Boolean,
      drop_reason: Schema.optional(Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })))
    })
  )
})
const Problem = Schema.Struct({ message: Schema.String })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(Problem, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (p) => p.message
  })
  if (response.status === 403 || /scope|authoriz/i.test(reason))
    return {
      message: `Twitch refused the message: ${reason}`,
      fix: "Reconnect the channel so that it grants chat and announcement permissions, then retry."
    }
  if (/length|long|500/i.test(reason))
    return { message: `Twitch refused the message: ${reason}`, fix: "Shorten the text to 500 characters, then retry." }
  return { message: `Twitch refused the message: ${reason}`, fix: "Change the message as Twitch says, then retry." }
}

/** Twitch names its wait in Ratelimit-Reset (the epoch second the bucket fills up); Retry-After wins when given. */
const rateLimitWait = (response: Response) => {
  if (response.headers["retry-after"] !== undefined) return retryAfterMs(response)
  const reset = Number(response.headers["ratelimit-reset"])
  return Number.isFinite(reset) && reset > 0 ? Math.max(1000, reset * 1000 - Date.now()) : 60_000
}

const channelUrl = (login: string | undefined) => (login === undefined ? "https://www.twitch.tv" : `https://www.twitch.tv/${login}`)

export const classifyTwitch = (answer: NetworkAnswer, login?: string): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const sent = isSuccess(response) ? decodeBody(Sent, response) : Option.none()
  if (Option.isSome(sent)) {
    const m = sent.value.data[0]
    if (!m.is_sent)
      return PublishAnswer.Rejected({
        message: `Twitch did not send the message to the chat: ${m.drop_reason?.message ?? "dropped by the chat's settings"}.`,
        fix: "Check the channel's chat settings (AutoMod, followers-only or emote-only mode), then retry."
      })
    if (m.message_id !== "") return PublishAnswer.Published({ releaseId: m.message_id, releaseUrl: channelUrl(login) })
  }
  if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: rateLimitWait(response) })
  return statusAnswer(NAME, response, rejection)
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

export const makeTwitchAdapterWith = (options: TwitchOptions) =>
  Effect.gen(function* () {
    const { outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    // Helix wants the app's Client-Id with every user token
    const helix = (token: string): Record<string, string> => ({
      authorization: `Bearer ${token}`,
      "client-id": clientId ?? "",
      "content-type": "application/json",
      accept: "application/json"
    })

    /** POST /oauth2/token on id.twitch.tv, the app's credentials in the form. */
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${auth}/oauth2/token`,
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

    /** The token's user (GET /users without a filter): the broadcaster whose chat takes the posts. */
    const connected = (tokens: { readonly accessToken: string; readonly refreshToken: string; readonly expiresAt: string }, expected?: string) =>
      Effect.gen(function* () {
        const answer = yield* call(outbound, { url: `${api}/users`, headers: helix(tokens.accessToken) })
        const user = Option.flatMap(read(Users, answer), (u) => Option.fromNullable(u.data[0]))
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const u = user.value
        if (expected !== undefined && expected !== u.id)
          return yield* new ConnectFailed({
            message: `This Twitch token belongs to ${u.login} (${u.id}), not to the broadcaster ${expected}: sign in as the broadcaster.`
          })
        const result: Connected = {
          credentials: { ...tokens, broadcasterId: u.id, login: u.login },
          profile: { accountId: u.id, name: u.display_name, profile: u.login, picture: u.profile_image_url ?? null }
        }
        return result
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken, expiresAt (ISO 8601) and broadcasterId")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "Twitch", refusedBy: "Twitch", refresh: refreshStored })
        return yield* connected(
          { accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: current.expiresAt },
          given.broadcasterId
        )
      })

    /** An announcement: Twitch answers 204 without an id, so the item's own id stands for it. */
    const announce = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const color = text(request.channel.settings["color"]) ?? "primary"
        const query = new URLSearchParams({ broadcaster_id: c.broadcasterId, moderator_id: c.broadcasterId })
        const answer = yield* call(outbound, {
          url: `${api}/chat/announcements?${query.toString()}`,
          method: "POST",
          headers: helix(c.accessToken),
          body: JSON.stringify({ message: request.item.content, color })
        })
        if (answer._tag === "Response" && answer.response.status === 204)
          return PublishAnswer.Published({ releaseId: `${ANNOUNCEMENT_PREFIX}${request.item.id}`, releaseUrl: channelUrl(c.login) })
        return classifyTwitch(answer, c.login)
      })

    const send = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          // Twitch chat takes text only (the catalog refuses files before saving)
          if (request.media.length > 0)
            return PublishAnswer.Rejected({ message: "Twitch chat takes text only.", fix: "Remove the photos and videos, then retry." })
          if (request.previousReleaseId === null && request.channel.settings["announcement"] === true) return yield* announce(c, request)
          const parent = request.previousReleaseId
          const answer = yield* call(outbound, {
            url: `${api}/chat/messages`,
            method: "POST",
            headers: helix(c.accessToken),
            body: JSON.stringify({
              broadcaster_id: c.broadcasterId,
              sender_id: c.broadcasterId,
              message: request.item.content,
              // an announcement has no message id to reply to: the follow-up is a plain message
              ...(parent === null || parent.startsWith(ANNOUNCEMENT_PREFIX) ? {} : { reply_parent_message_id: parent })
            })
          })
          return classifyTwitch(answer, c.login)
        })
      )

    const adapter: NetworkAdapter = {
      identifier: "twitch",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Twitch is not set up on this server (TWITCH_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth2/authorize?${new URLSearchParams({
                  response_type: "code",
                  client_id: clientId,
                  redirect_uri: redirectUri,
                  scope: SCOPES,
                  state
                }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            if (clientId === undefined || clientSecret === undefined)
              return yield* new ConnectFailed({ message: "Twitch is not set up on this server (TWITCH_CLIENT_ID, TWITCH_CLIENT_SECRET)." })
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
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
      classify: (answer) => classifyTwitch(answer)
    }
    return adapter
  })

export const makeTwitchAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("twitch", { apiUrl: "https://api.twitch.tv/helix", authUrl: "https://id.twitch.tv" })
  return yield* makeTwitchAdapterWith(options)
})
