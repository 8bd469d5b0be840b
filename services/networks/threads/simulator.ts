import type { NetworkModule, SimCore, SimRequest, SimResponse } from "../../../test/support/simulator/core.js"
import { stateOf } from "../../../test/support/simulator/core.js"
import {
  accountsOf,
  containersOf,
  expiredTokenError,
  filesOf,
  graphError,
  graphId,
  insightsOf,
  invalidTokenError,
  isExpired,
  makeContainer,
  mediaOf,
  newAccount,
  page,
  paramsOf,
  statusOf,
  tokenOfRequest,
  unversioned,
  usageOf
} from "../../../test/support/simulator/metaGraph.js"

/**
 * Threads as Meta documents it (developers.facebook.com/docs/threads: get-started,
 * long-lived-tokens, posts, create-posts/carousel-posts, reply-management, troubleshooting,
 * insights): threads.net/oauth/authorize, graph.threads.net/oauth/access_token (`{access_token,
 * user_id}`), /access_token (`th_exchange_token`, 60 days), /refresh_access_token
 * (`th_refresh_token`), /me, `POST /{user}/threads` (TEXT, IMAGE, VIDEO, CAROUSEL of 2 to 20,
 * `reply_to_id`), the container's `status` and `error_message`, `POST /{user}/threads_publish`,
 * /{user}/threads and /{user}/replies, insights, and the 250 posts a day cap.
 */
const NETWORK = "threads"
const LONG_LIVED_S = 5_183_944
const MAX_TEXT = 500

const codes = new WeakMap<SimCore, Map<string, { readonly userId: string; readonly redirectUri: string }>>()

export const seedThreadsAccount = (
  core: SimCore,
  input: { readonly username?: string; readonly expiresInMs?: number; readonly cap?: number } = {}
) => {
  const account = newAccount(core, NETWORK, {
    username: input.username ?? "threader",
    accountType: "THREADS",
    cap: input.cap ?? 250
  })
  const ttl = Math.max(1, input.expiresInMs ?? LONG_LIVED_S * 1000)
  return { accessToken: core.issueToken(NETWORK, account.id, "access", ttl), userId: account.id, expiresAt: new Date(Date.now() + ttl).toISOString() }
}

const longLived = (core: SimCore, userId: string) => ({
  access_token: core.issueToken(NETWORK, userId, "access", LONG_LIVED_S * 1000),
  token_type: "bearer",
  expires_in: LONG_LIVED_S
})

const denied = () => graphError(400, "(#10) Application does not have permission for this action", 10)

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const path = unversioned(request.path)
  const params = paramsOf(request)
  if (request.method === "GET" && path === "/oauth/authorize") {
    const all = [...accountsOf(core).values()].filter((a) => a.network === NETWORK)
    const userId = all[all.length - 1]?.id ?? seedThreadsAccount(core).userId
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { userId, redirectUri: params["redirect_uri"] ?? "" })
    const target = new URL(params["redirect_uri"] ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", params["state"] ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (request.method === "POST" && path === "/oauth/access_token") {
    if ((params["client_secret"] ?? "") === "") return graphError(400, "Error validating client secret.", 1)
    const code = stateOf(codes, core).get(params["code"] ?? "")
    if (code === undefined || code.redirectUri !== params["redirect_uri"]) return graphError(400, "Invalid verification code format.", 100)
    stateOf(codes, core).delete(params["code"] ?? "")
    return { status: 200, body: { access_token: core.issueToken(NETWORK, code.userId, "access", 3600_000), user_id: Number(code.userId) } }
  }
  const token = tokenOfRequest(request, params)
  const userId = core.accountOf(NETWORK, token)
  if (userId === null) return isExpired(core, NETWORK, token) ? expiredTokenError() : invalidTokenError()
  if (request.method === "GET" && path === "/access_token") {
    if (params["grant_type"] !== "th_exchange_token" || (params["client_secret"] ?? "") === "")
      return graphError(400, "Invalid grant_type or client_secret", 100)
    return { status: 200, body: longLived(core, userId) }
  }
  if (request.method === "GET" && path === "/refresh_access_token") {
    if (params["grant_type"] !== "th_refresh_token") return graphError(400, "Unsupported grant_type", 100)
    return { status: 200, body: longLived(core, userId) }
  }
  const account = accountsOf(core).get(userId)!
  const [, rawFirst = "", second] = path.split("/")
  const first = rawFirst === "me" ? userId : rawFirst
  if (first === userId) {
    if (request.method === "GET" && second === undefined)
      return {
        status: 200,
        body: {
          id: account.id,
          username: account.username,
          name: account.name,
          threads_profile_picture_url: `https://scontent.cdnthreads.test/${account.id}.jpg`
        }
      }
    if (request.method === "GET" && second === "threads_insights") {
      if (params["metric"] !== "followers_count")
        return graphError(400, "(#100) metric must be one of views, likes, replies, reposts, quotes, followers_count", 100)
      return {
        status: 200,
        body: {
          data: [
            {
              name: "followers_count",
              period: "day",
              title: "Followers",
              description: "Followers of the profile",
              total_value: { value: 42 },
              id: `${account.id}/insights/followers_count/day`
            }
          ]
        }
      }
    }
    if (request.method === "GET" && second === "threads_publishing_limit")
      return { status: 200, body: { data: [{ quota_usage: usageOf(account), config: { quota_total: account.cap, quota_duration: 86400 } }] } }
    if (request.method === "GET" && (second === "threads" || second === "replies")) {
      const visible = new Set(core.visiblePosts(NETWORK, account.id).map((p) => p.id))
      const listed = [...mediaOf(core).values()]
        .filter((m) => m.owner === account.id && visible.has(m.id) && (second === "threads" ? m.replyTo === null : m.replyTo !== null))
        .reverse()
        .slice(0, Number(params["limit"] ?? 25) || 25)
      return {
        status: 200,
        body: page(listed.map((m) => ({ id: m.id, text: m.caption, permalink: m.permalink, timestamp: m.timestamp, media_type: m.mediaType })))
      }
    }
    if (request.method === "POST" && second === "threads") {
      const text = params["text"] ?? ""
      if ([...text].length > MAX_TEXT) return graphError(400, `Param text must be at most ${MAX_TEXT} characters long.`, 100, { subcode: 4279009 })
      const type = params["media_type"] ?? ""
      if (!["TEXT", "IMAGE", "VIDEO", "CAROUSEL"].includes(type))
        return graphError(400, "(#100) Param media_type must be one of {TEXT, IMAGE, VIDEO, CAROUSEL}", 100)
      const replyTo = params["reply_to_id"]
      if (replyTo !== undefined && !mediaOf(core).has(replyTo)) return graphError(400, `(#100) The reply_to_id ${replyTo} is not a Threads post`, 100)
      if (type === "TEXT" && text === "") return graphError(400, "(#100) Param text is required for a TEXT post", 100)
      if (type === "IMAGE" && params["image_url"] === undefined) return graphError(400, "(#100) Param image_url is required", 100)
      if (type === "VIDEO" && params["video_url"] === undefined) return graphError(400, "(#100) Param video_url is required", 100)
      const children = type === "CAROUSEL" ? (params["children"] ?? "").split(",").filter((s) => s !== "") : []
      if (type === "CAROUSEL") {
        const all = containersOf(core)
        if (children.length < 2 || children.length > 20) return graphError(400, "(#100) A carousel must have between 2 and 20 children", 100)
        if (children.some((id) => all.get(id)?.owner !== account.id || all.get(id)?.params["is_carousel_item"] !== "true"))
          return graphError(400, "(#100) Invalid children: every child must be a carousel item container of this user", 100)
      }
      const container = await makeContainer(core, {
        network: NETWORK,
        owner: account.id,
        params,
        mediaType: type,
        children,
        downloadError: (video) => (video ? "FAILED_DOWNLOADING_VIDEO" : "UNKNOWN")
      })
      return { status: 200, body: { id: container.id } }
    }
    if (request.method === "POST" && second === "threads_publish") {
      const container = containersOf(core).get(params["creation_id"] ?? "")
      if (container === undefined || container.owner !== account.id)
        return graphError(400, "(#100) Param creation_id must be a valid media container id", 100)
      const status = statusOf(core, container)
      if (status === "PUBLISHED") return graphError(400, "The media has already been published", 24, { subcode: 4279001 })
      if (status === "EXPIRED") return graphError(400, "The media container has expired.", 24, { subcode: 4279002 })
      if (status === "ERROR") return graphError(400, `Media upload has failed: ${container.error ?? "UNKNOWN"}`, 24, { subcode: 4279003 })
      if (status === "IN_PROGRESS")
        return graphError(400, "Media Not Found", 24, {
          subcode: 4279009,
          userMessage: "The media is not ready to be published. Please wait a moment."
        })
      if (usageOf(account) >= account.cap) return graphError(400, "You've reached the daily limit of posts you can publish.", 9, { subcode: 2207042 })
      const id = graphId(core)
      const replyTo = container.params["reply_to_id"] ?? null
      const permalink = `https://www.threads.net/@${account.username}/post/${id.slice(-11)}`
      container.mediaId = id
      account.publishedAt.push(Date.now())
      mediaOf(core).set(id, {
        id,
        network: NETWORK,
        owner: account.id,
        caption: container.params["text"] ?? "",
        permalink,
        timestamp: new Date().toISOString(),
        mediaType: container.mediaType === "CAROUSEL" ? "CAROUSEL_ALBUM" : container.mediaType === "TEXT" ? "TEXT_POST" : container.mediaType,
        replyTo
      })
      core.record({
        network: NETWORK,
        id,
        url: permalink,
        account: account.id,
        text: container.params["text"] ?? "",
        replyTo,
        media: filesOf(core, container),
        dedupeKey: null,
        extra: { mediaType: container.mediaType, containerId: container.id }
      })
      return { status: 200, body: { id } }
    }
    return undefined
  }
  const container = containersOf(core).get(first)
  if (container !== undefined && container.network === NETWORK && request.method === "GET" && second === undefined) {
    if (container.owner !== userId) return denied()
    const status = statusOf(core, container)
    return { status: 200, body: { status, ...(status === "ERROR" ? { error_message: container.error ?? "UNKNOWN" } : {}), id: container.id } }
  }
  const media = mediaOf(core).get(first)
  if (media === undefined || media.network !== NETWORK)
    return graphError(400, `Unsupported get request. Object with ID '${first}' does not exist`, 100, { subcode: 33 })
  if (media.owner !== userId) return denied()
  if (request.method === "GET" && second === undefined)
    return {
      status: 200,
      body: { id: media.id, text: media.caption, permalink: media.permalink, timestamp: media.timestamp, media_type: media.mediaType }
    }
  if (request.method === "GET" && second === "insights") {
    const metrics = (params["metric"] ?? "").split(",").filter((s) => s !== "")
    const known = ["views", "likes", "replies", "reposts", "quotes", "shares"]
    if (metrics.length === 0 || metrics.some((m) => !known.includes(m)))
      return graphError(400, `(#100) metric must be one of ${known.join(", ")}`, 100)
    return { status: 200, body: insightsOf(media.id, metrics) }
  }
  return undefined
}

export const threadsModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ THREADS_API_URL: base, THREADS_AUTH_URL: base, THREADS_CLIENT_ID: "sim-client", THREADS_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) => {
    const p = unversioned(path)
    if (method === "POST" && p.endsWith("/threads_publish")) return "publish"
    if (p.includes("oauth") || p.includes("access_token")) return "token"
    if (method === "POST" && p.endsWith("/threads")) return "media"
    if (method === "GET" && (p.endsWith("/threads") || p.endsWith("/replies"))) return "search"
    return "account"
  },
  rejectBody: (status) => graphError(status ?? 400, `Param text must be at most ${MAX_TEXT} characters long.`, 100, { subcode: 4279009 }),
  expiredTokenBody: expiredTokenError,
  seed: (core, input) =>
    seedThreadsAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["cap"] === "number" ? { cap: input["cap"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [threadsModule]
