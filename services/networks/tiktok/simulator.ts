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
import { tiktokBusinessModule } from "./businessSimulator.js"

/**
 * TikTok as developers.tiktok.com documents it: Login Kit (/v2/auth/authorize/ approves at
 * once, /v2/oauth/token/), /v2/user/info/, and the Content Posting API:
 * creator_info/query, video/init (FILE_UPLOAD with the chunk rules of the media transfer
 * guide, or PULL_FROM_URL), the upload address taking sequential chunks with Content-Range
 * (206, then 201 for the last), content/init for photo posts (always pulled),
 * status/fetch, and /v2/video/query/. Errors are `{"error":{"code","message","log_id"}}`.
 * An app TikTok has not audited posts only SELF_ONLY (the account's `audited` says which);
 * a creator may post `dailyCap` posts a day (spam_risk_too_many_posts); each token may
 * init 6 posts a minute (rate_limit_exceeded).
 */
const NETWORK = "tiktok"
const ACCESS_TTL_MS = 24 * 3600_000
const MB = 1024 * 1024

interface Creator {
  readonly openId: string
  readonly username: string
  readonly privacyOptions: ReadonlyArray<string>
  readonly maxVideoSeconds: number
  readonly audited: boolean
  readonly dailyCap: number
  readonly commentDisabled: boolean
}

interface Publish {
  readonly id: string
  readonly account: string
  readonly title: string
  readonly privacy: string
  readonly mode: "upload" | "pull" | "photo"
  readonly size: number
  readonly chunkSize: number
  readonly chunks: number
  readonly extra: Record<string, unknown>
  received: number
  mime: string
  status: "PROCESSING_UPLOAD" | "PROCESSING_DOWNLOAD" | "PUBLISH_COMPLETE" | "FAILED"
  failReason?: string
  postId?: string
}

const creators = new WeakMap<SimCore, Map<string, Creator>>()
const codes = new WeakMap<SimCore, Map<string, string>>()
const publishes = new WeakMap<SimCore, Map<string, Publish>>()
const inits = new WeakMap<SimCore, Map<string, Array<number>>>()
let postCounter = 7_300_000_000_000_000_000n

const logId = () => `2026${Math.random().toString(16).slice(2, 14).toUpperCase()}`
const error = (status: number, code: string, message: string): SimResponse => ({ status, body: { error: { code, message, log_id: logId() } } })
const ok = (data: unknown): SimResponse => ({ status: 200, body: { data, error: { code: "ok", message: "", log_id: logId() } } })
const invalidToken = error(401, "access_token_invalid", "The access token is invalid or not found in the request.")

const tokensFor = (core: SimCore, openId: string, accessTtlMs = ACCESS_TTL_MS, refreshToken?: string) => ({
  access_token: core.issueToken(NETWORK, openId, "access", accessTtlMs),
  expires_in: Math.floor(accessTtlMs / 1000),
  open_id: openId,
  refresh_token: refreshToken ?? core.issueToken(NETWORK, openId, "refresh", null),
  refresh_expires_in: 365 * 86400,
  scope: "user.info.basic,video.publish,video.upload",
  token_type: "Bearer"
})

export interface TikTokSeed {
  readonly username?: string
  readonly expiresInMs?: number
  readonly maxVideoSeconds?: number
  readonly audited?: boolean
  readonly dailyCap?: number
  readonly privacyOptions?: ReadonlyArray<string>
  readonly commentDisabled?: boolean
}

/** A creator with tokens: the admin CLI's `--credentials` (accessToken, refreshToken, expiresAt, openId). */
export const seedTikTokAccount = (core: SimCore, input: TikTokSeed = {}) => {
  const all = stateOf(creators, core)
  const creator: Creator = {
    openId: `-000${core.newId()}`,
    username: input.username ?? `creator${all.size + 1}`,
    privacyOptions: input.privacyOptions ?? ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"],
    maxVideoSeconds: input.maxVideoSeconds ?? 600,
    audited: input.audited ?? false,
    dailyCap: input.dailyCap ?? 15,
    commentDisabled: input.commentDisabled ?? false
  }
  all.set(creator.openId, creator)
  const ttl = input.expiresInMs ?? ACCESS_TTL_MS
  const t = tokensFor(core, creator.openId, Math.max(1, ttl))
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString(), openId: creator.openId }
}

/** The post goes live once TikTok has processed it (core.processingMs()), recorded once. */
const finish = (core: SimCore, publish: Publish) => {
  const done = () => {
    if (publish.status === "PUBLISH_COMPLETE" || publish.status === "FAILED") return
    const creator = stateOf(creators, core).get(publish.account)!
    const isPublic = publish.privacy !== "SELF_ONLY"
    if (isPublic) publish.postId = String(++postCounter)
    publish.status = "PUBLISH_COMPLETE"
    core.record({
      network: NETWORK,
      id: publish.postId ?? publish.id,
      url: `https://www.tiktok.com/@${creator.username}${isPublic ? `/${publish.mode === "photo" ? "photo" : "video"}/${publish.postId}` : ""}`,
      account: publish.account,
      text: publish.title,
      replyTo: null,
      media: [{ id: publish.id, mime: publish.mime, size: publish.received }],
      dedupeKey: null,
      extra: { ...publish.extra, privacy_level: publish.privacy, source: publish.mode }
    })
  }
  const ms = core.processingMs()
  if (ms === 0) done()
  else setTimeout(done, ms)
}

const fail = (publish: Publish, reason: string) => {
  publish.status = "FAILED"
  publish.failReason = reason
}

/** TikTok fetches each file; one it cannot fetch fails the post with its reason. */
const pull = async (core: SimCore, publish: Publish, urls: ReadonlyArray<string>) => {
  let size = 0
  for (const url of urls) {
    const fetched = await core.fetchMedia(url)
    if (!fetched.ok) return fail(publish, publish.mode === "photo" ? "picture_pull_failed" : "video_pull_failed")
    size += fetched.bytes.length
    publish.mime = fetched.mime
  }
  publish.received = size
  finish(core, publish)
}

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})

/** Opens a FILE_UPLOAD publish as video/init does (tests start an upload directly with it). */
export const openTikTokUpload = (
  core: SimCore,
  openId: string,
  input: { readonly title: string; readonly size: number; readonly privacy?: string }
): { readonly publishId: string; readonly uploadUrl: string } => {
  const id = `v_pub_file~v2-1.${core.newId()}`
  const chunkSize = input.size < 5 * MB ? input.size : 10 * MB
  stateOf(publishes, core).set(id, {
    id,
    account: openId,
    title: input.title,
    privacy: input.privacy ?? "SELF_ONLY",
    mode: "upload",
    size: input.size,
    chunkSize,
    chunks: Math.max(1, Math.floor(input.size / chunkSize)),
    extra: {},
    received: 0,
    mime: "",
    status: "PROCESSING_UPLOAD"
  })
  return { publishId: id, uploadUrl: `${core.baseOf(NETWORK)}/upload/?upload_id=${encodeURIComponent(id)}&upload_token=${core.newId()}` }
}

/** video/init and content/init: creator checks, caps, then the publish. */
const init = (request: SimRequest, core: SimCore, creator: Creator, photo: boolean): SimResponse => {
  const recent = stateOf(inits, core).get(bearerOf(request) ?? "") ?? []
  const minute = recent.filter((t) => Date.now() - t < 60_000)
  if (minute.length >= 6) return error(429, "rate_limit_exceeded", "API rate limit was exceeded. Please try again later.")
  stateOf(inits, core).set(bearerOf(request) ?? "", [...minute, Date.now()])
  const today = [...stateOf(publishes, core).values()].filter((p) => p.account === creator.openId && p.status !== "FAILED").length
  if (today >= creator.dailyCap) return error(403, "spam_risk_too_many_posts", "The daily post cap for this creator has been reached.")
  const body = record(jsonBody(request))
  const info = record(body["post_info"])
  const source = record(body["source_info"])
  const privacy = typeof info["privacy_level"] === "string" ? info["privacy_level"] : ""
  if (!creator.privacyOptions.includes(privacy))
    return error(400, "privacy_level_option_mismatch", "privacy_level is not one of the creator's options.")
  if (!creator.audited && privacy !== "SELF_ONLY")
    return error(403, "unaudited_client_can_only_post_to_private_accounts", "Unaudited clients can only post to private accounts.")
  const title = typeof info["title"] === "string" ? info["title"] : ""
  const extra = {
    disable_comment: info["disable_comment"] ?? null,
    disable_duet: info["disable_duet"] ?? null,
    disable_stitch: info["disable_stitch"] ?? null,
    description: info["description"] ?? null
  }
  if (photo) {
    const images = Array.isArray(source["photo_images"]) ? source["photo_images"].filter((u): u is string => typeof u === "string") : []
    if (source["source"] !== "PULL_FROM_URL" || images.length === 0 || images.length > 35 || body["media_type"] !== "PHOTO")
      return error(400, "invalid_params", "photo_images must hold 1 to 35 addresses pulled from a verified domain.")
    if (title.length > 90) return error(400, "invalid_params", "title is at most 90 characters for photo posts.")
    const id = `p_pub_url~v2.${core.newId()}`
    const publish: Publish = {
      id,
      account: creator.openId,
      title: String(info["description"] ?? title),
      privacy,
      mode: "photo",
      size: 0,
      chunkSize: 0,
      chunks: 0,
      extra,
      received: 0,
      mime: "",
      status: "PROCESSING_DOWNLOAD"
    }
    stateOf(publishes, core).set(id, publish)
    void pull(core, publish, images)
    return ok({ publish_id: id })
  }
  if (title.length > 2200) return error(400, "invalid_params", "title is at most 2200 characters.")
  if (source["source"] === "PULL_FROM_URL") {
    const url = typeof source["video_url"] === "string" ? source["video_url"] : ""
    if (url === "") return error(400, "invalid_params", "video_url is required for PULL_FROM_URL.")
    const id = `v_pub_url~v2.${core.newId()}`
    const publish: Publish = {
      id,
      account: creator.openId,
      title,
      privacy,
      mode: "pull",
      size: 0,
      chunkSize: 0,
      chunks: 0,
      extra,
      received: 0,
      mime: "",
      status: "PROCESSING_DOWNLOAD"
    }
    stateOf(publishes, core).set(id, publish)
    void pull(core, publish, [url])
    return ok({ publish_id: id })
  }
  if (source["source"] !== "FILE_UPLOAD") return error(400, "invalid_params", "source must be FILE_UPLOAD or PULL_FROM_URL.")
  const size = Number(source["video_size"])
  const chunkSize = Number(source["chunk_size"])
  const count = Number(source["total_chunk_count"])
  const chunkOk =
    size < 5 * MB ? chunkSize === size && count === 1 : chunkSize >= 5 * MB && chunkSize <= 64 * MB && count === Math.floor(size / chunkSize)
  if (!(size > 0) || !chunkOk || count > 1000)
    return error(400, "invalid_params", "video_size, chunk_size and total_chunk_count do not follow the chunk restrictions.")
  const opened = openTikTokUpload(core, creator.openId, { title, size, privacy })
  Object.assign(stateOf(publishes, core).get(opened.publishId)!.extra, extra)
  return ok({ publish_id: opened.publishId, upload_url: opened.uploadUrl })
}

/** PUT of one chunk: sequential, Content-Range naming it; 206 while bytes are missing, 201 for the whole video. */
const uploadChunk = (request: SimRequest, core: SimCore): SimResponse => {
  const publish = stateOf(publishes, core).get(request.query.get("upload_id") ?? "")
  if (publish === undefined || publish.mode !== "upload") return error(404, "invalid_params", "The upload address is not known.")
  const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(request.headers["content-range"] ?? ""))
  if (range === null) return error(400, "invalid_params", "Content-Range is required.")
  const [first, last, total] = [Number(range[1]), Number(range[2]), Number(range[3])]
  if (total !== publish.size || last - first + 1 !== request.body.length || last >= total)
    return error(400, "invalid_params", "Content-Range does not match the body or the video size.")
  if (first > publish.received) return error(400, "invalid_params", "Chunks must be uploaded sequentially.")
  if (publish.received === publish.size) return { status: 201, body: "" }
  publish.received = Math.max(publish.received, last + 1)
  publish.mime = String(request.headers["content-type"] ?? "video/mp4")
  if (publish.received < publish.size) return { status: 206, body: "" }
  finish(core, publish)
  return { status: 201, body: "" }
}

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method, path } = request
  if (method === "GET" && path === "/v2/auth/authorize/") {
    const q = request.query
    if ((q.get("client_key") ?? "") === "") return error(400, "invalid_client_key", "client_key is required")
    const all = stateOf(creators, core)
    const openId =
      [...all.values()].find((c) => c.username === q.get("account"))?.openId ??
      seedTikTokAccount(core, { username: q.get("account") ?? "tiktoker" }).openId
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, openId)
    const target = new URL(q.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", q.get("state") ?? "")
    target.searchParams.set("scopes", q.get("scope") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/v2/oauth/token/") {
    const form = formBody(request)
    if ((form.get("client_key") ?? "") === "" || (form.get("client_secret") ?? "") === "")
      return { status: 401, body: { error: "invalid_client", error_description: "Client key or secret is incorrect.", log_id: logId() } }
    if (form.get("grant_type") === "authorization_code") {
      const openId = stateOf(codes, core).get(form.get("code") ?? "")
      if (openId === undefined)
        return { status: 400, body: { error: "invalid_grant", error_description: "Authorization code is expired.", log_id: logId() } }
      stateOf(codes, core).delete(form.get("code") ?? "")
      return { status: 200, body: tokensFor(core, openId) }
    }
    if (form.get("grant_type") === "refresh_token") {
      const value = form.get("refresh_token") ?? ""
      const found = core.tokens.get(value)
      if (found === undefined || found.network !== NETWORK || found.kind !== "refresh")
        return { status: 400, body: { error: "invalid_grant", error_description: "Refresh token is invalid or expired.", log_id: logId() } }
      return { status: 200, body: tokensFor(core, found.account, ACCESS_TTL_MS, value) }
    }
    return { status: 400, body: { error: "unsupported_grant_type", error_description: "grant_type is not supported", log_id: logId() } }
  }
  if (method === "PUT" && path === "/upload/") return uploadChunk(request, core)
  const openId = core.accountOf(NETWORK, bearerOf(request))
  if (openId === null) return invalidToken
  const creator = stateOf(creators, core).get(openId)!
  if (method === "GET" && path === "/v2/user/info/") {
    const mine = core.posts.filter((p) => p.network === NETWORK && p.account === openId)
    return ok({
      user: {
        open_id: openId,
        union_id: `u${openId}`,
        display_name: creator.username.toUpperCase(),
        username: creator.username,
        avatar_url: `https://p16.tiktokcdn.example/${openId}.jpeg`,
        follower_count: 120,
        following_count: 12,
        likes_count: 3400,
        video_count: mine.length
      }
    })
  }
  if (method === "POST" && path === "/v2/post/publish/creator_info/query/") {
    return ok({
      creator_avatar_url: `https://p16.tiktokcdn.example/${openId}.jpeg`,
      creator_username: creator.username,
      creator_nickname: creator.username.toUpperCase(),
      privacy_level_options: creator.privacyOptions,
      comment_disabled: creator.commentDisabled,
      duet_disabled: false,
      stitch_disabled: true,
      max_video_post_duration_sec: creator.maxVideoSeconds
    })
  }
  if (method === "POST" && path === "/v2/post/publish/video/init/") return init(request, core, creator, false)
  if (method === "POST" && path === "/v2/post/publish/content/init/") return init(request, core, creator, true)
  if (method === "POST" && path === "/v2/post/publish/status/fetch/") {
    const publish = stateOf(publishes, core).get(String(record(jsonBody(request))["publish_id"] ?? ""))
    if (publish === undefined || publish.account !== openId) return error(400, "invalid_publish_id", "publish_id does not exist")
    const data = {
      status: publish.status,
      ...(publish.failReason === undefined ? {} : { fail_reason: publish.failReason }),
      publicaly_available_post_id: "IDS",
      ...(publish.mode === "upload" ? { uploaded_bytes: publish.received } : { downloaded_bytes: publish.received })
    }
    // int64 ids as TikTok writes them: bare numbers beyond JavaScript's exact range
    const text = JSON.stringify({ data, error: { code: "ok", message: "", log_id: logId() } }).replace('"IDS"', `[${publish.postId ?? ""}]`)
    return { status: 200, headers: { "content-type": "application/json" }, body: text }
  }
  if (method === "POST" && path === "/v2/video/query/") {
    const ids = record(record(jsonBody(request))["filters"])["video_ids"]
    const wanted = Array.isArray(ids) ? ids.map(String) : []
    const videos = core.posts.filter((p) => p.network === NETWORK && p.account === openId && wanted.includes(p.id) && /^\d+$/.test(p.id))
    return ok({
      videos: videos.map((v) => ({ id: v.id, view_count: 900, like_count: 77, comment_count: 5, share_count: 3 })),
      cursor: 0,
      has_more: false
    })
  }
  return undefined
}

export const tiktokModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ TIKTOK_API_URL: base, TIKTOK_AUTH_URL: base, TIKTOK_CLIENT_ID: "sim-client", TIKTOK_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    method === "PUT" && path === "/upload/"
      ? "publish"
      : path.endsWith("/init/")
        ? "init"
        : path.endsWith("/status/fetch/")
          ? "search"
          : path.startsWith("/v2/oauth")
            ? "token"
            : "account",
  rejectBody: (status) => error(status ?? 400, "invalid_params", "The video could not be accepted: the file is not a valid video."),
  expiredTokenBody: () => invalidToken,
  seed: (core, input) =>
    seedTikTokAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["maxVideoSeconds"] === "number" ? { maxVideoSeconds: input["maxVideoSeconds"] } : {}),
      ...(typeof input["audited"] === "boolean" ? { audited: input["audited"] } : {}),
      ...(typeof input["dailyCap"] === "number" ? { dailyCap: input["dailyCap"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [tiktokModule, tiktokBusinessModule]
