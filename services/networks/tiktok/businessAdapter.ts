import { Effect, Option, Redacted, Schema } from "effect"
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
import { answerOf, connectFailedFrom, decodeForVerify, metricToday, networkAppConfig, readCredentials, unknownTool } from "../adapterKit.js"
import { NetworkDeps } from "../networkDeps.js"
import { call, decodeBody, excerpt, isSuccess, retryAfterMs, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import {
  BusinessAccount,
  BusinessProgress,
  BusinessToken,
  Codes,
  CommentCreated,
  CommentList,
  Envelope,
  PublishStatus,
  Shared,
  VideoList
} from "./businessApi.js"
import { authorizeUrl, failedAnswer, inboxAnswer, postUrl, profileUrl } from "./shared.js"

/**
 * TikTok business accounts through the TikTok API for Business (Accounts API, v1.3):
 * sign-in on TikTok's page with the app's id as `client_key`, `/tt_user/oauth2/token/`
 * (access tokens for a day, renewed with the refresh token), `Access-Token` header and the
 * account's `business_id` on every call. TikTok fetches the files itself: a video from its
 * public address (`/business/video/publish/`, `video_url`), photos likewise
 * (`/business/photo/publish/`); `/business/publish/status/` tells the end state and, once
 * the post is public, its id. Follow-ups are comments (`/business/comment/create/`).
 *
 * Steps (docs/publishing.md, "Publishes in several steps"): the publish answers a task id
 * (`share_id`), kept as progress; the status is asked at once and then again while TikTok
 * fetches and checks the files, and for up to 3 minutes more for the post's public id.
 */
const NAME = "TikTok Business"
const SCOPES = "user.info.basic,user.info.username,user.info.stats,video.list,video.insights,video.publish,comment.list,comment.list.manage"
const REFRESH_MARGIN_MS = 10 * 60_000
const ACCESS_LIFETIME_SECONDS = 86_400
const PROCESSING_RETRY_MS = 5_000
/** The docs: post_ids may appear up to 3 minutes after PUBLISH_COMPLETE. */
const POST_ID_WAIT_MS = 3 * 60_000
const POST_ID_RETRY_MS = 30_000
/** The docs of /business/comment/create/: a comment is at most 150 characters. */
const COMMENT_MAX = 150

export interface TikTokBusinessOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  businessId: Schema.String,
  username: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type

const TOKEN_CODES: ReadonlyArray<number> = [Codes.tokenExpired, Codes.tokenMissing, Codes.tokenInvalid]

/**
 * An answer to a call that posts: the transport and HTTP status first (shared rules), then
 * the API's own code: 40100 waits, token codes ask to reconnect, server codes (5xxxx) are no
 * answer, any other code is TikTok's refusal in its own words.
 */
const classifyBusiness = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  const envelope = decodeBody(Envelope, response)
  if (!isSuccess(response) || Option.isNone(envelope) || envelope.value.code === Codes.ok) {
    return statusAnswer(NAME, response, (r) => ({
      message: `TikTok refused the post (HTTP ${r.status}): ${excerpt(r, 160)}`,
      fix: "Change the post as the message says, then retry."
    }))
  }
  const { code, message } = envelope.value
  const said = message ?? `code ${code}`
  if (code === Codes.rateLimited) return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response) })
  if (TOKEN_CODES.includes(code)) {
    return PublishAnswer.Rejected({
      message: `TikTok no longer accepts this channel's sign-in (${said}).`,
      fix: "Reconnect the channel, then retry the post."
    })
  }
  if (code >= 50000) return PublishAnswer.NoAnswer({ reason: `TikTok answered code ${code}: ${said}` })
  return PublishAnswer.Rejected({
    message: `TikTok refused the post (code ${code}): ${said}`,
    fix: "Change the post as the message says, then retry."
  })
}

const captionTitle = (content: string) => content.split("\n")[0]?.slice(0, 90) ?? ""

export const makeTikTokBusinessAdapterWith = (options: TikTokBusinessOptions) =>
  Effect.gen(function* () {
    const { outbound, publicMedia } = yield* NetworkDeps
    const api = `${trimBase(options.apiUrl)}/v1.3`
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const headers = (accessToken: string) => ({ "access-token": accessToken, "content-type": "application/json", accept: "application/json" })
    const get = (accessToken: string, path: string, query: Record<string, string>) =>
      call(outbound, { url: `${api}${path}?${new URLSearchParams(query).toString()}`, headers: headers(accessToken) })
    const post = (accessToken: string, path: string, body: unknown) =>
      call(outbound, { url: `${api}${path}`, method: "POST", headers: headers(accessToken), body: JSON.stringify(body) })
    // the token endpoints take the app's credentials in the JSON body, without Access-Token
    const token = (body: Record<string, string>) =>
      call(outbound, {
        url: `${api}/tt_user/oauth2/${body["grant_type"] === "refresh_token" ? "refresh_token" : "token"}/`,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ client_id: clientId ?? "", client_secret: clientSecret ?? "", ...body })
      })

    const account = (c: Stored, fields: ReadonlyArray<string>) =>
      get(c.accessToken, "/business/get/", { business_id: c.businessId, fields: JSON.stringify(fields) })
    const statusOf = (c: Stored, shareId: string) =>
      get(c.accessToken, "/business/publish/status/", { business_id: c.businessId, publish_id: shareId })
    const videos = (c: Stored, filters?: unknown) =>
      get(c.accessToken, "/business/video/list/", {
        business_id: c.businessId,
        fields: JSON.stringify(["item_id", "caption", "share_url", "video_views", "likes", "comments", "shares"]),
        max_count: "20",
        ...(filters === undefined ? {} : { filters: JSON.stringify(filters) })
      })

    const connected = (stored: Stored) =>
      Effect.gen(function* () {
        const answer = yield* account(stored, ["username", "display_name", "profile_image"])
        const found = read(BusinessAccount, answer)
        if (Option.isNone(found)) return yield* connectFailedFrom(NAME, answer)
        const a = found.value.data
        return {
          credentials: { ...stored, ...(a.username === undefined ? {} : { username: a.username }) },
          profile: {
            accountId: stored.businessId,
            name: a.display_name ?? a.username ?? stored.businessId,
            profile: a.username ?? stored.businessId,
            picture: a.profile_image ?? null
          }
        }
      })

    const fromToken = (answer: NetworkAnswer, previous: Partial<Stored>) =>
      Option.map(read(BusinessToken, answer), (t) => ({
        ...previous,
        accessToken: t.data.access_token,
        // TikTok may rotate the refresh token: the new one is kept every time
        refreshToken: t.data.refresh_token,
        expiresAt: new Date(Date.now() + (t.data.expires_in ?? ACCESS_LIFETIME_SECONDS) * 1000).toISOString(),
        businessId: t.data.open_id
      }))

    const refreshStored = (c: Stored): Effect.Effect<Refresh> =>
      Effect.gen(function* () {
        if (Date.parse(c.expiresAt) - Date.now() > REFRESH_MARGIN_MS) return Refresh.Unchanged()
        const answer = yield* token({ grant_type: "refresh_token", refresh_token: c.refreshToken })
        if (answer._tag === "Failed") return Refresh.Unavailable({ reason: answer.error._tag })
        const { response } = answer
        if (response.status >= 500 || response.status === 429) return Refresh.Unavailable({ reason: `HTTP ${response.status}` })
        const fresh = fromToken(answer, c)
        if (Option.isSome(fresh)) return Refresh.Refreshed({ credentials: fresh.value })
        const code = Option.map(decodeBody(Envelope, response), (e) => e.code)
        // TikTok busy is not a refusal: the channel stays connected
        if (Option.isSome(code) && (code.value === Codes.rateLimited || code.value >= 50000))
          return Refresh.Unavailable({ reason: `code ${code.value}` })
        return Refresh.Failed({ reason: `HTTP ${response.status}: ${excerpt(response, 120)}` })
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken, expiresAt (ISO 8601) and businessId")(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: `${NAME} credentials: expiresAt is not an ISO 8601 date.` })
        const refreshed = yield* refreshStored(given)
        if (refreshed._tag === "Failed" || refreshed._tag === "Unavailable")
          return yield* new ConnectFailed({ message: `TikTok refused to refresh the token: ${refreshed.reason}` })
        const current =
          refreshed._tag === "Refreshed" ? Option.getOrElse(Schema.decodeUnknownOption(Stored)(refreshed.credentials), () => given) : given
        return yield* connected(current)
      })

    /** Step 1: TikTok is given the files' public addresses; its task id is the progress. */
    const start = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const video = request.media.find((m) => m.type === "video" || m.mime.startsWith("video/"))
        if (video === undefined && request.media.length === 0) {
          return PublishAnswer.Rejected({ message: "TikTok posts need a video or photos.", fix: "Attach a video or 1 to 35 photos, then retry." })
        }
        const asMediaError = Effect.mapError((e: { readonly message: string }) =>
          PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." })
        )
        const settings = request.channel.settings
        const off = (key: string) => settings[key] === false
        if (video !== undefined) {
          const url = yield* publicMedia.addressOf(video).pipe(asMediaError)
          const answer = yield* post(c.accessToken, "/business/video/publish/", {
            business_id: c.businessId,
            video_url: url,
            post_info: { caption: request.item.content, disable_comment: off("comment"), disable_duet: off("duet"), disable_stitch: off("stitch") }
          })
          return yield* afterPublish(c, answer, "video")
        }
        const urls = yield* Effect.forEach(request.media, (m) => publicMedia.addressOf(m)).pipe(asMediaError)
        const answer = yield* post(c.accessToken, "/business/photo/publish/", {
          business_id: c.businessId,
          photo_images: urls,
          photo_cover_index: 0,
          post_info: { title: captionTitle(request.item.content), caption: request.item.content, disable_comment: off("comment") }
        })
        return yield* afterPublish(c, answer, "photo")
      })

    const afterPublish = (c: Stored, answer: NetworkAnswer, kind: BusinessProgress["kind"]) =>
      Effect.gen(function* () {
        const shared = read(Shared, answer)
        if (Option.isNone(shared)) return classifyBusiness(answer)
        // TikTok fetches the files itself: ask once at once, it is often quick
        return yield* settle(c, { shareId: shared.value.data.share_id, kind })
      })

    /** The task's status → Published, Rejected or Pending (with the progress to ask again). */
    const settle = (c: Stored, progress: BusinessProgress) =>
      Effect.gen(function* () {
        const answer = yield* statusOf(c, progress.shareId)
        const status = read(PublishStatus, answer)
        if (Option.isNone(status)) {
          const why = classifyBusiness(answer)
          // the post went to TikTok: an unreadable status is asked again later, never sent twice
          return why._tag === "Rejected" ? why : waiting(progress, "TikTok's answer about the post", PROCESSING_RETRY_MS)
        }
        return answerOfStatus(c, progress, status.value.data)
      })

    const waiting = (progress: BusinessProgress, reason: string, retryAfterMs: number) =>
      PublishAnswer.Pending({ progress, kind: "processing", waitingFor: reason, retryAfterMs })

    const answerOfStatus = (c: Stored, progress: BusinessProgress, s: PublishStatus, now = Date.now()): PublishAnswer => {
      switch (s.status) {
        case "PUBLISH_COMPLETE": {
          const postId = s.post_ids?.[0]
          if (postId !== undefined) return PublishAnswer.Published({ releaseId: postId, releaseUrl: postUrl(c.username, progress.kind, postId) })
          const since = progress.completeAt ?? now
          // the post's public id may follow for 3 minutes; after that the task id and the profile stand for it
          if (now - since < POST_ID_WAIT_MS) return waiting({ ...progress, completeAt: since }, "TikTok to make the post public", POST_ID_RETRY_MS)
          return PublishAnswer.Published({ releaseId: progress.shareId, releaseUrl: profileUrl(c.username) })
        }
        case "FAILED":
          return failedAnswer(s.reason)
        case "SEND_TO_USER_INBOX":
          return inboxAnswer()
        default:
          return waiting(progress, "TikTok to fetch and check the files", PROCESSING_RETRY_MS)
      }
    }

    const progressOf = (request: PublishRequest) =>
      Option.flatMap(Option.fromNullable(request.progress), Schema.decodeUnknownOption(BusinessProgress))

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const progress = progressOf(request)
          return Option.isNone(progress) ? yield* start(c, request) : yield* settle(c, progress.value)
        })
      )

    /** A comment on the post (the thread's root): TikTok comments on posts, not on comments. */
    const publishFollowUp = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const videoId = request.rootReleaseId ?? request.previousReleaseId
          if (videoId === null || !/^\d+$/.test(videoId)) {
            return PublishAnswer.Rejected({
              message: "TikTok gave no public id for this post (it is private or not public yet), so it cannot be commented on.",
              fix: "Comment in the TikTok app."
            })
          }
          if ([...request.item.content].length > COMMENT_MAX) {
            return PublishAnswer.Rejected({
              message: `TikTok comments are at most ${COMMENT_MAX} characters.`,
              fix: `Shorten the comment to ${COMMENT_MAX} characters, then retry.`
            })
          }
          const answer = yield* post(c.accessToken, "/business/comment/create/", {
            business_id: c.businessId,
            video_id: videoId,
            text: request.item.content
          })
          const created = read(CommentCreated, answer)
          if (Option.isNone(created)) return classifyBusiness(answer)
          return PublishAnswer.Published({ releaseId: created.value.data.comment_id, releaseUrl: postUrl(c.username, "video", videoId) })
        })
      )

    /**
     * A lost answer. With the task id, its status says where it stands. A comment: the
     * account's own comments on the post. A post without a task id: the account's recent
     * posts by caption; not among them may still be a post TikTok is fetching (CannotTell).
     */
    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const progress = progressOf(request)
        if (Option.isSome(progress)) {
          const answer = yield* statusOf(c.value, progress.value.shareId)
          const status = read(PublishStatus, answer)
          if (Option.isNone(status))
            return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
          const found = answerOfStatus(c.value, progress.value, status.value.data)
          if (found._tag === "Published") return SearchAnswer.Found({ releaseId: found.releaseId, releaseUrl: found.releaseUrl })
          if (found._tag === "Rejected") return SearchAnswer.NotFound()
          return SearchAnswer.Unfinished({ progress: found._tag === "Pending" ? found.progress : progress.value })
        }
        const videoId = request.rootReleaseId ?? request.previousReleaseId
        if (request.item.position > 0 && videoId !== null) {
          const answer = yield* get(c.value.accessToken, "/business/comment/list/", {
            business_id: c.value.businessId,
            video_id: videoId,
            max_count: "30",
            sort_field: "create_time",
            sort_order: "desc"
          })
          const list = read(CommentList, answer)
          if (Option.isNone(list)) return SearchAnswer.CannotTell({ reason: "TikTok did not list the post's comments" })
          const mine = list.value.data.comments.find((m) => m.owner === true && sameText(m.text ?? "", request.item.content))
          return mine === undefined
            ? SearchAnswer.NotFound()
            : SearchAnswer.Found({ releaseId: mine.comment_id, releaseUrl: postUrl(c.value.username, "video", videoId) })
        }
        const list = read(VideoList, yield* videos(c.value))
        if (Option.isNone(list)) return SearchAnswer.CannotTell({ reason: "TikTok did not list the account's posts" })
        const kind = request.media.some((m) => m.type === "video" || m.mime.startsWith("video/")) ? "video" : "photo"
        const match = list.value.data.videos.find((v) => sameText(v.caption ?? "", request.item.content))
        if (match !== undefined)
          return SearchAnswer.Found({ releaseId: match.item_id, releaseUrl: match.share_url ?? postUrl(c.value.username, kind, match.item_id) })
        return SearchAnswer.CannotTell({ reason: "not among the account's public posts; TikTok may still be fetching it" })
      })

    const adapter: NetworkAdapter = {
      identifier: "tiktok-business",
      shortLivedTokens: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          authorizeUrl({
            networkName: NAME,
            envName: "TIKTOK_BUSINESS_CLIENT_ID",
            authUrl: options.authUrl,
            clientKey: clientId,
            scopes: SCOPES,
            redirectUri,
            state
          }),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", auth_code: code, redirect_uri: redirectUri })
            const stored = fromToken(answer, {})
            if (Option.isNone(stored)) return yield* connectFailedFrom(NAME, answer)
            return yield* connected(stored.value)
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
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const found = read(BusinessAccount, yield* account(c.value, ["followers_count", "videos_count", "total_likes"]))
            if (Option.isNone(found)) return Statistics.Missing({ message: "TikTok did not answer with the account's numbers." })
            const a = found.value.data
            return Statistics.Metrics({
              metrics: [
                metricToday("Followers", a.followers_count ?? 0),
                metricToday("Likes", a.total_likes ?? 0),
                metricToday("Videos", a.videos_count ?? 0)
              ]
            })
          }),
        post: (credentials, releaseId) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const found = Option.flatMap(read(VideoList, yield* videos(c.value, { video_ids: [releaseId] })), (l) =>
              Option.fromNullable(l.data.videos[0])
            )
            if (Option.isNone(found)) return Statistics.Missing({ message: "TikTok shares numbers only for public posts." })
            const v = found.value
            return Statistics.Metrics({
              metrics: [
                metricToday("Views", v.video_views ?? 0),
                metricToday("Likes", v.likes ?? 0),
                metricToday("Comments", v.comments ?? 0),
                metricToday("Shares", v.shares ?? 0)
              ]
            })
          })
      },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyBusiness
    }
    return adapter
  })

export const makeTikTokBusinessAdapter = Effect.gen(function* () {
  const env = yield* networkAppConfig("tiktok-business", { apiUrl: "https://business-api.tiktok.com/open_api", authUrl: "https://www.tiktok.com" })
  return yield* makeTikTokBusinessAdapterWith({ apiUrl: env.apiUrl, authUrl: env.authUrl, clientId: env.clientId, clientSecret: env.clientSecret })
})
