import { type NetworkModule, type SimCore, type SimRequest, type SimResponse, jsonBody, stateOf } from "../../../test/support/simulator/core.js"

/**
 * TikTok API for Business (Accounts API, v1.3) as business-api.tiktok.com/portal/docs
 * documents it: TikTok's sign-in page (/v2/auth/authorize/ approves at once),
 * /tt_user/oauth2/token/ and /refresh_token/ (JSON bodies with the app's id and secret),
 * and with the `Access-Token` header and `business_id`: /business/get/,
 * /business/video/publish/ (TikTok fetches `video_url`), /business/photo/publish/,
 * /business/publish/status/ (PROCESSING_DOWNLOAD, PUBLISH_COMPLETE with `post_ids`,
 * FAILED with `reason`), /business/video/list/, /business/comment/create/ and
 * /business/comment/list/. Every answer is `{code, message, request_id, data}`, HTTP 200
 * even for a refusal (40002 bad parameters, 40100 too many requests, 40105 a bad token).
 * The file is fetched as the publish is taken; the post is live after core.processingMs().
 */
const NETWORK = "tiktok-business"
const ACCESS_TTL_MS = 24 * 3600_000
const CAPTION_MAX = 2200
const COMMENT_MAX = 150

interface Business {
  readonly id: string
  readonly username: string
  /** How long after PUBLISH_COMPLETE `post_ids` appear (the docs: up to 3 minutes); default at once. */
  readonly postIdsAfterMs: number
}

interface Task {
  readonly id: string
  readonly account: string
  readonly kind: "video" | "photo"
  readonly caption: string
  readonly extra: Record<string, unknown>
  status: "PROCESSING_DOWNLOAD" | "PUBLISH_COMPLETE" | "FAILED"
  reason?: string
  postId?: string
  completeAt?: number
}

const businesses = new WeakMap<SimCore, Map<string, Business>>()
const codes = new WeakMap<SimCore, Map<string, string>>()
const tasks = new WeakMap<SimCore, Map<string, Task>>()
let itemCounter = 7_400_000_000_000_000_000n

const requestId = () => `2026${Math.random().toString(16).slice(2, 18)}`
const answer = (code: number, message: string, data: unknown = {}): SimResponse => ({
  status: 200,
  body: { code, message, request_id: requestId(), data }
})
const ok = (data: unknown) => answer(0, "OK", data)
const badParams = (message: string) => answer(40002, message)
const badToken = () => answer(40105, "The access token is invalid or has been revoked.")

const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})

const tokensFor = (core: SimCore, businessId: string, accessTtlMs = ACCESS_TTL_MS, refreshToken?: string) => ({
  access_token: core.issueToken(NETWORK, businessId, "access", accessTtlMs),
  expires_in: Math.floor(accessTtlMs / 1000),
  refresh_token: refreshToken ?? core.issueToken(NETWORK, businessId, "refresh", null),
  refresh_token_expires_in: 365 * 86400,
  open_id: businessId,
  scope: "user.info.basic,video.list,video.publish,comment.list,comment.list.manage",
  token_type: "Bearer"
})

export interface TikTokBusinessSeed {
  readonly username?: string
  readonly expiresInMs?: number
  readonly postIdsAfterMs?: number
}

/** A business account with tokens: the admin CLI's `--credentials` (accessToken, refreshToken, expiresAt, businessId). */
export const seedTikTokBusinessAccount = (core: SimCore, input: TikTokBusinessSeed = {}) => {
  const all = stateOf(businesses, core)
  const business: Business = {
    id: `-000b${core.newId()}`,
    username: input.username ?? `brand${all.size + 1}`,
    postIdsAfterMs: input.postIdsAfterMs ?? 0
  }
  all.set(business.id, business)
  const ttl = input.expiresInMs ?? ACCESS_TTL_MS
  const t = tokensFor(core, business.id, Math.max(1, ttl))
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString(), businessId: business.id }
}

/** The post is public once TikTok has checked it (core.processingMs()), recorded once. */
const finish = (core: SimCore, task: Task, media: ReadonlyArray<{ readonly mime: string; readonly size: number }>) => {
  const done = () => {
    if (task.status !== "PROCESSING_DOWNLOAD") return
    const business = stateOf(businesses, core).get(task.account)!
    task.postId = String(++itemCounter)
    task.status = "PUBLISH_COMPLETE"
    task.completeAt = Date.now()
    core.record({
      network: NETWORK,
      id: task.postId,
      url: `https://www.tiktok.com/@${business.username}/${task.kind}/${task.postId}`,
      account: task.account,
      text: task.caption,
      replyTo: null,
      media: media.map((m, i) => ({ id: `${task.id}-${i}`, mime: m.mime, size: m.size })),
      dedupeKey: null,
      extra: { ...task.extra, kind: task.kind }
    })
  }
  const ms = core.processingMs()
  if (ms === 0) done()
  else setTimeout(done, ms)
}

/** video/publish and photo/publish: TikTok fetches each address as it takes the task; one it cannot fetch fails the task. */
const publish = async (request: SimRequest, core: SimCore, business: Business, kind: "video" | "photo"): Promise<SimResponse> => {
  const body = record(jsonBody(request))
  const info = record(body["post_info"])
  const caption = typeof info["caption"] === "string" ? info["caption"] : ""
  if (caption.length > CAPTION_MAX) return badParams(`post_info.caption is at most ${CAPTION_MAX} characters.`)
  const urls =
    kind === "video"
      ? typeof body["video_url"] === "string"
        ? [body["video_url"]]
        : []
      : Array.isArray(body["photo_images"])
        ? body["photo_images"].filter((u): u is string => typeof u === "string")
        : []
  if (urls.length === 0 || urls.length > 35)
    return badParams(kind === "video" ? "video_url is required." : "photo_images must hold 1 to 35 addresses.")
  if (kind === "photo" && typeof info["title"] === "string" && info["title"].length > 90)
    return badParams("post_info.title is at most 90 characters.")
  const task: Task = {
    id: `${kind === "video" ? "v" : "p"}_pub_url~v2.${core.newId()}`,
    account: business.id,
    kind,
    caption,
    extra: {
      disable_comment: info["disable_comment"] ?? null,
      disable_duet: info["disable_duet"] ?? null,
      disable_stitch: info["disable_stitch"] ?? null
    },
    status: "PROCESSING_DOWNLOAD"
  }
  stateOf(tasks, core).set(task.id, task)
  const media: Array<{ mime: string; size: number }> = []
  for (const url of urls) {
    const fetched = await core.fetchMedia(url)
    if (!fetched.ok) {
      task.status = "FAILED"
      task.reason = kind === "video" ? "video_pull_failed" : "picture_pull_failed"
      return ok({ share_id: task.id })
    }
    media.push({ mime: fetched.mime, size: fetched.bytes.length })
  }
  finish(core, task, media)
  return ok({ share_id: task.id })
}

const parsed = (value: string | null): unknown => {
  try {
    return JSON.parse(value ?? "")
  } catch {
    return undefined
  }
}

/** A query parameter the API takes as a JSON array string (`fields`, `video_ids`). */
const listOf = (value: string | null): ReadonlyArray<string> => {
  const list = parsed(value)
  return Array.isArray(list) ? list.map(String) : []
}

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method, path, query } = request
  if (method === "GET" && path === "/v2/auth/authorize/") {
    if ((query.get("client_key") ?? "") === "") return { status: 400, body: "client_key is required" }
    const all = stateOf(businesses, core)
    const businessId =
      [...all.values()].find((b) => b.username === query.get("account"))?.id ??
      seedTikTokBusinessAccount(core, { username: query.get("account") ?? "brand" }).businessId
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, businessId)
    const target = new URL(query.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && (path === "/v1.3/tt_user/oauth2/token/" || path === "/v1.3/tt_user/oauth2/refresh_token/")) {
    const body = record(jsonBody(request))
    if ((body["client_id"] ?? "") === "" || (body["client_secret"] ?? "") === "") return answer(40001, "client_id or client_secret is incorrect.")
    if (path.endsWith("/token/")) {
      const businessId = stateOf(codes, core).get(String(body["auth_code"] ?? ""))
      if (body["grant_type"] !== "authorization_code" || businessId === undefined) return answer(40002, "auth_code is invalid or expired.")
      stateOf(codes, core).delete(String(body["auth_code"]))
      return ok(tokensFor(core, businessId))
    }
    const found = core.tokens.get(String(body["refresh_token"] ?? ""))
    if (body["grant_type"] !== "refresh_token" || found === undefined || found.network !== NETWORK || found.kind !== "refresh")
      return answer(40002, "refresh_token is invalid or expired.")
    return ok(tokensFor(core, found.account, ACCESS_TTL_MS, String(body["refresh_token"])))
  }
  const token = request.headers["access-token"]
  const businessId = core.accountOf(NETWORK, typeof token === "string" ? token : undefined)
  if (businessId === null) return badToken()
  const business = stateOf(businesses, core).get(businessId)!
  const asked = method === "GET" ? query.get("business_id") : String(record(jsonBody(request))["business_id"] ?? "")
  if (asked !== businessId) return answer(40001, "No permission to operate this business_id.")
  const mine = () => core.posts.filter((p) => p.network === NETWORK && p.account === businessId)
  if (method === "GET" && path === "/v1.3/business/get/") {
    const fields = listOf(query.get("fields"))
    const all: Record<string, unknown> = {
      username: business.username,
      display_name: business.username.toUpperCase(),
      profile_image: `https://p16.tiktokcdn.example/${businessId}.jpeg`,
      followers_count: 250,
      videos_count: mine().filter((p) => p.replyTo === null).length,
      total_likes: 4100
    }
    return ok(Object.fromEntries(Object.entries(all).filter(([k]) => fields.includes(k))))
  }
  if (method === "POST" && path === "/v1.3/business/video/publish/") return publish(request, core, business, "video")
  if (method === "POST" && path === "/v1.3/business/photo/publish/") return publish(request, core, business, "photo")
  if (method === "GET" && path === "/v1.3/business/publish/status/") {
    const task = stateOf(tasks, core).get(query.get("publish_id") ?? "")
    if (task === undefined || task.account !== businessId) return badParams("publish_id does not exist.")
    // post_ids only once the post is public, which may be a while after PUBLISH_COMPLETE
    const idShown = task.postId !== undefined && Date.now() - (task.completeAt ?? 0) >= stateOf(businesses, core).get(task.account)!.postIdsAfterMs
    return ok({
      status: task.status,
      ...(task.reason === undefined ? {} : { reason: task.reason }),
      ...(idShown ? { post_ids: [task.postId] } : {})
    })
  }
  if (method === "GET" && path === "/v1.3/business/video/list/") {
    const wanted = listOf(JSON.stringify(record(parsed(query.get("filters")))["video_ids"] ?? null))
    const posts = core
      .visiblePosts(NETWORK, businessId)
      .filter((p) => p.replyTo === null && (wanted.length === 0 || wanted.includes(p.id)))
      .slice(-Math.min(20, Number(query.get("max_count") ?? 20)))
      .reverse()
    return ok({
      videos: posts.map((p) => ({ item_id: p.id, caption: p.text, share_url: p.url, video_views: 1500, likes: 120, comments: 9, shares: 4 })),
      has_more: false,
      cursor: 0
    })
  }
  if (method === "POST" && path === "/v1.3/business/comment/create/") {
    const body = record(jsonBody(request))
    const video = mine().find((p) => p.id === String(body["video_id"] ?? "") && p.replyTo === null)
    if (video === undefined) return badParams("video_id does not exist.")
    const text = typeof body["text"] === "string" ? body["text"] : ""
    if (text === "" || [...text].length > COMMENT_MAX) return badParams(`text is 1 to ${COMMENT_MAX} characters.`)
    const id = String(++itemCounter)
    core.record({ network: NETWORK, id, url: video.url, account: businessId, text, replyTo: video.id, media: [], dedupeKey: null, extra: {} })
    return ok({ comment_id: id, video_id: video.id, create_time: String(Math.floor(Date.now() / 1000)), text })
  }
  if (method === "GET" && path === "/v1.3/business/comment/list/") {
    const videoId = query.get("video_id") ?? ""
    const comments = core.posts.filter((p) => p.network === NETWORK && p.replyTo === videoId)
    return ok({
      comments: comments.map((p) => ({ comment_id: p.id, video_id: videoId, text: p.text, owner: p.account === businessId, status: "PUBLIC" })),
      has_more: false,
      cursor: 0
    })
  }
  return undefined
}

export const tiktokBusinessModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({
    TIKTOK_BUSINESS_API_URL: base,
    TIKTOK_BUSINESS_AUTH_URL: base,
    TIKTOK_BUSINESS_CLIENT_ID: "sim-business-app",
    TIKTOK_BUSINESS_CLIENT_SECRET: "sim-business-secret"
  }),
  handle,
  opOf: ({ path }) =>
    path.endsWith("/publish/") || path.endsWith("/comment/create/")
      ? "publish"
      : path.endsWith("/publish/status/") || path.endsWith("/list/")
        ? "search"
        : path.includes("/oauth2/")
          ? "token"
          : "account",
  rejectBody: () => badParams("video_url: the file could not be used (invalid video)."),
  expiredTokenBody: badToken,
  seed: (core, input) =>
    seedTikTokBusinessAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["postIdsAfterMs"] === "number" ? { postIdsAfterMs: input["postIdsAfterMs"] } : {})
    })
}
