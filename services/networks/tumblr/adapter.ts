import { Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
  type Connected,
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import {
  answerOf,
  connectFailedFrom,
  decodeForVerify,
  metricToday,
  networkAppConfig,
  readAllMedia,
  readCredentials,
  unknownTool
} from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, verifiedTokens, TokenAnswer } from "../oauthRefresh.js"
import { call, decodeBody, excerpt, isSuccess, multipart, retryAfterMs, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import { isVideo, mediaBlocks, textBlocks, textOf } from "./npf.js"

/**
 * Tumblr's API v2 (github.com/tumblr/docs, api.md and npf-spec.md): OAuth 2.0 (sign-in at
 * www.tumblr.com/oauth2/authorize, tokens at /v2/oauth2/token; access tokens live 42
 * minutes, each refresh answers a new refresh token), the account's blogs from
 * /v2/user/info, posts in the Neue Post Format by POST /v2/blog/{blog}/posts (files in the
 * same multipart request, named by their block's identifier). Tumblr's API has no replies
 * for apps (notes are read-only), so no follow-ups; no duplicate guard: a lost answer is
 * settled by the blog's recent posts.
 */
const NAME = "Tumblr"
const SCOPES = "basic write offline_access"
/** Access tokens last 2520 s: refresh five minutes ahead. */
const REFRESH_MARGIN_MS = 5 * 60_000
const TOKEN_LIFETIME_SECONDS = 2520
/** Tumblr requires a consistent User-Agent from every application. */
const USER_AGENT = "post-scheduler/1"
/** The blog's daily cap (250 posts) or the user's upload cap is full: look again in an hour. */
const DAILY_CAP_RETRY_MS = 3600_000
/** Tumblr is still transcoding the user's previous video: try again in a minute. */
const TRANSCODING_RETRY_MS = 60_000

export interface TumblrOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.NonEmptyString,
  refreshToken: Schema.NonEmptyString,
  expiresAt: Schema.String,
  blog: Schema.NonEmptyTrimmedString
})
type Stored = typeof Stored.Type

/** Every answer is `{meta, response}` (api.md, "Response Format"). */
const envelope = <A, I>(response: Schema.Schema<A, I>) => Schema.Struct({ response })
const BlogOfUser = Schema.Struct({
  name: Schema.String,
  title: Schema.optional(Schema.String),
  url: Schema.optional(Schema.String),
  uuid: Schema.optional(Schema.String),
  primary: Schema.optional(Schema.Boolean),
  followers: Schema.optional(Schema.Number)
})
const UserInfo = envelope(Schema.Struct({ user: Schema.Struct({ name: Schema.String, blogs: Schema.Array(BlogOfUser) }) }))
const Created = envelope(Schema.Struct({ id: Schema.Union(Schema.NonEmptyString, Schema.Number) }))
const Posts = envelope(
  Schema.Struct({
    posts: Schema.Array(
      Schema.Struct({
        id_string: Schema.String,
        post_url: Schema.optional(Schema.String),
        note_count: Schema.optional(Schema.Number),
        content: Schema.optional(Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })))
      })
    )
  })
)
/** Tumblr's errors: `{meta, errors: [{title, code, detail}]}` (api.md, "Errors and Error Subcodes"). */
const Problem = Schema.Struct({
  errors: Schema.NonEmptyArray(
    Schema.Struct({ title: Schema.optional(Schema.String), detail: Schema.optional(Schema.String), code: Schema.optional(Schema.Number) })
  )
})

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const problemOf = (response: Response) => decodeBody(Problem, response)

const reasonOf = (response: Response) =>
  Option.match(problemOf(response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (p) => p.errors.map((e) => e.detail ?? e.title ?? `error ${e.code ?? ""}`).join("; ")
  })

/** The error subcodes of a refusal (api.md, "Errors and Error Subcodes"). */
const subcodesOf = (response: Response) =>
  Option.match(problemOf(response), { onNone: () => [] as ReadonlyArray<number>, onSome: (p) => p.errors.map((e) => e.code ?? 0) })

const rejection = (response: Response) => {
  const reason = reasonOf(response)
  if (response.status === 404 || (response.status === 403 && /blog/i.test(reason)))
    return { message: `Tumblr refused the post: ${reason}`, fix: "Choose one of the account's blogs (the blogs tool), then retry." }
  // 400.8005: the uploaded media is in a format Tumblr cannot accept
  if (subcodesOf(response).includes(8005) || /media|upload|format/i.test(reason))
    return {
      message: `Tumblr refused the post's media: ${reason}`,
      fix: "Check the files are JPEG, PNG, GIF or MP4 and at most one video, then retry."
    }
  return { message: `Tumblr refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

/** The blog's name as it appears in addresses (`staff.tumblr.com` → `staff`). */
const blogName = (blog: string) => blog.replace(/\.tumblr\.com$/i, "")

export const postUrl = (blog: string, id: string) => `https://www.tumblr.com/${encodeURIComponent(blogName(blog))}/${id}`

export const classifyTumblrFor =
  (blog: string) =>
  (answer: NetworkAnswer): PublishAnswer => {
    if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
    const { response } = answer
    const created = isSuccess(response) ? decodeBody(Created, response) : Option.none()
    if (Option.isSome(created)) {
      const id = String(created.value.response.id)
      return PublishAnswer.Published({ releaseId: id, releaseUrl: postUrl(blog, id) })
    }
    if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response) })
    if (response.status === 403) {
      // 8010: a video still transcoding; 8004, 8011, 8023: the daily media, video or post cap is full
      const codes = subcodesOf(response)
      if (codes.includes(8010)) return PublishAnswer.RateLimited({ retryAfterMs: TRANSCODING_RETRY_MS })
      if (codes.some((c) => c === 8023 || c === 8004 || c === 8011))
        return PublishAnswer.Pending({
          progress: { dailyCap: true },
          kind: "network-limit",
          waitingFor: `Tumblr's daily limit to free up (${reasonOf(response)})`,
          retryAfterMs: DAILY_CAP_RETRY_MS
        })
    }
    return statusAnswer(NAME, response, rejection)
  }

const text = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined)

const tagsOf = (value: unknown) =>
  (Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : [])
    .filter((t): t is string => typeof t === "string")
    .map((t) => t.trim())
    .filter((t) => t !== "")

export const makeTumblrAdapterWith = (options: TumblrOptions) =>
  Effect.gen(function* () {
    const deps = yield* NetworkDeps
    const { outbound } = deps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const headers = (token: string) => ({ authorization: `Bearer ${token}`, accept: "application/json", "user-agent": USER_AGENT })
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const get = (token: string, path: string) => call(outbound, { url: `${api}${path}`, headers: headers(token) })

    /** POST /v2/oauth2/token with the app's credentials in the form, as the docs show. */
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${api}/v2/oauth2/token`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", "user-agent": USER_AGENT },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "", client_secret: clientSecret ?? "" }).toString()
      })

    const refreshStored = (c: Stored) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
      })

    /** The account's blogs; the chosen one (by name, hostname or uuid) or the primary one becomes the channel's blog. */
    const connected = (tokens: Omit<Stored, "blog">, wanted: string | undefined) =>
      Effect.gen(function* () {
        const answer = yield* get(tokens.accessToken, "/v2/user/info")
        const info = read(UserInfo, answer)
        if (Option.isNone(info)) return yield* connectFailedFrom(NAME, answer)
        const { user } = info.value.response
        const matches = (b: typeof BlogOfUser.Type) => wanted !== undefined && (b.name === blogName(wanted) || b.uuid === wanted)
        const blog = wanted === undefined ? (user.blogs.find((b) => b.primary === true) ?? user.blogs[0]) : user.blogs.find(matches)
        if (blog === undefined)
          return yield* new ConnectFailed({
            message:
              wanted === undefined
                ? "This Tumblr account has no blog to post to."
                : `The blog ${wanted} is not one this Tumblr account can post to (${user.blogs.map((b) => b.name).join(", ")}).`
          })
        const result: Connected = {
          credentials: { ...tokens, blog: blog.name },
          profile: {
            accountId: blog.uuid ?? blog.name,
            name: blog.title ?? blog.name,
            profile: blog.name,
            picture: `${api}/v2/blog/${encodeURIComponent(blog.name)}/avatar/128`
          },
          defaultSettings: { blog: blog.name }
        }
        return result
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken, expiresAt (ISO 8601) and blog (the blog's name)")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "Tumblr", refusedBy: "Tumblr", refresh: refreshStored })
        return yield* connected({ accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: current.expiresAt }, given.blog)
      })

    const blogOf = (request: PublishRequest, c: Stored) => text(request.channel.settings["blog"]) ?? c.blog

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const blog = blogOf(request, c)
          if (request.media.filter(isVideo).length > 1)
            return PublishAnswer.Rejected({ message: "A Tumblr post takes one uploaded video.", fix: "Keep one video, then retry." })
          const files = yield* readAllMedia(deps.media, request.media)
          const media = mediaBlocks(request.media.map((stored, i) => ({ stored, file: files[i]! })))
          const tags = tagsOf(request.channel.settings["tags"])
          const body = JSON.stringify({
            content: [...media.map((m) => m.block), ...textBlocks(request.item.content)],
            state: "published",
            ...(tags.length === 0 ? {} : { tags: tags.join(",") })
          })
          // with files: the JSON first, then each file under its block's identifier (api.md, "User Uploaded Media")
          const form = media.length === 0 ? null : multipart([{ name: "json", value: body }, ...media.map((m) => m.part)])
          const answer = yield* call(outbound, {
            url: `${api}/v2/blog/${encodeURIComponent(blog)}/posts`,
            method: "POST",
            headers: { ...headers(c.accessToken), "content-type": form === null ? "application/json" : form.contentType },
            body: form === null ? body : form.body,
            ...(form === null ? {} : { timeoutMs: 300_000 })
          })
          return classifyTumblrFor(blog)(answer)
        })
      )

    const recentPosts = (c: Stored, blog: string, query: Record<string, string>) =>
      get(
        c.accessToken,
        `/v2/blog/${encodeURIComponent(blog)}/posts?${new URLSearchParams({ npf: "true", ...(clientId === undefined ? {} : { api_key: clientId }), ...query }).toString()}`
      )

    /** The blog's 20 latest posts, compared by their text blocks. */
    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const blog = blogOf(request, c.value)
        const answer = yield* recentPosts(c.value, blog, { limit: "20" })
        const posts = read(Posts, answer)
        if (Option.isNone(posts))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        const wanted = textOf(textBlocks(request.item.content))
        const found = posts.value.response.posts.find((p) => sameText(textOf(p.content ?? []), wanted))
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: found.id_string, releaseUrl: postUrl(blog, found.id_string) })
      })

    const withCredentials = (credentials: Redacted.Redacted<Credentials>, run: (c: Stored) => Effect.Effect<Statistics>) =>
      Effect.flatMap(
        credentialsOf(credentials).pipe(Effect.option),
        Option.match({ onNone: () => Effect.succeed(Statistics.Missing({ message: "The channel's credentials cannot be read." })), onSome: run })
      )

    const adapter: NetworkAdapter = {
      identifier: "tumblr",
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Tumblr is not set up on this server (TUMBLR_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/oauth2/authorize?${new URLSearchParams({ client_id: clientId, response_type: "code", scope: SCOPES, state, redirect_uri: redirectUri }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            if (t.value.refresh_token === undefined)
              return yield* new ConnectFailed({ message: "Tumblr answered no refresh token (the offline_access scope was not granted)." })
            return yield* connected(fromTokenAnswer(t.value, "", TOKEN_LIFETIME_SECONDS), undefined)
          })
      },
      verify,
      shortLivedTokens: true,
      refresh: (credentials) =>
        Effect.flatMap(
          credentialsOf(credentials).pipe(Effect.option),
          Option.match({ onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })), onSome: refreshStored })
        ),
      publish,
      // Tumblr's API creates posts and reblogs only: replies cannot be made by an app
      publishFollowUp: () =>
        Effect.succeed(PublishAnswer.Rejected({ message: "Tumblr's API takes no replies from apps.", fix: "Remove the follow-up." })),
      search,
      statistics: {
        channel: (credentials) =>
          withCredentials(credentials, (c) =>
            Effect.gen(function* () {
              const info = read(UserInfo, yield* get(c.accessToken, "/v2/user/info"))
              const blog = Option.flatMap(info, (i) => Option.fromNullable(i.response.user.blogs.find((b) => b.name === blogName(c.blog))))
              if (Option.isNone(blog) || blog.value.followers === undefined)
                return Statistics.Missing({ message: "Tumblr did not answer with the blog's followers." })
              return Statistics.Metrics({ metrics: [metricToday("Followers", blog.value.followers)] })
            })
          ),
        post: (credentials, releaseId) =>
          withCredentials(credentials, (c) =>
            Effect.gen(function* () {
              const posts = read(Posts, yield* recentPosts(c, c.blog, { id: releaseId, notes_info: "true" }))
              const post = Option.flatMap(posts, (p) => Option.fromNullable(p.response.posts[0]))
              if (Option.isNone(post) || post.value.note_count === undefined)
                return Statistics.Missing({ message: "Tumblr did not answer with the post's notes." })
              return Statistics.Metrics({ metrics: [metricToday("Notes", post.value.note_count, "Likes, reblogs and replies")] })
            })
          )
      },
      runTool: ({ credentials, methodName }) =>
        Effect.gen(function* () {
          if (methodName !== "blogs") return yield* unknownTool(methodName, NAME, ["blogs"])
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's Tumblr connection cannot be read. Reconnect it."))
          )
          const info = read(UserInfo, yield* get(c.accessToken, "/v2/user/info"))
          if (Option.isNone(info))
            return yield* Effect.fail(Errors.badRequest("Tumblr did not answer with the account's blogs. Try again in a minute."))
          return {
            blogs: info.value.response.user.blogs.map((b) => ({ name: b.name, title: b.title ?? b.name, default: b.name === blogName(c.blog) }))
          }
        }),
      // the publisher classifies with the blog it posted to (publish); without it the address names no blog
      classify: (answer) => classifyTumblrFor("")(answer)
    }
    return adapter
  })

export const makeTumblrAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("tumblr", { apiUrl: "https://api.tumblr.com", authUrl: "https://www.tumblr.com" })
  return yield* makeTumblrAdapterWith(options)
})
