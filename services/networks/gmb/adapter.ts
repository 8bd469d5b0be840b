import { Config, Effect, Either, Option, Redacted, Schema } from "effect"
import {
  type Choice,
  ConnectFailed,
  type Connected,
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, noStatistics, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps, PUBLIC_MEDIA_TTL_SECONDS } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, TokenAnswer } from "../oauthRefresh.js"
import { bearerJson, call, decodeBody, excerpt, isSuccess, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import { localPostOf } from "./localPost.js"

/**
 * Google Business Profile (developers.google.com/my-business): Google OAuth 2.0 with
 * `access_type=offline&prompt=consent` for a refresh token, the location chosen at connect
 * (Account Management API for accounts, Business Information API for their locations),
 * posts with POST /v4/{location}/localPosts (standard, event or offer; a call to action; one
 * photo or video Google fetches from its address). No comments; the search lists the
 * location's local posts.
 */
const NAME = "Google Business Profile"
const SCOPE = "https://www.googleapis.com/auth/business.manage"
/** Google access tokens last an hour: refresh five minutes ahead. */
const REFRESH_MARGIN_MS = 5 * 60_000
const TOKEN_LIFETIME_SECONDS = 3600
const LOCATION = /^accounts\/[^/]+\/locations\/[^/]+$/

export interface GmbOptions {
  /** Account Management API (accounts). */
  readonly accountsUrl: string
  /** Business Information API (locations). */
  readonly locationsUrl: string
  /** My Business API v4 (localPosts). */
  readonly postsUrl: string
  /** The sign-in page (accounts.google.com). */
  readonly authorizeUrl: string
  /** The token endpoint (oauth2.googleapis.com/token). */
  readonly tokenUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const SignedIn = Schema.Struct({ accessToken: Schema.String, refreshToken: Schema.String, expiresAt: Schema.String })
type SignedIn = typeof SignedIn.Type
const Stored = Schema.Struct({ ...SignedIn.fields, location: Schema.String.pipe(Schema.pattern(LOCATION)) })
const Accounts = Schema.Struct({
  accounts: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, accountName: Schema.optional(Schema.String) })))
})
const Locations = Schema.Struct({
  locations: Schema.optional(Schema.Array(Schema.Struct({ name: Schema.String, title: Schema.optional(Schema.String) })))
})
const LocalPost = Schema.Struct({ name: Schema.String, summary: Schema.optional(Schema.String), searchUrl: Schema.optional(Schema.String) })
const LocalPosts = Schema.Struct({ localPosts: Schema.optional(Schema.Array(LocalPost)) })
const GoogleError = Schema.Struct({ error: Schema.Struct({ message: Schema.String, status: Schema.optional(Schema.String) }) })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(GoogleError, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (e) => `${e.error.message}${e.error.status === undefined ? "" : ` (${e.error.status})`}`
  })
  if (/media|photo|video|url/i.test(reason))
    return { message: `Google refused the post's media: ${reason}`, fix: "Check the file opens and is a JPEG, PNG or MP4, then retry." }
  if (response.status === 403 || response.status === 404)
    return {
      message: `Google refused the post: ${reason}`,
      fix: "Check the location is still verified and managed by this account, or reconnect the channel."
    }
  return { message: `Google refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

/** A local post's address: the one Google gives on Search, else the Business Profile manager. */
const postUrl = (p: typeof LocalPost.Type) => p.searchUrl ?? "https://business.google.com/posts"

export const classifyGmb = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const post = isSuccess(response) ? decodeBody(LocalPost, response) : Option.none()
  if (Option.isSome(post) && post.value.name !== "") return PublishAnswer.Published({ releaseId: post.value.name, releaseUrl: postUrl(post.value) })
  return statusAnswer(NAME, response, rejection)
}

export const makeGmbAdapterWith = (options: GmbOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const accountsApi = trimBase(options.accountsUrl)
    const locationsApi = trimBase(options.locationsUrl)
    const postsApi = trimBase(options.postsUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const get = (token: string, url: string) => call(outbound, { url, headers: bearerJson(token) })

    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: options.tokenUrl,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "", client_secret: clientSecret ?? "" }).toString()
      })

    const refreshSignedIn = <C extends SignedIn>(c: C) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
      })

    /** Every location the signed-in person manages, named `accounts/…/locations/…`. */
    const locationsOf = (accessToken: string) =>
      Effect.gen(function* () {
        const answer = yield* get(accessToken, `${accountsApi}/v1/accounts?pageSize=20`)
        const accounts = read(Accounts, answer)
        if (Option.isNone(accounts)) return yield* connectFailedFrom(NAME, answer)
        const all: Array<Choice & { readonly accountName: string }> = []
        for (const account of accounts.value.accounts ?? []) {
          const listed = read(Locations, yield* get(accessToken, `${locationsApi}/v1/${account.name}/locations?readMask=name,title&pageSize=100`))
          if (Option.isNone(listed))
            return yield* new ConnectFailed({ message: `Google did not list the locations of ${account.accountName ?? account.name}.` })
          for (const l of listed.value.locations ?? []) {
            all.push({ id: `${account.name}/${l.name}`, name: l.title ?? l.name, picture: null, accountName: account.accountName ?? account.name })
          }
        }
        return all
      })

    const connectedTo = (signedIn: SignedIn, location: { readonly id: string; readonly name: string }): Connected => ({
      credentials: { ...signedIn, location: location.id },
      profile: { accountId: location.id, name: location.name, profile: location.name, picture: null }
    })

    /** Connected at once with one location; with several, the person chooses (the channel waits in between). */
    const signedInWith = (signedIn: SignedIn) =>
      Effect.gen(function* () {
        const locations = yield* locationsOf(signedIn.accessToken)
        const [only, ...more] = locations
        if (only === undefined)
          return yield* new ConnectFailed({ message: "This Google account manages no Business Profile location: create or claim one first." })
        if (more.length === 0) return connectedTo(signedIn, only)
        const result: Connected = {
          credentials: { ...signedIn },
          profile: { accountId: only.id.replace(/\/locations\/.*$/, ""), name: only.accountName, profile: only.accountName, picture: null },
          choices: locations.map(({ id, name, picture }) => ({ id, name, picture }))
        }
        return result
      })

    /** The credentials' tokens, refreshed first when they are about to expire. */
    const current = <C extends SignedIn>(given: C, schema: Schema.Schema<C, C>) =>
      Effect.gen(function* () {
        const refreshed = yield* refreshSignedIn(given)
        if (refreshed._tag === "Failed" || refreshed._tag === "Unavailable")
          return yield* new ConnectFailed({ message: `Google refused to refresh the token: ${refreshed.reason}` })
        return refreshed._tag === "Refreshed" ? Option.getOrElse(Schema.decodeUnknownOption(schema)(refreshed.credentials), () => given) : given
      })

    const choose = (credentials: Redacted.Redacted<Credentials>, choiceId: string) =>
      Effect.gen(function* () {
        const given = yield* Effect.mapError(
          Schema.decodeUnknown(SignedIn)(Redacted.value(credentials)),
          () => new ConnectFailed({ message: "The Google sign-in is missing its tokens: connect again." })
        )
        const signedIn = yield* current(given, SignedIn)
        const chosen = (yield* locationsOf(signedIn.accessToken)).find((l) => l.id === choiceId)
        if (chosen === undefined) return yield* new ConnectFailed({ message: `The location ${choiceId} is not one this Google account manages.` })
        return connectedTo({ accessToken: signedIn.accessToken, refreshToken: signedIn.refreshToken, expiresAt: signedIn.expiresAt }, chosen)
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(
          Stored,
          NAME,
          "accessToken, refreshToken, expiresAt (ISO 8601) and location (accounts/…/locations/…)"
        )(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: "Google Business Profile credentials: expiresAt is not an ISO 8601 date." })
        const c = yield* current(given, Stored)
        const locations = yield* locationsOf(c.accessToken)
        const chosen = locations.find((l) => l.id === given.location)
        if (chosen === undefined)
          return yield* new ConnectFailed({
            message: `The location ${given.location} is not one this Google account manages (${locations.map((l) => l.id).join(", ") || "none"}).`
          })
        return connectedTo({ accessToken: c.accessToken, refreshToken: c.refreshToken, expiresAt: c.expiresAt }, chosen)
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const media = yield* Effect.forEach(request.media.slice(0, 1), (m) =>
            publicMedia.addressOf(m, PUBLIC_MEDIA_TTL_SECONDS).pipe(
              Effect.map((url) => ({ url, video: m.type === "video" || m.mime.startsWith("video/") })),
              Effect.mapError((e) => PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." }))
            )
          )
          const body = localPostOf(request.item.content, request.channel.settings, media)
          if (Either.isLeft(body)) return PublishAnswer.Rejected(body.left)
          const answer = yield* call(outbound, {
            url: `${postsApi}/v4/${c.location}/localPosts`,
            method: "POST",
            headers: bearerJson(c.accessToken),
            body: JSON.stringify(body.right)
          })
          return classifyGmb(answer)
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const answer = yield* get(c.value.accessToken, `${postsApi}/v4/${c.value.location}/localPosts?pageSize=100`)
        const posts = read(LocalPosts, answer)
        if (Option.isNone(posts))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        const found = (posts.value.localPosts ?? []).find((p) => sameText(p.summary ?? "", request.item.content))
        return found === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: found.name, releaseUrl: postUrl(found) })
      })

    const adapter: NetworkAdapter = {
      identifier: "gmb",
      // access tokens live hours and are renewed with the refresh token: their expiry is no warning
      shortLivedTokens: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Google Business Profile is not set up on this server (GMB_CLIENT_ID)." }))
            : Effect.succeed(
                `${options.authorizeUrl}?${new URLSearchParams({
                  client_id: clientId,
                  redirect_uri: redirectUri,
                  response_type: "code",
                  scope: SCOPE,
                  state,
                  // offline + consent: Google answers a refresh token every time
                  access_type: "offline",
                  prompt: "consent",
                  include_granted_scopes: "true"
                }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            if (t.value.refresh_token === undefined)
              return yield* new ConnectFailed({ message: "Google answered no refresh token (access_type=offline)." })
            return yield* signedInWith(fromTokenAnswer(t.value, "", TOKEN_LIFETIME_SECONDS))
          })
      },
      verify,
      choose,
      refresh: (credentials) =>
        Effect.flatMap(
          Schema.decodeUnknown(SignedIn)(Redacted.value(credentials)).pipe(Effect.option),
          Option.match({
            onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })),
            onSome: (c) =>
              // the refresh keeps every other field (the location)
              Effect.map(refreshSignedIn(c), (r) =>
                r._tag === "Refreshed" ? Refresh.Refreshed({ credentials: { ...Redacted.value(credentials), ...r.credentials } }) : r
              )
          })
        ),
      publish,
      // Google takes no comments on local posts
      publishFollowUp: () =>
        Effect.succeed(
          PublishAnswer.Rejected({ message: "Google Business Profile posts take no follow-up comments.", fix: "Remove the follow-up." })
        ),
      search,
      // location insights are the separate Business Profile Performance API, which this server does not use
      statistics: { channel: () => noStatistics(NAME), post: () => noStatistics(NAME) },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyGmb
    }
    return adapter
  })

export const makeGmbAdapter = Effect.gen(function* () {
  const config = yield* Config.all({
    apiUrl: Config.option(Config.string("GMB_API_URL")),
    authUrl: Config.option(Config.string("GMB_AUTH_URL")),
    clientId: Config.option(Config.string("GMB_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("GMB_CLIENT_SECRET"))
  }).pipe(Effect.orDie)
  // GMB_API_URL stands for the three Google APIs, GMB_AUTH_URL for the sign-in page and token endpoint
  const api = Option.map(config.apiUrl, trimBase)
  const auth = Option.map(config.authUrl, trimBase)
  return yield* makeGmbAdapterWith({
    accountsUrl: Option.getOrElse(api, () => "https://mybusinessaccountmanagement.googleapis.com"),
    locationsUrl: Option.getOrElse(api, () => "https://mybusinessbusinessinformation.googleapis.com"),
    postsUrl: Option.getOrElse(api, () => "https://mybusiness.googleapis.com"),
    authorizeUrl: Option.match(auth, { onNone: () => "https://accounts.google.com/o/oauth2/v2/auth", onSome: (a) => `${a}/o/oauth2/v2/auth` }),
    tokenUrl: Option.match(auth, { onNone: () => "https://oauth2.googleapis.com/token", onSome: (a) => `${a}/token` }),
    clientId: config.clientId,
    clientSecret: config.clientSecret
  })
})
