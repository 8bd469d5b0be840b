import { createHash } from "node:crypto"
import {
  bearerOf,
  formBody,
  jsonBody,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * YouTube as Google documents it: OAuth 2.0 (/o/oauth2/v2/auth approves at once, PKCE
 * checked; /token with authorization_code and refresh_token, `invalid_grant` for a revoked
 * refresh token; access tokens last an hour and refreshes do not rotate the refresh token),
 * and the Data API v3: channels.list (mine), videos.insert as a resumable upload
 * (POST /upload/youtube/v3/videos?uploadType=resumable → Location; PUT chunks with
 * Content-Range → 308 with Range until the last, then 200 with the video; `bytes * /SIZE`
 * asks how far), videos.list (status, statistics), playlistItems.list of the uploads
 * playlist, thumbnails.set. A video is processed in core.processingMs(). Google's errors are
 * `{"error":{"code","message","errors":[{"reason","message","domain"}]}}`. Each channel may
 * start `dailyUploads` uploads a day (quotaExceeded).
 */
const NETWORK = "youtube"
const ACCESS_TTL_MS = 3600_000

interface Channel {
  readonly id: string
  readonly title: string
  readonly dailyUploads: number
}

interface Session {
  readonly id: string
  readonly channel: string
  readonly size: number
  readonly mime: string
  readonly metadata: Record<string, unknown>
  received: number
  videoId?: string
}

interface Video {
  readonly id: string
  readonly channel: string
  readonly title: string
  readonly description: string
  readonly privacy: string
  uploadStatus: "uploaded" | "processed" | "failed"
  failureReason?: string
  thumbnail?: number
}

const channels = new WeakMap<SimCore, Map<string, Channel>>()
const codes = new WeakMap<SimCore, Map<string, { readonly channel: string; readonly challenge: string }>>()
const sessions = new WeakMap<SimCore, Map<string, Session>>()
const videos = new WeakMap<SimCore, Map<string, Video>>()

const googleError = (code: number, reason: string, message: string): SimResponse => ({
  status: code,
  body: { error: { code, message, errors: [{ message, domain: code === 403 ? "youtube.quota" : "global", reason }] } }
})
const unauthorized = googleError(401, "authError", "Request had invalid authentication credentials. Expected OAuth 2 access token.")

const tokensFor = (core: SimCore, channel: string, ttlMs = ACCESS_TTL_MS, withRefresh = true) => ({
  access_token: core.issueToken(NETWORK, channel, "access", ttlMs),
  expires_in: Math.floor(ttlMs / 1000),
  scope: "https://www.googleapis.com/auth/youtube.upload https://www.googleapis.com/auth/youtube.readonly",
  token_type: "Bearer",
  ...(withRefresh ? { refresh_token: core.issueToken(NETWORK, channel, "refresh", null) } : {})
})

export interface YouTubeSeed {
  readonly title?: string
  readonly expiresInMs?: number
  readonly dailyUploads?: number
}

/** A channel with tokens: the admin CLI's `--credentials` (accessToken, refreshToken, expiresAt). */
export const seedYouTubeAccount = (core: SimCore, input: YouTubeSeed = {}) => {
  const all = stateOf(channels, core)
  const channel: Channel = { id: `UC${core.newId()}`, title: input.title ?? `Channel ${all.size + 1}`, dailyUploads: input.dailyUploads ?? 6 }
  all.set(channel.id, channel)
  const ttl = input.expiresInMs ?? ACCESS_TTL_MS
  const t = tokensFor(core, channel.id, Math.max(1, ttl))
  return { accessToken: t.access_token, refreshToken: t.refresh_token!, expiresAt: new Date(Date.now() + ttl).toISOString() }
}

/** The channel a seeded token belongs to (tests look at its uploads). */
export const youtubeChannelOf = (core: SimCore, accessToken: string) => core.accountOf(NETWORK, accessToken)

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})

/** Opens a resumable session as videos.insert does (tests start an upload directly with it). */
export const openYouTubeSession = (
  core: SimCore,
  channel: string,
  input: { readonly title: string; readonly description: string; readonly size: number }
) => {
  const id = `ADPycd${core.newId()}`
  stateOf(sessions, core).set(id, {
    id,
    channel,
    size: input.size,
    mime: "video/mp4",
    metadata: { snippet: { title: input.title, description: input.description }, status: { privacyStatus: "public" } },
    received: 0
  })
  return `${core.baseOf(NETWORK)}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${id}`
}

const resource = (video: Video, session?: Session) => ({
  kind: "youtube#video",
  etag: `e${video.id}`,
  id: video.id,
  snippet: { channelId: video.channel, title: video.title, description: video.description, ...record(record(session?.metadata)["snippet"]) },
  status: {
    uploadStatus: video.uploadStatus,
    ...(video.failureReason === undefined ? {} : { failureReason: video.failureReason }),
    privacyStatus: video.privacy,
    selfDeclaredMadeForKids: record(record(session?.metadata)["status"])["selfDeclaredMadeForKids"] === true
  }
})

/** The last byte made the video: it exists at once (uploaded) and is processed after core.processingMs(). */
const complete = (core: SimCore, session: Session): Video => {
  const snippet = record(session.metadata["snippet"])
  const status = record(session.metadata["status"])
  const video: Video = {
    id: core.newId().slice(0, 11).padEnd(11, "x"),
    channel: session.channel,
    title: String(snippet["title"] ?? ""),
    description: String(snippet["description"] ?? ""),
    privacy: String(status["privacyStatus"] ?? "public"),
    uploadStatus: "uploaded"
  }
  session.videoId = video.id
  stateOf(videos, core).set(video.id, video)
  core.record({
    network: NETWORK,
    id: video.id,
    url: `https://www.youtube.com/watch?v=${video.id}`,
    account: session.channel,
    text: video.description,
    replyTo: null,
    media: [{ id: video.id, mime: session.mime, size: session.size }],
    dedupeKey: null,
    extra: {
      title: video.title,
      tags: snippet["tags"] ?? null,
      privacyStatus: video.privacy,
      selfDeclaredMadeForKids: status["selfDeclaredMadeForKids"] ?? null
    }
  })
  const processed = () => {
    if (!session.mime.startsWith("video/")) {
      video.uploadStatus = "failed"
      video.failureReason = "codec"
    } else video.uploadStatus = "processed"
  }
  const ms = core.processingMs()
  if (ms === 0) processed()
  else setTimeout(processed, ms)
  return video
}

const rangeHeader = (session: Session): Record<string, string> => (session.received === 0 ? {} : { range: `bytes=0-${session.received - 1}` })

/** PUT on the session: a chunk (sequential) or the `bytes * /SIZE` question. */
const putSession = (request: SimRequest, core: SimCore): SimResponse => {
  const session = stateOf(sessions, core).get(request.query.get("upload_id") ?? "")
  if (session === undefined) return googleError(404, "notFound", "The upload session does not exist or has expired.")
  const range = String(request.headers["content-range"] ?? "")
  const video = session.videoId === undefined ? undefined : stateOf(videos, core).get(session.videoId)
  const question = /^bytes \*\/(\d+)$/.exec(range)
  if (question !== null) {
    if (video !== undefined) return { status: 200, body: resource(video, session) }
    return { status: 308, headers: rangeHeader(session), body: "" }
  }
  const chunk = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(range)
  if (chunk === null) return googleError(400, "badContent", "Content-Range is required.")
  const [first, last, total] = [Number(chunk[1]), Number(chunk[2]), Number(chunk[3])]
  if (total !== session.size || last - first + 1 !== request.body.length)
    return googleError(400, "badContent", "Content-Range does not match the upload.")
  if (video !== undefined) return { status: 200, body: resource(video, session) }
  if (first !== session.received) return { status: 308, headers: rangeHeader(session), body: "" }
  if (last + 1 < session.size && (last + 1) % (256 * 1024) !== 0) return googleError(400, "badContent", "Chunks must be multiples of 256 KiB.")
  session.received = last + 1
  if (session.received < session.size) return { status: 308, headers: rangeHeader(session), body: "" }
  return { status: 200, body: resource(complete(core, session), session) }
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/o/oauth2/v2/auth") {
    const q = request.query
    if (q.get("access_type") !== "offline") return { status: 400, body: "offline access is needed for a refresh token" }
    const all = stateOf(channels, core)
    const existing = [...all.values()].find((c) => c.title === q.get("account"))
    const channel = existing?.id ?? youtubeChannelOf(core, seedYouTubeAccount(core, { title: q.get("account") ?? "My channel" }).accessToken)!
    const code = `4/${core.newId()}`
    stateOf(codes, core).set(code, { channel, challenge: q.get("code_challenge") ?? "" })
    const target = new URL(q.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", q.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/token") {
    const form = formBody(request)
    if ((form.get("client_id") ?? "") === "" || (form.get("client_secret") ?? "") === "")
      return { status: 401, body: { error: "invalid_client", error_description: "The OAuth client was not found." } }
    if (form.get("grant_type") === "authorization_code") {
      const code = stateOf(codes, core).get(form.get("code") ?? "")
      const verifier = form.get("code_verifier") ?? ""
      if (code === undefined || (code.challenge !== "" && createHash("sha256").update(verifier).digest("base64url") !== code.challenge))
        return { status: 400, body: { error: "invalid_grant", error_description: "Bad Request" } }
      stateOf(codes, core).delete(form.get("code") ?? "")
      return { status: 200, body: tokensFor(core, code.channel) }
    }
    if (form.get("grant_type") === "refresh_token") {
      const found = core.tokens.get(form.get("refresh_token") ?? "")
      if (found === undefined || found.network !== NETWORK || found.kind !== "refresh")
        return { status: 400, body: { error: "invalid_grant", error_description: "Token has been expired or revoked." } }
      return { status: 200, body: tokensFor(core, found.account, ACCESS_TTL_MS, false) }
    }
    return { status: 400, body: { error: "unsupported_grant_type", error_description: "Invalid grant_type" } }
  }
  const channelId = core.accountOf(NETWORK, bearerOf(request))
  if (method === "PUT" && path === "/upload/youtube/v3/videos") return putSession(request, core)
  if (channelId === null) return unauthorized
  const channel = stateOf(channels, core).get(channelId)!
  const mine = [...stateOf(videos, core).values()].filter((v) => v.channel === channelId)
  if (method === "GET" && path === "/youtube/v3/channels") {
    if (request.query.get("mine") !== "true") return googleError(400, "missingRequiredParameter", "No filter selected.")
    return {
      status: 200,
      body: {
        kind: "youtube#channelListResponse",
        items: [
          {
            id: channel.id,
            snippet: {
              title: channel.title,
              customUrl: `@${channel.title.toLowerCase().replace(/\W+/g, "")}`,
              thumbnails: { default: { url: `https://yt3.example/${channel.id}` } }
            },
            statistics: { viewCount: "5400", subscriberCount: "310", hiddenSubscriberCount: false, videoCount: String(mine.length) },
            contentDetails: { relatedPlaylists: { likes: "", uploads: `UU${channel.id.slice(2)}` } }
          }
        ]
      }
    }
  }
  if (method === "POST" && path === "/upload/youtube/v3/videos") {
    if (request.query.get("uploadType") !== "resumable") return googleError(400, "invalidParameter", "uploadType must be resumable here.")
    const size = Number(request.headers["x-upload-content-length"])
    if (!(size > 0)) return googleError(400, "badContent", "X-Upload-Content-Length is required.")
    const metadata = record(jsonBody(request))
    const snippet = record(metadata["snippet"])
    const title = typeof snippet["title"] === "string" ? snippet["title"] : ""
    if (title.trim() === "" || title.length > 100 || /[<>]/.test(title))
      return googleError(400, "invalidTitle", "The request metadata specifies an invalid or empty video title.")
    if (String(snippet["description"] ?? "").length > 5000)
      return googleError(400, "invalidDescription", "The request metadata specifies an invalid video description.")
    const started = [...stateOf(sessions, core).values()].filter((s) => s.channel === channelId).length
    if (started >= channel.dailyUploads)
      return googleError(403, "quotaExceeded", "The request cannot be completed because you have exceeded your quota.")
    const id = `ADPycd${core.newId()}`
    stateOf(sessions, core).set(id, {
      id,
      channel: channelId,
      size,
      mime: String(request.headers["x-upload-content-type"] ?? "video/*"),
      metadata,
      received: 0
    })
    return {
      status: 200,
      headers: { location: `${core.baseOf(NETWORK)}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status&upload_id=${id}` },
      body: ""
    }
  }
  if (method === "GET" && path === "/youtube/v3/videos") {
    const ids = (request.query.get("id") ?? "").split(",")
    const items = ids.flatMap((id) => {
      const v = stateOf(videos, core).get(id)
      return v === undefined ? [] : [{ ...resource(v), statistics: { viewCount: "1200", likeCount: "88", favoriteCount: "0", commentCount: "9" } }]
    })
    return { status: 200, body: { kind: "youtube#videoListResponse", items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } } }
  }
  if (method === "GET" && path === "/youtube/v3/playlistItems") {
    if (request.query.get("playlistId") !== `UU${channel.id.slice(2)}`)
      return googleError(404, "playlistNotFound", "The playlist identified with the request's playlistId parameter cannot be found.")
    const visible = new Set(core.visiblePosts(NETWORK, channelId).map((p) => p.id))
    const max = Number(request.query.get("maxResults") ?? "5")
    const items = mine
      .filter((v) => visible.has(v.id))
      .reverse()
      .slice(0, max)
      .map((v) => ({
        kind: "youtube#playlistItem",
        snippet: { title: v.title, description: v.description, channelId, resourceId: { kind: "youtube#video", videoId: v.id } }
      }))
    return { status: 200, body: { kind: "youtube#playlistItemListResponse", items } }
  }
  if (method === "POST" && path === "/upload/youtube/v3/thumbnails/set") {
    const video = stateOf(videos, core).get(request.query.get("videoId") ?? "")
    if (video === undefined || video.channel !== channelId)
      return googleError(404, "videoNotFound", "The video that you are trying to update cannot be found.")
    const type = String(request.headers["content-type"] ?? "")
    if (type !== "image/jpeg" && type !== "image/png") return googleError(400, "invalidImage", "The provided image content is invalid.")
    video.thumbnail = request.body.length
    const post = core.posts.find((p) => p.network === NETWORK && p.id === video.id)
    if (post !== undefined) Object.assign(post.extra, { thumbnailBytes: request.body.length })
    return {
      status: 200,
      body: { kind: "youtube#thumbnailSetResponse", items: [{ default: { url: `https://i.ytimg.example/vi/${video.id}/default.jpg` } }] }
    }
  }
  return undefined
}

export const youtubeModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ YOUTUBE_API_URL: base, YOUTUBE_AUTH_URL: base, YOUTUBE_CLIENT_ID: "sim-client", YOUTUBE_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    method === "PUT" && path === "/upload/youtube/v3/videos"
      ? "publish"
      : method === "POST" && path === "/upload/youtube/v3/videos"
        ? "init"
        : path === "/youtube/v3/playlistItems"
          ? "search"
          : path === "/token" || path.startsWith("/o/oauth2")
            ? "token"
            : "account",
  rejectBody: (status) => googleError(status ?? 400, "invalidVideoMetadata", "The request metadata is invalid."),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedYouTubeAccount(core, {
      ...(typeof input["title"] === "string" ? { title: input["title"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["dailyUploads"] === "number" ? { dailyUploads: input["dailyUploads"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [youtubeModule]
