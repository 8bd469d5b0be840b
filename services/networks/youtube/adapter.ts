import { createHash } from "node:crypto"
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
import { fromTokenAnswer, refreshOAuth, verifiedTokens, TokenAnswer } from "../oauthRefresh.js"
import { call, decodeBody, excerpt, isSuccess, retryAfterMs, sameText, statusAnswer, transportAnswer, trimBase } from "../networkHttp.js"
import type { OutboundResponse } from "../../platform/outbound/request.js"
import type { StoredMedia } from "../storedMedia.js"
import {
  CHUNK_BYTES,
  Channels,
  googleReasonOf,
  nextOffsetOf,
  PlaylistItems,
  type Video,
  Video as VideoSchema,
  Videos,
  YouTubeProgress
} from "./api.js"

/**
 * YouTube Data API v3 (developers.google.com/youtube/v3): Google OAuth with offline access
 * (the refresh token lasts; access tokens an hour), videos.insert as a resumable upload
 * (uploadType=resumable) whose session address is kept with the attempt before any byte is
 * sent, so a publish that died mid-way asks the session how far it got (`bytes * /SIZE`) and
 * finishes or links that video instead of uploading a second one. The video is published
 * once YouTube has processed it; thumbnails.set when the post gives a thumbnail.
 */
const NAME = "YouTube"
const SCOPES = "https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly"
const REFRESH_MARGIN_MS = 5 * 60_000
const ACCESS_LIFETIME_SECONDS = 3600
const PROCESSING_RETRY_MS = 10_000
/** The project's daily quota (videos.insert costs 1600 of 10,000 units) or the channel's upload cap: look again in an hour. */
const QUOTA_RETRY_MS = 3600_000
const UPLOAD_TIMEOUT_MS = 600_000

export interface YouTubeOptions {
  readonly apiUrl: string
  readonly uploadUrl: string
  readonly authorizeUrl: string
  readonly tokenUrl: string
  readonly clientId: Option.Option<string>
  readonly clientSecret: Option.Option<Redacted.Redacted>
}

const Stored = Schema.Struct({
  accessToken: Schema.String,
  refreshToken: Schema.String,
  expiresAt: Schema.String,
  channelId: Schema.optional(Schema.String),
  uploadsPlaylist: Schema.optional(Schema.String)
})
type Stored = typeof Stored.Type

const watchUrl = (id: string) => `https://www.youtube.com/watch?v=${id}`

const rejection = (response: OutboundResponse) => {
  const { reason, message } = googleReasonOf(response)
  const said = message === "" ? excerpt(response, 160) : message
  if (/^invalid(Title|Description|Tags|CategoryId)$/.test(reason))
    return {
      message: `YouTube refused the video's details (${reason}): ${said}`,
      fix: "Change the title, description or tags as the message says, then retry."
    }
  if (reason === "youtubeSignupRequired" || reason === "forbidden" || reason === "insufficientPermissions")
    return {
      message: `YouTube does not let this channel upload (${reason}): ${said}`,
      fix: "Reconnect the channel with a Google account that has a YouTube channel."
    }
  return { message: `YouTube refused the video (${reason}): ${said}`, fix: "Change the post as the message says, then retry." }
}

/** Google's quota and upload caps hold the item; its rate limits and the shared status rules answer the rest. */
const classifyYouTube = (answer: NetworkAnswer): PublishAnswer => {
  if (answer._tag === "Failed") return transportAnswer(NAME, answer.error)
  const { response } = answer
  if (!isSuccess(response)) {
    const { reason } = googleReasonOf(response)
    if (reason === "quotaExceeded" || reason === "uploadLimitExceeded")
      return PublishAnswer.Pending({
        progress: {},
        kind: "network-limit",
        waitingFor: `YouTube's daily limit (${reason})`,
        retryAfterMs: QUOTA_RETRY_MS
      })
    if (reason === "rateLimitExceeded" || reason === "userRateLimitExceeded")
      return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response) })
  }
  return statusAnswer(NAME, response, rejection)
}

/** The post's settings as videos.insert's snippet and status. */
const metadataOf = (request: PublishRequest) => {
  const s = request.channel.settings
  const firstLine = request.item.content.split("\n")[0]?.trim() ?? ""
  const title = (typeof s["title"] === "string" && s["title"].trim() !== "" ? s["title"] : firstLine).replace(/[<>]/g, "").slice(0, 100)
  const rawTags = s["tags"]
  const tags = (Array.isArray(rawTags) ? rawTags : typeof rawTags === "string" ? rawTags.split(",") : [])
    .flatMap((t) => (typeof t === "string" ? [t.trim()] : typeof t === "object" && t !== null && "value" in t ? [String(t.value).trim()] : []))
    .filter((t) => t !== "")
  const privacy = typeof s["type"] === "string" && ["public", "private", "unlisted"].includes(s["type"]) ? s["type"] : "public"
  return {
    snippet: { title, description: request.item.content.replace(/[<>]/g, ""), ...(tags.length === 0 ? {} : { tags }) },
    status: { privacyStatus: privacy, selfDeclaredMadeForKids: s["made_for_kids"] === true }
  }
}

const isVideo = (m: StoredMedia) => m.type === "video" || m.mime.startsWith("video/")

export const makeYouTubeAdapterWith = (options: YouTubeOptions) =>
  Effect.gen(function* () {
    const { media, outbound } = yield* NetworkDeps
    const api = `${trimBase(options.apiUrl)}/youtube/v3`
    const upload = `${trimBase(options.uploadUrl)}/upload/youtube/v3`
    const credentialsOf = readCredentials(Stored, NAME)
    const clientId = Option.getOrUndefined(options.clientId)
    const clientSecret = Option.getOrUndefined(Option.map(options.clientSecret, Redacted.value))
    const read = <A, I>(schema: Schema.Schema<A, I>, answer: NetworkAnswer) =>
      answer._tag === "Response" && isSuccess(answer.response) ? decodeBody(schema, answer.response) : Option.none()
    const auth = (token: string) => ({ authorization: `Bearer ${token}`, accept: "application/json" })
    const get = (token: string, path: string) => call(outbound, { url: `${api}${path}`, headers: auth(token) })

    const token = (form: Record<string, string>) =>
      call(outbound, {
        url: options.tokenUrl,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ ...form, client_id: clientId ?? "", client_secret: clientSecret ?? "" }).toString()
      })

    const myChannel = (accessToken: string) => get(accessToken, "/channels?part=snippet,statistics,contentDetails&mine=true")

    const connected = (stored: Stored) =>
      Effect.gen(function* () {
        const answer = yield* myChannel(stored.accessToken)
        const channels = read(Channels, answer)
        if (Option.isNone(channels)) return yield* connectFailedFrom(NAME, answer)
        const channel = channels.value.items?.[0]
        if (channel === undefined)
          return yield* new ConnectFailed({ message: "This Google account has no YouTube channel: create one, then connect again." })
        const uploads = channel.contentDetails?.relatedPlaylists.uploads
        return {
          credentials: { ...stored, channelId: channel.id, ...(uploads === undefined ? {} : { uploadsPlaylist: uploads }) },
          profile: {
            accountId: channel.id,
            name: channel.snippet.title,
            profile: channel.snippet.customUrl ?? channel.id,
            picture: channel.snippet.thumbnails?.default?.url ?? null
          }
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
        const given = yield* decodeForVerify(Stored, NAME, "accessToken, refreshToken and expiresAt (ISO 8601)")(input)
        const current = yield* verifiedTokens(given, Stored, { network: "YouTube", refusedBy: "Google", refresh: refreshStored })
        return yield* connected(current)
      })

    const videoFile = (request: PublishRequest) =>
      Effect.gen(function* () {
        const video = request.media.find(isVideo)
        if (video === undefined)
          return yield* Effect.fail(
            PublishAnswer.Rejected({ message: "YouTube needs a video.", fix: "Attach exactly 1 video to the post, then retry." })
          )
        const [file] = yield* readAllMedia(media, [video])
        return file!
      })

    /** Step 1: open the resumable session (metadata only); its address is kept before any byte is sent. */
    const start = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const file = yield* videoFile(request)
        const answer = yield* call(outbound, {
          url: `${upload}/videos?uploadType=resumable&part=snippet,status`,
          method: "POST",
          headers: {
            ...auth(c.accessToken),
            "content-type": "application/json; charset=UTF-8",
            "x-upload-content-length": String(file.bytes.length),
            "x-upload-content-type": file.mime || "video/*"
          },
          body: JSON.stringify(metadataOf(request))
        })
        const location = answer._tag === "Response" && isSuccess(answer.response) ? answer.response.headers["location"] : undefined
        if (typeof location !== "string" || location === "") {
          const why = classifyYouTube(answer)
          // a session alone is no video: an unanswered one is safe to open again
          return why._tag === "NoAnswer" ? PublishAnswer.FailedBeforeSending({ reason: `no upload session: ${why.reason}` }) : why
        }
        const progress: YouTubeProgress = { sessionUrl: location, size: file.bytes.length }
        return PublishAnswer.Pending({ progress, kind: "processing", waitingFor: "the video's upload to YouTube", retryAfterMs: 0 })
      })

    /** Step 2: the bytes from where the session stands, in 256 KiB-multiple chunks (308 + Range between them). */
    const send = (c: Stored, request: PublishRequest, progress: YouTubeProgress) =>
      Effect.gen(function* () {
        const file = yield* videoFile(request)
        const bytes = file.bytes
        if (bytes.length !== progress.size)
          return PublishAnswer.Rejected({
            message: "The video changed since its upload to YouTube began.",
            fix: "Retry the post to upload it again."
          })
        let offset = progress.offset ?? 0
        while (offset < bytes.length) {
          const end = Math.min(bytes.length, offset + CHUNK_BYTES)
          const answer = yield* call(outbound, {
            url: progress.sessionUrl,
            method: "PUT",
            headers: {
              ...auth(c.accessToken),
              "content-type": file.mime || "video/*",
              "content-range": `bytes ${offset}-${end - 1}/${bytes.length}`
            },
            body: bytes.subarray(offset, end),
            timeoutMs: UPLOAD_TIMEOUT_MS
          })
          if (answer._tag === "Response" && answer.response.status === 308) {
            const next = nextOffsetOf(answer.response)
            if (next <= offset) return PublishAnswer.NoAnswer({ reason: "YouTube took none of the chunk" })
            offset = next
            continue
          }
          const video = read(VideoSchema, answer)
          if (Option.isNone(video)) return classifyYouTube(answer)
          yield* thumbnail(c, request, video.value.id)
          return yield* settle(c, { ...progress, videoId: video.value.id }, Option.some(video.value))
        }
        return PublishAnswer.NoAnswer({ reason: "YouTube did not confirm the whole upload" })
      })

    /** thumbnails.set with the post's `thumbnail` address; the video stands without it when that fails. */
    const thumbnail = (c: Stored, request: PublishRequest, videoId: string) =>
      Effect.gen(function* () {
        const address = request.channel.settings["thumbnail"]
        if (typeof address !== "string" || address.trim() === "") return
        const image: StoredMedia = {
          id: "",
          alt: "",
          url: address.trim(),
          mime: "image/jpeg",
          name: "thumbnail",
          size: 0,
          type: "image",
          width: 0,
          height: 0
        }
        const file = yield* media.read(image).pipe(Effect.option)
        if (Option.isNone(file)) return
        const mime = file.value.bytes.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47])) ? "image/png" : "image/jpeg"
        yield* call(outbound, {
          url: `${upload}/thumbnails/set?videoId=${encodeURIComponent(videoId)}&uploadType=media`,
          method: "POST",
          headers: { ...auth(c.accessToken), "content-type": mime },
          body: file.value.bytes
        })
      })

    /** Step 3: processed → Published; rejected or failed → Rejected with YouTube's reason; else asked again later. */
    const settle = (c: Stored, progress: YouTubeProgress & { readonly videoId: string }, known: Option.Option<Video>) =>
      Effect.gen(function* () {
        const { videoId } = progress
        const waiting = PublishAnswer.Pending({
          progress,
          kind: "processing",
          waitingFor: "YouTube to process the video",
          retryAfterMs: PROCESSING_RETRY_MS
        })
        const fresh = Option.isSome(known) && known.value.status?.uploadStatus === "processed" ? known : yield* videoOf(c, videoId)
        if (Option.isNone(fresh)) return waiting
        return answerOfVideo(fresh.value, waiting)
      })

    const answerOfVideo = (video: Video, waiting: PublishAnswer): PublishAnswer => {
      switch (video.status?.uploadStatus) {
        case "processed":
          return PublishAnswer.Published({ releaseId: video.id, releaseUrl: watchUrl(video.id) })
        case "rejected":
        case "failed":
        case "deleted": {
          const why = video.status?.rejectionReason ?? video.status?.failureReason ?? video.status?.uploadStatus ?? "unknown"
          return PublishAnswer.Rejected({
            message: `YouTube did not publish the video (${video.status?.uploadStatus}: ${why}).`,
            fix: why === "duplicate" ? "The same video is already on the channel." : "Change the video to what YouTube takes, then retry."
          })
        }
        default:
          return waiting
      }
    }

    const videoOf = (c: Stored, videoId: string) =>
      Effect.map(get(c.accessToken, `/videos?part=status&id=${encodeURIComponent(videoId)}`), (answer) =>
        Option.flatMap(read(Videos, answer), (v) => Option.fromNullable(v.items[0]))
      )

    const publish = (request: PublishRequest) =>
      answerOf(
        Effect.gen(function* () {
          const c = yield* credentialsOf(request.channel.credentials)
          const progress = Option.flatMap(Option.fromNullable(request.progress), Schema.decodeUnknownOption(YouTubeProgress))
          if (Option.isNone(progress)) return yield* start(c, request)
          const { videoId } = progress.value
          if (videoId !== undefined) return yield* settle(c, { ...progress.value, videoId }, Option.none())
          return yield* send(c, request, progress.value)
        })
      )

    /** `Content-Range: bytes * /SIZE` asks the session: 308 (with how far), 200/201 (the video), 404 (gone: nothing made). */
    const askSession = (c: Stored, progress: YouTubeProgress) =>
      Effect.gen(function* () {
        const answer = yield* call(outbound, {
          url: progress.sessionUrl,
          method: "PUT",
          headers: { ...auth(c.accessToken), "content-range": `bytes */${progress.size}` },
          body: ""
        })
        if (answer._tag === "Failed") return SearchAnswer.CannotTell({ reason: answer.error._tag })
        const { response } = answer
        if (response.status === 308) return SearchAnswer.Unfinished({ progress: { ...progress, offset: nextOffsetOf(response) } })
        const video = read(VideoSchema, answer)
        if (Option.isSome(video)) return SearchAnswer.Found({ releaseId: video.value.id, releaseUrl: watchUrl(video.value.id) })
        if (response.status === 404 || response.status === 410) return SearchAnswer.NotFound()
        return SearchAnswer.CannotTell({ reason: `the upload session answered ${response.status}` })
      })

    /** Without a session: the channel's latest uploads with the same title and description. */
    const recentUploads = (c: Stored, request: PublishRequest) =>
      Effect.gen(function* () {
        const playlist =
          c.uploadsPlaylist ??
          Option.getOrUndefined(
            Option.flatMap(read(Channels, yield* myChannel(c.accessToken)), (ch) =>
              Option.fromNullable(ch.items?.[0]?.contentDetails?.relatedPlaylists.uploads)
            )
          )
        if (playlist === undefined) return SearchAnswer.CannotTell({ reason: "the channel's uploads could not be read" })
        const answer = yield* get(c.accessToken, `/playlistItems?part=snippet&maxResults=20&playlistId=${encodeURIComponent(playlist)}`)
        const items = read(PlaylistItems, answer)
        if (Option.isNone(items))
          return SearchAnswer.CannotTell({ reason: answer._tag === "Failed" ? answer.error._tag : `HTTP ${answer.response.status}` })
        const { snippet } = metadataOf(request)
        const found = items.value.items.find(
          (i) => sameText(i.snippet.title, snippet.title) && sameText(i.snippet.description ?? "", snippet.description)
        )
        return found === undefined
          ? SearchAnswer.NotFound()
          : SearchAnswer.Found({ releaseId: found.snippet.resourceId.videoId, releaseUrl: watchUrl(found.snippet.resourceId.videoId) })
      })

    const search = (request: PublishRequest) =>
      Effect.gen(function* () {
        const c = yield* credentialsOf(request.channel.credentials).pipe(Effect.option)
        if (Option.isNone(c)) return SearchAnswer.CannotTell({ reason: "the channel's credentials cannot be read" })
        const progress = Option.flatMap(Option.fromNullable(request.progress), Schema.decodeUnknownOption(YouTubeProgress))
        if (Option.isNone(progress)) return yield* recentUploads(c.value, request)
        const videoId = progress.value.videoId
        if (videoId === undefined) return yield* askSession(c.value, progress.value)
        const video = yield* videoOf(c.value, videoId)
        if (Option.isNone(video)) return SearchAnswer.CannotTell({ reason: "YouTube did not answer about the video" })
        const answer = answerOfVideo(video.value, PublishAnswer.NoAnswer({ reason: "processing" }))
        if (answer._tag === "Published") return SearchAnswer.Found({ releaseId: answer.releaseId, releaseUrl: answer.releaseUrl })
        if (answer._tag === "Rejected") return SearchAnswer.NotFound()
        return SearchAnswer.Unfinished({ progress: progress.value })
      })

    const count = (s: string | undefined) => (s === undefined || Number.isNaN(Number(s)) ? 0 : Number(s))

    const adapter: NetworkAdapter = {
      identifier: "youtube",
      // access tokens live hours and are renewed with the refresh token: their expiry is no warning
      shortLivedTokens: true,
      connect: {
        kind: "link",
        authorizeUrl: ({ codeVerifier, redirectUri, state }) =>
          clientId === undefined
            ? Effect.fail(new ConnectFailed({ message: "YouTube is not set up on this server (YOUTUBE_CLIENT_ID)." }))
            : Effect.succeed(
                `${options.authorizeUrl}?${new URLSearchParams({
                  client_id: clientId,
                  redirect_uri: redirectUri,
                  response_type: "code",
                  scope: SCOPES,
                  access_type: "offline",
                  prompt: "consent",
                  include_granted_scopes: "true",
                  state,
                  code_challenge: createHash("sha256").update(codeVerifier).digest("base64url"),
                  code_challenge_method: "S256"
                }).toString()}`
              ),
        exchange: ({ code, codeVerifier, redirectUri }) =>
          Effect.gen(function* () {
            const answer = yield* token({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: codeVerifier })
            const t = read(TokenAnswer, answer)
            if (Option.isNone(t)) return yield* connectFailedFrom(NAME, answer)
            if (t.value.refresh_token === undefined)
              return yield* new ConnectFailed({
                message: "Google gave no refresh token (offline access): remove the app's access in the Google account, then connect again."
              })
            return yield* connected(fromTokenAnswer(t.value, "", ACCESS_LIFETIME_SECONDS))
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
          PublishAnswer.Rejected({ message: "YouTube comments are not supported by this server.", fix: "Remove the follow-ups for this channel." })
        ),
      search,
      statistics: {
        channel: (credentials) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const stats = Option.flatMap(read(Channels, yield* myChannel(c.value.accessToken)), (ch) =>
              Option.fromNullable(ch.items?.[0]?.statistics)
            )
            if (Option.isNone(stats)) return Statistics.Missing({ message: "YouTube did not answer with the channel's numbers." })
            return Statistics.Metrics({
              metrics: [
                metricToday("Subscribers", count(stats.value.subscriberCount)),
                metricToday("Views", count(stats.value.viewCount)),
                metricToday("Videos", count(stats.value.videoCount))
              ]
            })
          }),
        post: (credentials, releaseId) =>
          Effect.gen(function* () {
            const c = yield* credentialsOf(credentials).pipe(Effect.option)
            if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's credentials cannot be read." })
            const answer = yield* get(c.value.accessToken, `/videos?part=statistics&id=${encodeURIComponent(releaseId)}`)
            const stats = Option.flatMap(read(Videos, answer), (v) => Option.fromNullable(v.items[0]?.statistics))
            if (Option.isNone(stats)) return Statistics.Missing({ message: "YouTube did not answer with the video's numbers." })
            return Statistics.Metrics({
              metrics: [
                metricToday("Views", count(stats.value.viewCount)),
                metricToday("Likes", count(stats.value.likeCount)),
                metricToday("Comments", count(stats.value.commentCount))
              ]
            })
          })
      },
      runTool: ({ methodName }) => unknownTool(methodName, NAME, []),
      classify: classifyYouTube
    }
    return adapter
  })

export const makeYouTubeAdapter = Effect.gen(function* () {
  const env = yield* Config.all({
    apiUrl: Config.option(Config.string("YOUTUBE_API_URL")),
    uploadUrl: Config.option(Config.string("YOUTUBE_UPLOAD_URL")),
    authUrl: Config.option(Config.string("YOUTUBE_AUTH_URL")),
    clientId: Config.option(Config.string("YOUTUBE_CLIENT_ID")),
    clientSecret: Config.option(Config.redacted("YOUTUBE_CLIENT_SECRET"))
  }).pipe(Effect.orDie)
  const apiUrl = trimBase(Option.getOrElse(env.apiUrl, () => "https://www.googleapis.com"))
  // one address stands for Google's sign-in and token hosts when set (a proxy or the simulator)
  const authUrl = Option.map(env.authUrl, trimBase)
  return yield* makeYouTubeAdapterWith({
    apiUrl,
    uploadUrl: Option.getOrElse(env.uploadUrl, () => apiUrl),
    authorizeUrl: Option.match(authUrl, { onNone: () => "https://accounts.google.com/o/oauth2/v2/auth", onSome: (a) => `${a}/o/oauth2/v2/auth` }),
    tokenUrl: Option.match(authUrl, { onNone: () => "https://oauth2.googleapis.com/token", onSome: (a) => `${a}/token` }),
    clientId: env.clientId,
    clientSecret: env.clientSecret
  })
})
