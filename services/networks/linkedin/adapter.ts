import { Config, Effect, Option, Redacted, Schema } from "effect"
import { ConnectFailed, type NetworkAdapter, type NetworkAnswer, PublishAnswer, type PublishRequest, Refresh } from "../adapter.js"
import {
  answerOf,
  cannotSearch,
  connectFailedFrom,
  decodeForVerify,
  noStatistics,
  readAllMedia,
  readCredentials,
  unknownTool
} from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, TokenAnswer } from "../oauthRefresh.js"
import { call, decodeBody, excerpt, isSuccess, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"

/**
 * LinkedIn (learn.microsoft.com/linkedin): OAuth 2.0 (3-legged), posts with
 * POST /rest/posts (LinkedIn-Version header; the id comes in x-restli-id), images with
 * /rest/images?action=initializeUpload then a PUT of the bytes, follow-ups as comments
 * (/rest/socialActions/{urn}/comments), tokens refreshed before they expire. LinkedIn has
 * no search of a member's posts. Credentials without a refresh token are used until their
 * expiry (warned about ahead with channel.expiring), then the channel is disconnected.
 */
const NAME = "LinkedIn"
const REFRESH_MARGIN_MS = 24 * 3600_000 // tokens last 60 days: refresh a day ahead

export interface LinkedInOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly version: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

/** `refreshToken` only when LinkedIn gave one: apps without its partner refresh get none (docs/networks.md, "LinkedIn without a refresh token"). */
const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.optional(Schema.String),
  expiresAt: Schema.String,
  author: Schema.String
})
type Stored = typeof Stored.Type
const UserInfo = Schema.Struct({
  sub: Schema.String,
  name: Schema.optional(Schema.String),
  picture: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String)
})
const InitUpload = Schema.Struct({ value: Schema.Struct({ uploadUrl: Schema.String, image: Schema.String }) })
const ErrorBody = Schema.Struct({ message: Schema.String, serviceErrorCode: Schema.optional(Schema.Number), code: Schema.optional(Schema.String) })

/** LinkedIn's "little text" reserves these characters; a backslash makes them plain. */
export const escapeLittleText = (text: string) => text.replace(/[\\|{}@[\]()<>#*_~]/g, (c) => `\\${c}`)

const rejection = (response: Parameters<Parameters<typeof statusAnswer>[2]>[0]) => {
  const reason = Option.match(decodeBody(ErrorBody, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (e) => e.message
  })
  if (/duplicate/i.test(reason))
    return {
      message: `LinkedIn refused the post as a duplicate: ${reason}`,
      fix: "Change the text, or check the profile: the post may already be live."
    }
  if (/length|too long|3000/i.test(reason))
    return { message: `LinkedIn refused the post: ${reason}`, fix: "Shorten the text to 3000 characters, then retry." }
  return { message: `LinkedIn refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

/** The post's urn arrives in x-restli-id (201, empty body); a comment's in its body or the same header. */
export const classifyLinkedIn = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (isSuccess(response)) {
    const header = response.headers["x-restli-id"] ?? response.headers["x-linkedin-id"]
    const id = Array.isArray(header) ? header[0] : header
    const fromBody = Option.getOrUndefined(Option.map(decodeBody(Schema.Struct({ id: Schema.String }), response), (b) => b.id))
    const urn = id ?? fromBody
    if (urn !== undefined && urn !== "") {
      // a comment is answered on its post's page
      const postUrn = /^urn:li:comment:\((urn:li:[^,]+),/.exec(urn)?.[1] ?? urn
      return PublishAnswer.Published({ releaseId: urn, releaseUrl: `https://www.linkedin.com/feed/update/${postUrn}/` })
    }
  }
  return statusAnswer(NAME, response, rejection)
}

export const makeLinkedInAdapterWith = (options: LinkedInOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const rest = (token: string) => ({
      authorization: `Bearer ${token}`,
      "linkedin-version": options.version,
      "x-restli-protocol-version": "2.0.0",
      "content-type": "application/json",
      accept: "application/json"
    })
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${auth}/oauth/v2/accessToken`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "", client_secret: clientSecret ?? "" }).toString()
      })
    /** A token answer's credentials; without a refresh token when LinkedIn gave none. */
    const fromToken = (t: TokenAnswer): Omit<Stored, "author"> => {
      const { refreshToken, ...rest } = fromTokenAnswer(t, "", 5_184_000)
      return refreshToken === "" ? rest : { ...rest, refreshToken }
    }

    const whoIs = (accessToken: string) =>
      call(outbound, { url: `${api}/v2/userinfo`, headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } })

    const connectedWith = (stored: Omit<Stored, "author">) =>
      Effect.gen(function* () {
        const answer = yield* whoIs(stored.accessToken)
        const user = read(UserInfo, answer)
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const author = `urn:li:person:${user.value.sub}`
        return {
          credentials: { ...stored, author },
          profile: {
            accountId: author,
            name: user.value.name ?? user.value.sub,
            profile: user.value.email ?? user.value.sub,
            picture: user.value.picture ?? null
          }
        }
      })

    const refreshStored = (c: Stored): Effect.Effect<Refresh> => {
      const refreshToken = c.refreshToken ?? ""
      // nothing to renew it with: the channel is kept until its token expires, then disconnected
      if (refreshToken === "")
        return Effect.succeed(
          Date.parse(c.expiresAt) > Date.now()
            ? Refresh.Unchanged()
            : Refresh.Failed({ reason: "the access token expired and LinkedIn gave no refresh token to renew it" })
        )
      return refreshOAuth(
        { ...c, refreshToken },
        {
          marginMs: REFRESH_MARGIN_MS,
          defaultLifetimeSeconds: 5_184_000,
          exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
        }
      )
    }

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(
          Stored,
          NAME,
          "accessToken, refreshToken (when LinkedIn gave one), expiresAt (ISO 8601) and author (urn:li:person:… or urn:li:organization:…)"
        )(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: "LinkedIn credentials: expiresAt is not an ISO 8601 date." })
        const checked = yield* connectedWith(given)
        // an organization page posts as the given author; a member as the token's own person
        return given.author.startsWith("urn:li:organization:")
          ? { ...checked, credentials: { ...checked.credentials, author: given.author }, profile: { ...checked.profile, accountId: given.author } }
          : checked
      })

    const uploadAll = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const files = yield* readAllMedia(media, request.media)
        const images: Array<{ id: string; altText: string }> = []
        for (const [index, file] of files.entries()) {
          const init = yield* call(outbound, {
            url: `${api}/rest/images?action=initializeUpload`,
            method: "POST",
            headers: rest(c.accessToken),
            body: JSON.stringify({ initializeUploadRequest: { owner: c.author } })
          })
          const upload = read(InitUpload, init)
          const failed = (answer: NetworkAnswer) => {
            const why = classifyLinkedIn(answer)
            return why._tag === "NoAnswer" || why._tag === "Published"
              ? PublishAnswer.FailedBeforeSending({ reason: `an image upload failed: ${why._tag === "NoAnswer" ? why.reason : "no upload address"}` })
              : why
          }
          if (Option.isNone(upload)) return yield* Effect.fail(failed(init))
          const put = yield* call(outbound, {
            url: upload.value.value.uploadUrl,
            method: "PUT",
            headers: { authorization: `Bearer ${c.accessToken}`, "content-type": file.mime || "application/octet-stream" },
            body: file.bytes,
            timeoutMs: 120_000
          })
          if (put._tag === "Failed" || !isSuccess(put.response)) return yield* Effect.fail(failed(put))
          images.push({ id: upload.value.value.image, altText: request.media[index]?.alt ?? "" })
        }
        return images
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const images = yield* uploadAll(c, request)
          const content = images.length === 0 ? {} : images.length === 1 ? { content: { media: images[0] } } : { content: { multiImage: { images } } }
          const answer = yield* call(outbound, {
            url: `${api}/rest/posts`,
            method: "POST",
            headers: rest(c.accessToken),
            body: JSON.stringify({
              author: c.author,
              commentary: escapeLittleText(request.item.content),
              visibility: "PUBLIC",
              distribution: { feedDistribution: "MAIN_FEED", targetEntities: [], thirdPartyDistributionChannels: [] },
              ...content,
              lifecycleState: "PUBLISHED",
              isReshareDisabledByAuthor: false
            })
          })
          return classifyLinkedIn(answer)
        })
      )

    const publishFollowUp = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          // comments go on the post (a comment on a comment would be a nested reply)
          const target = request.rootReleaseId ?? request.previousReleaseId ?? ""
          const answer = yield* call(outbound, {
            url: `${api}/rest/socialActions/${encodeURIComponent(target)}/comments`,
            method: "POST",
            headers: rest(c.accessToken),
            body: JSON.stringify({ actor: c.author, object: target, message: { text: request.item.content } })
          })
          return classifyLinkedIn(answer)
        })
      )

    const adapter: NetworkAdapter = {
      identifier: "linkedin",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "LinkedIn is not set up on this server (LINKEDIN_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth/v2/authorization?${new URLSearchParams({
                  response_type: "code",
                  client_id: clientId,
                  redirect_uri: redirectUri,
                  state,
                  scope: "openid profile email w_member_social"
                }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            return yield* connectedWith(fromToken(t.value))
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
      publish,
      publishFollowUp,
      search: () => cannotSearch(NAME),
      // a member's post statistics need LinkedIn partner access
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyLinkedIn
    }
    return adapter
  })

export const makeLinkedInAdapter = Effect.gen(function* () {
  const apiUrl = yield* Config.option(Config.string("LINKEDIN_API_URL")).pipe(Effect.orDie)
  const authUrl = yield* Config.option(Config.string("LINKEDIN_AUTH_URL")).pipe(Effect.orDie)
  const rest = yield* Config.all({
    version: Config.string("LINKEDIN_VERSION").pipe(Config.withDefault("202411")),
    clientId: Config.option(Config.string("LINKEDIN_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("LINKEDIN_CLIENT_SECRET"))
  }).pipe(Effect.orDie)
  const api = Option.getOrElse(apiUrl, () => "https://api.linkedin.com")
  return yield* makeLinkedInAdapterWith({
    apiUrl: api,
    authUrl: Option.getOrElse(authUrl, () => (Option.isSome(apiUrl) ? api : "https://www.linkedin.com")),
    ...rest
  })
})
