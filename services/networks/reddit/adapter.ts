import { Effect, Option, Redacted, Schema } from "effect"
import { Errors } from "../../../domain/errors.js"
import {
  ConnectFailed,
  type Credentials,
  type NetworkAdapter,
  type NetworkAnswer,
  PublishAnswer,
  type PublishRequest,
  Refresh,
  SearchAnswer,
  Statistics
} from "../adapter.js"
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, readCredentials, unknownTool, networkAppConfig } from "../adapterKit.js"
import { type MediaFile, type MediaUnavailable, NetworkDeps } from "../networkDeps.js"
import { fromTokenAnswer, refreshOAuth, verifiedTokens, TokenAnswer } from "../oauthRefresh.js"
import { call, decodeBody, excerpt, isSuccess, multipart, retryAfterMs, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import { type Awaited, type Entry, entriesOf, type Posted, RedditProgress, redditUrl, type Submitted, submitAnswerOf } from "./submit.js"

/**
 * Reddit (reddit.com/dev/api, github.com/reddit-archive/reddit/wiki/OAuth2): OAuth 2.0 with
 * `duration=permanent` for a refresh token and HTTP Basic app credentials at
 * /api/v1/access_token; POST /api/submit (self, link, image, video) into each subreddit of the
 * post's `subreddit` setting with its own title and flair; images and videos through Reddit's
 * upload lease (POST /api/media/asset.json, then the S3 form it names), a video with its poster
 * (video_poster_url: the cover frame preparation made); follow-ups as comments
 * (POST /api/comment). Reddit answers refusals 200 with `json.errors`.
 */
const NAME = "Reddit"
const SCOPES = "identity submit read history flair mysubreddits"
/** Access tokens last an hour: refresh ten minutes ahead. */
const REFRESH_MARGIN_MS = 10 * 60_000
const TOKEN_LIFETIME_SECONDS = 3600
/** How often a video Reddit took is looked for in the account's submissions, and for how long. */
const VIDEO_RETRY_MS = 15_000
const VIDEO_WAIT_MS = 3600_000
/** Reddit asks every client for a descriptive User-Agent. */
const USER_AGENT = "server:post-scheduler:v1 (by /u/post-scheduler)"

export interface RedditOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  username: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type
const Me = Schema.Struct({
  name: Schema.String,
  id: Schema.String,
  icon_img: Schema.optional(Schema.NullOr(Schema.String)),
  link_karma: Schema.optional(Schema.Number),
  comment_karma: Schema.optional(Schema.Number)
})
const Listing = <A, I>(data: Schema.Schema<A, I>) =>
  Schema.Struct({ data: Schema.Struct({ children: Schema.Array(Schema.Struct({ kind: Schema.String, data })) }) })
const Link = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  title: Schema.String,
  subreddit: Schema.String,
  permalink: Schema.String,
  score: Schema.optional(Schema.Number),
  num_comments: Schema.optional(Schema.Number),
  upvote_ratio: Schema.optional(Schema.Number)
})
const Subreddit = Schema.Struct({
  display_name: Schema.String,
  title: Schema.optional(Schema.String),
  subscribers: Schema.optional(Schema.NullOr(Schema.Number)),
  submission_type: Schema.optional(Schema.String)
})
const Flairs = Schema.Array(Schema.Struct({ id: Schema.String, text: Schema.String }))
const Lease = Schema.Struct({
  args: Schema.Struct({ action: Schema.String, fields: Schema.Array(Schema.Struct({ name: Schema.String, value: Schema.String })) }),
  asset: Schema.Struct({ asset_id: Schema.String })
})
/** What the submit says of the item's file (kind image or video, and the addresses on Reddit's media host). */
type MediaFields =
  | { readonly kind: "image"; readonly url: string }
  | { readonly kind: "video"; readonly url: string; readonly video_poster_url: string }
const isVideo = (m: { readonly type: string; readonly mime: string }) => m.type === "video" || m.mime.startsWith("video/")
const Problem = Schema.Struct({ message: Schema.optional(Schema.String), error: Schema.optional(Schema.Union(Schema.String, Schema.Number)) })

type Response = Parameters<Parameters<typeof statusAnswer>[2]>[0]

const rejection = (response: Response) => {
  const reason = Option.match(decodeBody(Problem, response), {
    onNone: () => `HTTP ${response.status}: ${excerpt(response, 120)}`,
    onSome: (p) => `${p.message ?? p.error ?? `HTTP ${response.status}`}`
  })
  if (response.status === 403)
    return { message: `Reddit refused the post: ${reason}`, fix: "Check the account may post in the subreddit (not banned, old enough), then retry." }
  return { message: `Reddit refused the post: ${reason}`, fix: "Change the post as the message says, then retry." }
}

/** Reddit's wait for a 429: Retry-After, else x-ratelimit-reset (seconds until the window resets). */
const rateLimitWait = (response: Response) => {
  if (response.headers["retry-after"] !== undefined) return retryAfterMs(response)
  const reset = Number(response.headers["x-ratelimit-reset"])
  return Number.isFinite(reset) && reset > 0 ? Math.max(1000, Math.ceil(reset * 1000)) : 60_000
}

/** A submit or comment answer: Published with the fullname, Reddit's `json.errors` as Rejected (RATELIMIT as RateLimited). */
export const classifyReddit = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: rateLimitWait(response) })
  if (isSuccess(response)) {
    const submitted = submitAnswerOf(response)
    if (Option.isSome(submitted)) return fromSubmitted(submitted.value)
  }
  return statusAnswer(NAME, response, rejection)
}

const fromSubmitted = (s: Submitted): PublishAnswer => {
  switch (s._tag) {
    case "Posted":
      return PublishAnswer.Published({ releaseId: s.name, releaseUrl: s.url })
    case "RateLimited":
      return PublishAnswer.RateLimited({ retryAfterMs: s.retryAfterMs })
    case "Refused":
      return PublishAnswer.Rejected({ message: `Reddit refused the post: ${s.text}`, fix: s.fix })
    case "Accepted":
      return PublishAnswer.NoAnswer({ reason: "Reddit took the image or video post without naming it; the search finds it" })
  }
}

export const makeRedditAdapterWith = (options: RedditOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const auth = trimBase(options.authUrl)
    const scheme = new URL(api).protocol
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const headers = (token: string) => ({ authorization: `bearer ${token}`, accept: "application/json", "user-agent": USER_AGENT })
    const get = (token: string, path: string) => call(outbound, { url: `${api}${path}`, headers: headers(token) })
    const postForm = (token: string, path: string, form: Record<string, string>) =>
      call(outbound, {
        url: `${api}${path}`,
        method: "POST",
        headers: { ...headers(token), "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString()
      })

    /** POST /api/v1/access_token with the app's Basic credentials. */
    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${auth}/api/v1/access_token`,
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
          "user-agent": USER_AGENT,
          authorization: `Basic ${Buffer.from(`${clientId ?? ""}:${clientSecret ?? ""}`).toString("base64")}`
        },
        body: new URLSearchParams(form).toString()
      })

    const refreshStored = (c: Stored) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
      })

    const connected = (stored: Omit<Stored, "username">) =>
      Effect.gen(function* () {
        const answer = yield* get(stored.accessToken, "/api/v1/me")
        const me = read(Me, answer)
        if (Option.isNone(me)) return yield* connectFailedFrom(NAME, answer)
        // Reddit's icon addresses carry HTML-escaped query strings
        const picture =
          me.value.icon_img === undefined || me.value.icon_img === null || me.value.icon_img === "" ? null : me.value.icon_img.replace(/&amp;/g, "&")
        return {
          credentials: { ...stored, username: me.value.name },
          profile: { accountId: me.value.id, name: me.value.name, profile: me.value.name, picture }
        }
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken and expiresAt (ISO 8601)")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "Reddit", refusedBy: "Reddit", refresh: refreshStored })
        return yield* connected({ accessToken: current.accessToken, refreshToken: current.refreshToken, expiresAt: current.expiresAt })
      })

    /** A file through Reddit's upload lease (POST /api/media/asset.json, then the S3 form it names): its address on Reddit's media host. */
    const uploadAsset = (c: Stored, file: MediaFile, what: string) =>
      Effect.gen(function* () {
        const filename = file.name || (file.mime.startsWith("video/") ? "video.mp4" : "image.png")
        const leased = yield* postForm(c.accessToken, "/api/media/asset.json", { filepath: filename, mimetype: file.mime })
        const lease = read(Lease, leased)
        const failed = (answer: NetworkAnswer) => {
          const why = classifyReddit(answer)
          return why._tag === "Rejected" || why._tag === "RateLimited"
            ? why
            : PublishAnswer.FailedBeforeSending({ reason: `the ${what} upload failed (${why._tag === "NoAnswer" ? why.reason : why._tag})` })
        }
        if (Option.isNone(lease)) return yield* Effect.fail(failed(leased))
        // the lease's action is scheme-relative (//bucket.host): the API's scheme
        const action = lease.value.args.action.startsWith("//") ? `${scheme}${lease.value.args.action}` : lease.value.args.action
        const form = multipart([
          ...lease.value.args.fields.map((f) => ({ name: f.name, value: f.value })),
          { name: "file", filename, mime: file.mime, bytes: file.bytes }
        ])
        const sent = yield* call(outbound, {
          url: action,
          method: "POST",
          headers: { "content-type": form.contentType },
          body: form.body,
          timeoutMs: 300_000
        })
        if (sent._tag === "Failed" || !isSuccess(sent.response)) return yield* Effect.fail(failed(sent))
        const key = lease.value.args.fields.find((f) => f.name === "key")?.value ?? ""
        return `${trimBase(action)}/${key}`
      })

    const unreadable = (e: MediaUnavailable) =>
      PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." })

    /**
     * The item's file on Reddit's media host, as the submit names it: an image, or a video with
     * its poster (video_poster_url, which Reddit's video submit needs): the cover frame
     * preparation made (domain/networks/mediaRules.ts). A video without one is refused before anything is uploaded.
     */
    const uploadMedia = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const stored = request.media[0]
        if (stored === undefined)
          return yield* Effect.fail(PublishAnswer.Rejected({ message: "No file to upload.", fix: "Attach the file, then retry." }))
        if (!isVideo(stored)) {
          const image = yield* media.read(stored).pipe(Effect.mapError(unreadable))
          return { kind: "image", url: yield* uploadAsset(c, image, "image") } satisfies MediaFields
        }
        const cover = yield* media.readCover(stored).pipe(Effect.mapError(unreadable))
        if (Option.isNone(cover))
          return yield* Effect.fail(
            PublishAnswer.Rejected({
              message: `Reddit needs a poster image for a video post, and ${stored.name} has none (only videos of the media library are prepared with one).`,
              fix: "Upload the video to the media library and attach that upload (its poster is made there), or post a link to the video, then retry."
            })
          )
        const video = yield* media.read(stored).pipe(Effect.mapError(unreadable))
        const url = yield* uploadAsset(c, video, "video")
        const poster = yield* uploadAsset(c, cover.value, "poster image")
        return { kind: "video", url, video_poster_url: poster } satisfies MediaFields
      })

    /** The newest submission of the account in this subreddit with this title, if Reddit lists it. */
    const findSubmitted = (c: Stored, entry: Entry) =>
      Effect.gen(function* () {
        const username = c.username ?? Option.getOrUndefined(Option.map(read(Me, yield* get(c.accessToken, "/api/v1/me")), (m) => m.name))
        if (username === undefined) return Option.none<Option.Option<Posted>>()
        const answer = yield* get(c.accessToken, `/user/${encodeURIComponent(username)}/submitted?sort=new&limit=25&raw_json=1`)
        const listed = read(Listing(Link), answer)
        if (Option.isNone(listed)) return Option.none<Option.Option<Posted>>()
        const found = listed.value.data.children
          .map((child) => child.data)
          .find((l) => l.subreddit.toLowerCase() === entry.subreddit.toLowerCase() && sameText(l.title, entry.title))
        return Option.some(
          Option.fromNullable(found).pipe(Option.map((l): Posted => ({ subreddit: entry.subreddit, name: l.name, url: redditUrl(l.permalink) })))
        )
      })

    const flairFix = (c: Stored, subreddit: string) =>
      Effect.gen(function* () {
        const flairs = read(Flairs, yield* get(c.accessToken, `/r/${encodeURIComponent(subreddit)}/api/link_flair_v2`))
        const list = Option.match(flairs, { onNone: () => "", onSome: (f) => ` Its flairs: ${f.map((x) => `${x.text} (${x.id})`).join(", ")}.` })
        return `Set flair_id on the r/${subreddit} entry of the subreddit setting.${list}`
      })

    /** One subreddit's submit: Published (with its fullname) or why not; a video Reddit took but has not named yet is awaited. */
    const submitOne = (c: Stored, request: PublishRequest, entry: Entry, file: MediaFields | undefined, done: ReadonlyArray<Posted>) =>
      Effect.gen(function* () {
        const kind = file?.kind ?? (entry.url !== undefined ? "link" : "self")
        const answer = yield* postForm(c.accessToken, "/api/submit", {
          api_type: "json",
          sr: entry.subreddit,
          title: entry.title,
          kind,
          resubmit: "true",
          sendreplies: "true",
          ...(file === undefined
            ? kind === "self"
              ? { text: request.item.content }
              : { url: entry.url ?? "" }
            : file.kind === "video"
              ? { url: file.url, video_poster_url: file.video_poster_url }
              : { url: file.url }),
          ...(entry.flairId === undefined ? {} : { flair_id: entry.flairId }),
          ...(entry.flairText === undefined ? {} : { flair_text: entry.flairText })
        })
        const classified = classifyReddit(answer)
        if (classified._tag === "Rejected" && /FLAIR/i.test(classified.message)) {
          return PublishAnswer.Rejected({ message: classified.message, fix: yield* flairFix(c, entry.subreddit) })
        }
        if (classified._tag !== "NoAnswer" || answer._tag !== "Response" || !isSuccess(answer.response)) return classified
        // an image or video post is answered without its id (Reddit names it on a websocket): its listing has it
        const found = yield* findSubmitted(c, entry)
        return Option.match(Option.flatten(found), {
          // a video is listed once Reddit has processed it: looked for again, never submitted again
          onNone: () => (kind === "video" ? awaitVideo({ done, awaiting: { subreddit: entry.subreddit, since: Date.now() } }) : classified),
          onSome: (p) => PublishAnswer.Published({ releaseId: p.name, releaseUrl: p.url })
        })
      })

    const awaitVideo = (progress: RedditProgress) =>
      PublishAnswer.Pending({ progress, kind: "processing", waitingFor: "Reddit to process the video", retryAfterMs: VIDEO_RETRY_MS })

    /** A video submit Reddit took earlier: its post once listed, else still awaited (for an hour at most). */
    const lookForVideo = (c: Stored, entry: Entry, progress: RedditProgress & { readonly awaiting: Awaited }) =>
      Effect.gen(function* () {
        const found = yield* findSubmitted(c, entry)
        if (Option.isSome(found) && Option.isSome(found.value))
          return PublishAnswer.Published({ releaseId: found.value.value.name, releaseUrl: found.value.value.url })
        if (Date.now() - progress.awaiting.since < VIDEO_WAIT_MS) return awaitVideo(progress)
        // never submitted again: a late video would make a second copy
        return PublishAnswer.Rejected({
          message: `Reddit took the video for r/${entry.subreddit} but did not list the post within an hour (its processing may have failed).`,
          fix: "Check the account's posts on Reddit; retry the post only if the video is not there."
        })
      })

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const entries = entriesOf(request.channel.settings)
          if (entries.length === 0)
            return PublishAnswer.Rejected({
              message: "A Reddit post needs a subreddit and a title.",
              fix: "Fill the subreddit setting with {subreddit, title} (the subreddits tool finds them), then retry."
            })
          const progress = request.progress === null ? Option.none() : Schema.decodeUnknownOption(RedditProgress)(request.progress)
          const done = Option.match(progress, { onNone: () => [], onSome: (p) => p.done })
          const next = entries.find((e) => !done.some((d) => d.subreddit.toLowerCase() === e.subreddit.toLowerCase()))
          const first = done[0]
          if (next === undefined)
            return first === undefined
              ? PublishAnswer.Rejected({ message: "Nothing to post.", fix: "Fill the subreddit setting." })
              : PublishAnswer.Published({ releaseId: first.name, releaseUrl: first.url })
          const awaiting = Option.flatMap(progress, (p) => Option.fromNullable(p.awaiting))
          const answer =
            Option.isSome(awaiting) && awaiting.value.subreddit.toLowerCase() === next.subreddit.toLowerCase()
              ? yield* lookForVideo(c, next, { done, awaiting: awaiting.value })
              : yield* submitOne(
                  c,
                  request,
                  next,
                  request.media.length > 0 && next.type !== "link" ? yield* uploadMedia(c, request) : undefined,
                  done
                )
          if (answer._tag !== "Published") return answer
          const posted = [...done, { subreddit: next.subreddit, name: answer.releaseId, url: answer.releaseUrl }]
          const left = entries.length - posted.length
          const head = posted[0] ?? { name: answer.releaseId, url: answer.releaseUrl }
          // each further subreddit is its own step: a retry never posts twice where it is live
          return left > 0
            ? PublishAnswer.Pending({
                progress: { done: posted },
                kind: "processing",
                waitingFor: `Reddit: ${left} more subreddit(s) to post in`,
                retryAfterMs: 2_000
              })
            : PublishAnswer.Published({ releaseId: head.name, releaseUrl: head.url })
        })
      )

    const publishFollowUp = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const parent = request.previousReleaseId ?? request.rootReleaseId ?? ""
          if (parent === "") return PublishAnswer.Rejected({ message: "A comment needs the post it answers.", fix: "Publish the post first." })
          return classifyReddit(yield* postForm(c.accessToken, "/api/comment", { api_type: "json", thing_id: parent, text: request.item.content }))
        })
      )

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        if (request.item.position > 0 || request.previousReleaseId !== null)
          return SearchAnswer.CannotTell({ reason: "Reddit comments are not searched" })
        const entries = entriesOf(request.channel.settings)
        const progress = request.progress === null ? Option.none() : Schema.decodeUnknownOption(RedditProgress)(request.progress)
        const done = Option.match(progress, { onNone: () => [], onSome: (p) => p.done })
        const awaiting = Option.flatMap(progress, (p) => Option.fromNullable(p.awaiting))
        const next = entries.find((e) => !done.some((d) => d.subreddit.toLowerCase() === e.subreddit.toLowerCase()))
        if (next === undefined) {
          const first = done[0]
          return first === undefined ? SearchAnswer.NotFound() : SearchAnswer.Found({ releaseId: first.name, releaseUrl: first.url })
        }
        const found = yield* findSubmitted(c.value, next)
        if (Option.isNone(found)) return SearchAnswer.CannotTell({ reason: "Reddit did not list the account's submissions" })
        // a video Reddit took is not listed until processed: still awaited, never "not found" (that would post it again)
        if (Option.isNone(found.value))
          return Option.isSome(awaiting)
            ? SearchAnswer.Unfinished({ progress: { done, awaiting: awaiting.value } })
            : done.length === 0
              ? SearchAnswer.NotFound()
              : SearchAnswer.Unfinished({ progress: { done } })
        const posted = [...done, found.value.value]
        const head = posted[0] ?? found.value.value
        return posted.length < entries.length
          ? SearchAnswer.Unfinished({ progress: { done: posted } })
          : SearchAnswer.Found({ releaseId: head.name, releaseUrl: head.url })
      })

    const withCredentials = (credentials: Redacted.Redacted<Credentials>, f: (c: Stored) => Effect.Effect<Statistics>) =>
      Effect.flatMap(
        credentialsOf(credentials).pipe(Effect.option),
        (c): Effect.Effect<Statistics> =>
          Option.isNone(c) ? Effect.succeed(Statistics.Missing({ message: "The channel's credentials cannot be read." })) : f(c.value)
      )

    const adapter: NetworkAdapter = {
      identifier: "reddit",
      // access tokens live hours and are renewed with the refresh token: their expiry is no warning
      shortLivedTokens: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "Reddit is not set up on this server (REDDIT_CLIENT_ID)." }))
            : Effect.succeed(
                `${auth}/api/v1/authorize?${new URLSearchParams({
                  client_id: clientId,
                  response_type: "code",
                  state,
                  redirect_uri: redirectUri,
                  // permanent: Reddit answers a refresh token only then
                  duration: "permanent",
                  scope: SCOPES
                }).toString()}`
              ),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            if (t.value.refresh_token === undefined)
              return yield* new ConnectFailed({ message: "Reddit answered no refresh token (duration=permanent)." })
            return yield* connected(fromTokenAnswer(t.value, "", TOKEN_LIFETIME_SECONDS))
          })
      },
      verify,
      refresh: (credentials) =>
        Effect.flatMap(
          credentialsOf(credentials).pipe(Effect.option),
          Option.match({ onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })), onSome: refreshStored })
        ),
      publish,
      publishFollowUp,
      search,
      statistics: {
        channel: (credentials) =>
          withCredentials(credentials, (c) =>
            Effect.map(get(c.accessToken, "/api/v1/me"), (answer) =>
              Option.match(read(Me, answer), {
                onNone: () => Statistics.Missing({ message: "Reddit did not answer with the account's karma." }),
                onSome: (me) =>
                  Statistics.Metrics({
                    metrics: [metricToday("Post karma", me.link_karma ?? 0), metricToday("Comment karma", me.comment_karma ?? 0)]
                  })
              })
            )
          ),
        post: (credentials, releaseId) =>
          withCredentials(credentials, (c) =>
            Effect.map(get(c.accessToken, `/api/info?id=${encodeURIComponent(releaseId)}`), (answer) =>
              Option.match(
                Option.flatMap(read(Listing(Link), answer), (l) => Option.fromNullable(l.data.children[0]?.data)),
                {
                  onNone: () => Statistics.Missing({ message: "Reddit did not answer with the post's numbers." }),
                  onSome: (l) => Statistics.Metrics({ metrics: [metricToday("Score", l.score ?? 0), metricToday("Comments", l.num_comments ?? 0)] })
                }
              )
            )
          )
      },
      runTool: ({ credentials, data, methodName }) =>
        Effect.gen(function* () {
          if (methodName !== "subreddits") return yield* unknownTool(methodName, NAME, ["subreddits"])
          const word = typeof data["word"] === "string" ? data["word"].trim() : ""
          if (word === "") return yield* Effect.fail(Errors.badRequest("The subreddits tool needs a word to search for."))
          const c = yield* credentialsOf(credentials).pipe(
            Effect.mapError(() => Errors.badRequest("The channel's Reddit connection cannot be read. Reconnect it."))
          )
          const found = read(
            Listing(Subreddit),
            yield* get(c.accessToken, `/subreddits/search?${new URLSearchParams({ q: word, limit: "10", raw_json: "1" }).toString()}`)
          )
          if (Option.isNone(found)) return yield* Effect.fail(Errors.badRequest("Reddit did not answer the search. Try again in a minute."))
          return {
            subreddits: found.value.data.children.map(({ data: s }) => ({
              subreddit: s.display_name,
              title: s.title ?? s.display_name,
              subscribers: s.subscribers ?? 0,
              submissionType: s.submission_type ?? "any"
            }))
          }
        }),
      classify: classifyReddit
    }
    return adapter
  })

export const makeRedditAdapter = Effect.gen(function* () {
  const options = yield* networkAppConfig("reddit", { apiUrl: "https://oauth.reddit.com", authUrl: "https://www.reddit.com" })
  return yield* makeRedditAdapterWith(options)
})
