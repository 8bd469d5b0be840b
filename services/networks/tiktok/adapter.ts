import { Config, Effect, Option, Redacted, Schema } from "effect"
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
import { fromTokenAnswer, refreshOAuth } from "../oauthRefresh.js"
import { bearerJson, call, decodeBody, excerpt, isSuccess, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import { authorizeUrl, failedAnswer, inboxAnswer, postUrl, profileUrl } from "./shared.js"
import { chunksOf, CreatorInfo, Init, rawPostIdOf, Status, TikTokError, TikTokProgress, TikTokToken, UserInfo, VideoQuery } from "./api.js"

/**
 * TikTok Content Posting API (developers.tiktok.com): Login Kit OAuth (access tokens for
 * 24 hours, refreshed before use), `creator_info/query` before every post (its privacy
 * levels, switches and longest video are what the post may use), a video sent in chunks
 * (FILE_UPLOAD) or fetched by TikTok (PULL_FROM_URL, when the operator verified the
 * domain), photo posts (always fetched by TikTok), and `status/fetch` until the end state.
 *
 * Steps (docs/publishing.md, "Publishes in several steps"): 1. init → Pending with the
 * publish id before a byte is sent; 2. the chunks, then status/fetch; 3. status/fetch again
 * while TikTok processes. An app TikTok has not audited may only post SELF_ONLY: unless
 * TIKTOK_APP_AUDITED=true every post goes out private to the creator.
 */
const NAME = "TikTok"
const SCOPES = "user.info.basic,user.info.profile,user.info.stats,video.publish,video.upload,video.list"
const REFRESH_MARGIN_MS = 10 * 60_000
const ACCESS_LIFETIME_SECONDS = 86_400
/** How often the status is asked while TikTok processes. */
const PROCESSING_RETRY_MS = 5_000
/** TikTok caps posts per creator per day (spam_risk_too_many_posts): look again in an hour. */
const DAILY_CAP_RETRY_MS = 3600_000
const UPLOAD_TIMEOUT_MS = 300_000

export interface TikTokOptions {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientKey: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
  /** TikTok audited the app: posts may be public. Otherwise every post is SELF_ONLY. */
  readonly audited: boolean
  /** The operator verified PUBLIC_URL's domain with TikTok: videos are fetched by TikTok instead of uploaded. */
  readonly pullFromUrl: boolean
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  openId: Schema.String,
  username: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type

type Response = Extract<NetworkAnswer, { _tag: "Response" }>["response"]

const codeOf = (response: Response) =>
  Option.match(decodeBody(TikTokError, response), {
    onNone: () => ({ code: `HTTP ${response.status}`, message: excerpt(response, 160) }),
    onSome: (e) => ({ code: e.error.code, message: e.error.message ?? e.error.code })
  })

const rejection = (response: Response) => {
  const { code, message } = codeOf(response)
  switch (code) {
    case "unaudited_client_can_only_post_to_private_accounts":
      return {
        message: `TikTok takes only private (SELF_ONLY) posts from an app it has not audited: ${message}`,
        fix: "Post as SELF_ONLY, or have TikTok audit the app and set TIKTOK_APP_AUDITED=true."
      }
    case "url_ownership_unverified":
      return {
        message: `TikTok fetches photos and pulled videos only from a domain the app verified: ${message}`,
        fix: "Verify the domain of PUBLIC_URL in the TikTok developer portal (videos can be uploaded instead: unset TIKTOK_PULL_FROM_URL)."
      }
    case "privacy_level_option_mismatch":
      return { message: `TikTok refused the privacy level: ${message}`, fix: "Choose one of the creator's privacy levels, then retry." }
    case "spam_risk_user_banned_from_posting":
      return { message: `TikTok does not let this account post now: ${message}`, fix: "Check the account in the TikTok app." }
    default:
      return { message: `TikTok refused the post (${code}): ${message}`, fix: "Change the post as the message says, then retry." }
  }
}

/** An answer to a call that starts or finishes a post: TikTok's error codes first, then the shared status rules. */
const classifyTikTok = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (!isSuccess(response) && codeOf(response).code === "spam_risk_too_many_posts") {
    return PublishAnswer.Pending({
      progress: {},
      kind: "network-limit",
      waitingFor: "TikTok's daily cap of posts for this creator",
      retryAfterMs: DAILY_CAP_RETRY_MS
    })
  }
  return statusAnswer(NAME, response, rejection)
}

export const makeTikTokAdapterWith = (options: TikTokOptions) =>
  Effect.gen(function* () {
    const { media, outbound, publicMedia } = yield* NetworkDeps
    const api = trimBase(options.apiUrl)
    const credentialsOf = readCredentials(Stored, NAME)
    const clientKey = Option.getOrUndefined(options.clientKey)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const post = (accessToken: string, path: string, body: unknown) =>
      call(outbound, { url: `${api}${path}`, method: "POST", headers: bearerJson(accessToken), body: JSON.stringify(body) })

    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: `${api}/v2/oauth/token/`,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ ...form, client_key: clientKey ?? "", client_secret: clientSecret ?? "" }).toString()
      })

    const userInfo = (accessToken: string, fields: string) =>
      call(outbound, { url: `${api}/v2/user/info/?fields=${fields}`, headers: bearerJson(accessToken) })
    const creatorInfo = (accessToken: string) => post(accessToken, "/v2/post/publish/creator_info/query/", {})
    const statusOf = (accessToken: string, publishId: string) => post(accessToken, "/v2/post/publish/status/fetch/", { publish_id: publishId })

    /** Who the token is, and the creator's longest video kept as the channel's default (checked before a post is saved). */
    const connected = (stored: Stored) =>
      Effect.gen(function* () {
        const answer = yield* userInfo(stored.accessToken, "open_id,display_name,username,avatar_url")
        const user = read(UserInfo, answer)
        if (Option.isNone(user)) return yield* connectFailedFrom(NAME, answer)
        const creatorAnswer = yield* creatorInfo(stored.accessToken)
        const creator = read(CreatorInfo, creatorAnswer)
        if (Option.isNone(creator)) return yield* connectFailedFrom(NAME, creatorAnswer)
        const u = user.value.data.user
        const username = u.username ?? creator.value.data.creator_username
        return {
          credentials: { ...stored, openId: u.open_id, ...(username === undefined ? {} : { username }) },
          profile: {
            accountId: u.open_id,
            name: u.display_name ?? username ?? u.open_id,
            profile: username ?? u.open_id,
            picture: u.avatar_url ?? null
          },
          defaultSettings: { creator_max_video_seconds: creator.value.data.max_video_post_duration_sec }
        }
      })

    const refreshStored = (c: Stored) =>
      refreshOAuth(c, {
        marginMs: REFRESH_MARGIN_MS,
        defaultLifetimeSeconds: ACCESS_LIFETIME_SECONDS,
        exchange: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken })
      })

    const verify = (input: unknown) =>
      Effect.gen(function* () {
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken, expiresAt (ISO 8601) and openId")(input)
        if (Number.isNaN(Date.parse(given.expiresAt)))
          return yield* new ConnectFailed({ message: "TikTok credentials: expiresAt is not an ISO 8601 date." })
        const refreshed = yield* refreshStored(given)
        if (refreshed._tag === "Failed" || refreshed._tag === "Unavailable")
          return yield* new ConnectFailed({ message: `TikTok refused to refresh the token: ${refreshed.reason}` })
        const current =
          refreshed._tag === "Refreshed" ? Option.getOrElse(Schema.decodeUnknownOption(Stored)(refreshed.credentials), () => given) : given
        return yield* connected(current)
      })

    /** The post's settings checked against what the creator may post now (creator_info). */
    const postInfo = (c: Stored, request: PublishRequest, isVideo: boolean) =>
      Effect.gen(function* () {
        const answer = yield* creatorInfo(c.accessToken)
        const info = read(CreatorInfo, answer)
        if (Option.isNone(info)) {
          const why = classifyTikTok(answer)
          // nothing was posted yet: an unreadable answer is safe to ask again
          return yield* Effect.fail(why._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `creator_info: ${why.reason}` }) : why)
        }
        const creator = info.value.data
        const settings = request.channel.settings
        const asked = typeof settings["privacy_level"] === "string" ? settings["privacy_level"] : "SELF_ONLY"
        const privacy = options.audited ? asked : "SELF_ONLY"
        if (!creator.privacy_level_options.includes(privacy)) {
          return yield* Effect.fail(
            PublishAnswer.Rejected({
              message: `This TikTok creator cannot post as ${privacy}; the account allows ${creator.privacy_level_options.join(", ")}.`,
              fix: "Choose one of those in the post's settings (privacy_level), then retry."
            })
          )
        }
        const longest = request.media.reduce((n, m) => (m.facts?.kind === "video" ? Math.max(n, m.facts.durationSeconds) : n), 0)
        if (isVideo && longest > creator.max_video_post_duration_sec) {
          return yield* Effect.fail(
            PublishAnswer.Rejected({
              message: `The video is ${Math.ceil(longest)} s long; this TikTok creator may post at most ${creator.max_video_post_duration_sec} s.`,
              fix: "Shorten the video, then retry."
            })
          )
        }
        // a switch the creator turned off in the app stays off whatever the post asks
        const off = (key: string, creatorOff: boolean) => creatorOff || settings[key] !== true
        return {
          privacy_level: privacy,
          disable_comment: off("comment", creator.comment_disabled),
          ...(isVideo ? { disable_duet: off("duet", creator.duet_disabled), disable_stitch: off("stitch", creator.stitch_disabled) } : {})
        }
      })

    /** Step 1: creator_info, then init; answered Pending with the publish id before any byte leaves. */
    const start = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const videos = request.media.filter((m) => m.type === "video" || m.mime.startsWith("video/"))
        const isVideo = videos.length > 0
        if (request.media.length === 0) {
          return PublishAnswer.Rejected({ message: "TikTok needs a video or photos.", fix: "Attach 1 video or 1 to 35 photos, then retry." })
        }
        const info = yield* postInfo(c, request, isVideo)
        const asMediaError = Effect.mapError((e: { readonly message: string }) =>
          PublishAnswer.Rejected({ message: e.message, fix: "Upload the file again, attach it to the post, then retry." })
        )
        if (!isVideo) {
          const urls = yield* Effect.forEach(request.media, (m) => publicMedia.addressOf(m)).pipe(asMediaError)
          const title = request.item.content.split("\n")[0]?.slice(0, 90) ?? ""
          const answer = yield* post(c.accessToken, "/v2/post/publish/content/init/", {
            post_info: { title, description: request.item.content, ...info },
            source_info: { source: "PULL_FROM_URL", photo_cover_index: 0, photo_images: urls },
            post_mode: "DIRECT_POST",
            media_type: "PHOTO"
          })
          return yield* afterInit(c, answer, "photo")
        }
        const video = videos[0]!
        if (options.pullFromUrl) {
          const url = yield* publicMedia.addressOf(video).pipe(asMediaError)
          const answer = yield* post(c.accessToken, "/v2/post/publish/video/init/", {
            post_info: { title: request.item.content, ...info },
            source_info: { source: "PULL_FROM_URL", video_url: url }
          })
          return yield* afterInit(c, answer, "pull")
        }
        const [file] = yield* readAllMedia(media, [video])
        const size = file!.bytes.length
        const chunks = chunksOf(size)
        const answer = yield* post(c.accessToken, "/v2/post/publish/video/init/", {
          post_info: { title: request.item.content, ...info },
          source_info: {
            source: "FILE_UPLOAD",
            video_size: size,
            chunk_size: chunks.length === 1 ? size : chunks[0]!.end,
            total_chunk_count: chunks.length
          }
        })
        return yield* afterInit(c, answer, "upload", size)
      })

    const afterInit = (c: Stored, answer: NetworkAnswer, mode: TikTokProgress["mode"], size?: number) =>
      Effect.gen(function* () {
        const init = read(Init, answer)
        if (Option.isNone(init)) return classifyTikTok(answer)
        const progress: TikTokProgress = {
          publishId: init.value.data.publish_id,
          mode,
          ...(init.value.data.upload_url === undefined ? {} : { uploadUrl: init.value.data.upload_url }),
          ...(size === undefined ? {} : { size })
        }
        if (mode === "upload") {
          if (progress.uploadUrl === undefined)
            return PublishAnswer.NoAnswer({ reason: "TikTok answered the upload's init without an upload address" })
          return PublishAnswer.Pending({ progress, kind: "processing", waitingFor: "the video's upload to TikTok", retryAfterMs: 0 })
        }
        // TikTok fetches the files itself: ask once at once, it is often quick
        return yield* settle(c, progress)
      })

    /** Step 2: every chunk with Content-Range (206 for a chunk, 201 when the whole video is there), then the status. */
    const upload = (c: Stored, request: PublishRequest, progress: TikTokProgress, uploadUrl: string) =>
      Effect.gen(function* () {
        const video = request.media.find((m) => m.type === "video" || m.mime.startsWith("video/"))
        if (video === undefined) return PublishAnswer.Rejected({ message: "The post's video is gone.", fix: "Attach the video again, then retry." })
        const [file] = yield* readAllMedia(media, [video])
        const bytes = file!.bytes
        // chunks TikTok already holds (a search after a lost answer said how many bytes) are not sent again
        const held = progress.uploadedBytes ?? 0
        for (const chunk of chunksOf(bytes.length).filter((c) => c.end > held)) {
          const answer = yield* call(outbound, {
            url: uploadUrl,
            method: "PUT",
            headers: {
              "content-type": file!.mime || "video/mp4",
              "content-range": `bytes ${chunk.start}-${chunk.end - 1}/${bytes.length}`
            },
            body: bytes.subarray(chunk.start, chunk.end),
            timeoutMs: UPLOAD_TIMEOUT_MS
          })
          const last = chunk.end === bytes.length
          if (answer._tag === "Response" && answer.response.status === (last ? 201 : 206)) continue
          if (answer._tag === "Response" && isSuccess(answer.response)) {
            return PublishAnswer.NoAnswer({ reason: `TikTok answered ${answer.response.status} to a chunk instead of ${last ? 201 : 206}` })
          }
          return classifyTikTok(answer)
        }
        return yield* settle(c, { ...progress, uploaded: true })
      })

    /** status/fetch → Published, Rejected (FAILED with its reason) or Pending while TikTok processes. */
    const settle = (c: Stored, progress: TikTokProgress) =>
      Effect.gen(function* () {
        const answer = yield* statusOf(c.accessToken, progress.publishId)
        const status = read(Status, answer)
        const waiting = (reason: string) =>
          PublishAnswer.Pending({ progress, kind: "processing", waitingFor: reason, retryAfterMs: PROCESSING_RETRY_MS })
        if (Option.isNone(status)) {
          const why = classifyTikTok(answer)
          // the post went to TikTok: an unreadable status is asked again later, never sent twice
          return why._tag === "NoAnswer" || why._tag === "RateLimited" || why._tag === "FailedBeforeSending"
            ? waiting("TikTok's answer about the post")
            : why
        }
        return answerOfStatus(c, progress, status.value.data, postIdOf(answer), waiting)
      })

    const postIdOf = (answer: NetworkAnswer) => (answer._tag === "Response" ? rawPostIdOf(answer.response.body) : undefined)

    const answerOfStatus = (
      c: Stored,
      progress: TikTokProgress,
      s: Status,
      postId: string | undefined,
      waiting: (reason: string) => PublishAnswer
    ): PublishAnswer => {
      switch (s.status) {
        case "PUBLISH_COMPLETE": {
          // a private (SELF_ONLY) post has no public id: the publish id and the profile stand for it
          if (postId === undefined) return PublishAnswer.Published({ releaseId: progress.publishId, releaseUrl: profileUrl(c.username) })
          return PublishAnswer.Published({
            releaseId: postId,
            releaseUrl: postUrl(c.username, progress.mode === "photo" ? "photo" : "video", postId)
          })
        }
        case "FAILED":
          return failedAnswer(s.fail_reason)
        case "SEND_TO_USER_INBOX":
          return inboxAnswer()
        case "PROCESSING_UPLOAD":
          return waiting(progress.uploaded === true || progress.mode !== "upload" ? "TikTok to process the video" : "the video's upload to TikTok")
        default:
          return waiting(progress.mode === "upload" ? "TikTok to process the video" : "TikTok to fetch and process the files")
      }
    }

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const progress = Option.flatMap(Option.fromNullable(request.progress), Schema.decodeUnknownOption(TikTokProgress))
          if (Option.isNone(progress)) return yield* start(c, request)
          const p = progress.value
          if (p.mode === "upload" && p.uploaded !== true && p.uploadUrl !== undefined) return yield* upload(c, request, p, p.uploadUrl)
          return yield* settle(c, p)
        })
      )

    /**
     * A lost answer: with a publish id, TikTok's status says where it stands. Without one the
     * init's answer was lost: a file upload cannot be live without its bytes (NotFound); a
     * post TikTok fetches itself may be (CannotTell).
     */
    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const progress = Option.flatMap(Option.fromNullable(request.progress), Schema.decodeUnknownOption(TikTokProgress))
        if (Option.isNone(progress)) {
          const fetched = options.pullFromUrl || !request.media.some((m) => m.type === "video" || m.mime.startsWith("video/"))
          return fetched ? SearchAnswer.CannotTell({ reason: "TikTok cannot look up a post without its publish id" }) : SearchAnswer.NotFound()
        }
        const answer = yield* statusOf(c.value.accessToken, progress.value.publishId)
        const status = read(Status, answer)
        if (Option.isNone(status))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        const found = answerOfStatus(c.value, progress.value, status.value.data, postIdOf(answer), () =>
          PublishAnswer.NoAnswer({ reason: "processing" })
        )
        if (found._tag === "Published") return SearchAnswer.Found({ releaseId: found.releaseId, releaseUrl: found.releaseUrl })
        if (found._tag === "Rejected") return SearchAnswer.NotFound()
        // an upload with bytes to go goes on from its publish id and the bytes TikTok holds; a whole one goes on to its status
        const p = progress.value
        const bytes = status.value.data.uploaded_bytes ?? 0
        const uploadedAll =
          p.mode !== "upload" || status.value.data.status !== "PROCESSING_UPLOAD" || (p.size !== undefined && bytes >= p.size) || p.uploaded === true
        return SearchAnswer.Unfinished({ progress: uploadedAll ? { ...p, uploaded: true } : { ...p, uploadedBytes: bytes } })
      })

    const adapter: NetworkAdapter = {
      identifier: "tiktok",
      // access tokens live hours and are renewed with the refresh token: their expiry is no warning
      shortLivedTokens: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ redirectUri, state }) =>
          authorizeUrl({ networkName: NAME, envName: "TIKTOK_CLIENT_ID", authUrl: options.authUrl, clientKey, scopes: SCOPES, redirectUri, state }),
        exchange: ({ code, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri })
            const t = read(TikTokToken, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            return yield* connected({ ...fromTokenAnswer(t.value, "", ACCESS_LIFETIME_SECONDS), openId: t.value.open_id })
          })
      },
      verify,
      refresh: (credentials) =>
        Effect.flatMap(
          credentialsOf(credentials).pipe(Effect.option),
          Option.match({ onNone: () => Effect.succeed(Refresh.Failed({ reason: "the stored credentials cannot be read" })), onSome: refreshStored })
        ),
      publish,
      publishFollowUp: () =>
        Effect.succeed(
          PublishAnswer.Rejected({ message: "TikTok posts take no follow-up comments.", fix: "Remove the follow-ups for this channel." })
        ),
      search,
      statistics: {
        channel: (credentials) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const user = read(UserInfo, yield* userInfo(c.value.accessToken, "open_id,follower_count,following_count,likes_count,video_count"))
            if (Option.isNone(user)) return Statistics.Missing({ message: "TikTok did not answer with the account's numbers." })
            const u = user.value.data.user
            return Statistics.Metrics({
              metrics: [
                metricToday("Followers", u.follower_count ?? 0),
                metricToday("Following", u.following_count ?? 0),
                metricToday("Likes", u.likes_count ?? 0),
                metricToday("Videos", u.video_count ?? 0)
              ]
            })
          }),
        post: (credentials, releaseId) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const answer = yield* post(c.value.accessToken, "/v2/video/query/?fields=id,view_count,like_count,comment_count,share_count", {
              filters: { video_ids: [releaseId] }
            })
            const video = Option.flatMap(read(VideoQuery, answer), (q) => Option.fromNullable(q.data.videos[0]))
            if (Option.isNone(video)) return Statistics.Missing({ message: "TikTok shares numbers only for public videos." })
            const v = video.value
            return Statistics.Metrics({
              metrics: [
                metricToday("Views", v.view_count ?? 0),
                metricToday("Likes", v.like_count ?? 0),
                metricToday("Comments", v.comment_count ?? 0),
                metricToday("Shares", v.share_count ?? 0)
              ]
            })
          })
      },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyTikTok
    }
    return adapter
  })

export const makeTikTokAdapter = Effect.gen(function* () {
  const env = yield* Config.all({
    apiUrl: Config.string("TIKTOK_API_URL").pipe(Config.withDefault("https://open.tiktokapis.com")),
    authUrl: Config.string("TIKTOK_AUTH_URL").pipe(Config.withDefault("https://www.tiktok.com")),
    clientKey: Config.option(Config.string("TIKTOK_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("TIKTOK_CLIENT_SECRET")),
    audited: Config.boolean("TIKTOK_APP_AUDITED").pipe(Config.withDefault(false)),
    pullFromUrl: Config.boolean("TIKTOK_PULL_FROM_URL").pipe(Config.withDefault(false))
  }).pipe(Effect.orDie)
  return yield* makeTikTokAdapterWith(env)
})
