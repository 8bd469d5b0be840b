import type { NetworkModule, SimCore, SimRequest, SimResponse } from "../../../test/support/simulator/core.js"
import { stateOf } from "../../../test/support/simulator/core.js"
import {
  accountsOf,
  containersOf,
  expiredTokenError,
  filesOf,
  type GraphAccount,
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
 * Instagram's content publishing as Meta documents it (developers.facebook.com/docs/
 * instagram-platform/content-publishing, reference/ig-user/media, media_publish,
 * content_publishing_limit, ig-media/comments, insights, error-codes), the same on
 * graph.facebook.com (Facebook Login) and graph.instagram.com (Instagram Login), and the
 * Facebook Login module: /dialog/oauth, /oauth/access_token (code, then fb_exchange_token),
 * /me/accounts with each Page's instagram_business_account and Page token.
 */
const NETWORK = "instagram"

/** Instagram's words for a container whose media could not be fetched (subcode 2207052). */
export const IG_DOWNLOAD_ERROR = "Media download has failed. The media URI doesn't meet our requirements."

/** Instagram's publishing cap error (code 9, subcode 2207042). */
const capReached = () =>
  graphError(400, "Application request limit reached", 9, {
    subcode: 2207042,
    userTitle: "Publishing limit reached",
    userMessage: "You reached maximum number of posts that is allowed to be published by Content Publishing API."
  })

const numberOr = (value: string | undefined, fallback: number) => {
  const n = Number(value)
  return Number.isFinite(n) && n > 0 ? n : fallback
}

/**
 * The IG User and IG Media routes for one network prefix; `allowed` gives the IG accounts a
 * token may act for (null: not a valid token).
 */
export const instagramGraphRoutes =
  (network: string, allowed: (core: SimCore, token: string | undefined) => ReadonlyArray<string> | null) =>
  async (request: SimRequest, core: SimCore, path: string, params: Record<string, string>): Promise<SimResponse | undefined> => {
    const token = tokenOfRequest(request, params)
    const ids = allowed(core, token)
    if (ids === null) return isExpired(core, network, token) ? expiredTokenError() : invalidTokenError()
    const accounts = accountsOf(core)
    const [, first = "", second] = path.split("/")
    const account = accounts.get(first)
    const mine = (a: GraphAccount | undefined) => a !== undefined && a.network === network && ids.includes(a.id)
    if (account !== undefined && account.network === network) {
      if (!mine(account)) return graphError(400, "(#10) Application does not have permission for this action", 10)
      if (account.accountType === "PERSONAL")
        return graphError(400, "The user is not an Instagram Business or Creator account", 10, { subcode: 2207050 })
      if (request.method === "GET" && second === undefined)
        return {
          status: 200,
          body: {
            id: account.id,
            username: account.username,
            name: account.name,
            profile_picture_url: `https://scontent.cdninstagram.test/${account.id}.jpg`,
            followers_count: 120,
            follows_count: 35,
            media_count: [...mediaOf(core).values()].filter((m) => m.owner === account.id && m.replyTo === null).length
          }
        }
      if (request.method === "GET" && second === "content_publishing_limit")
        return { status: 200, body: { data: [{ quota_usage: usageOf(account), config: { quota_total: account.cap, quota_duration: 86400 } }] } }
      if (request.method === "GET" && second === "media") {
        const visible = new Set(core.visiblePosts(network, account.id).map((p) => p.id))
        const listed = [...mediaOf(core).values()]
          .filter((m) => m.owner === account.id && m.replyTo === null && visible.has(m.id))
          .reverse()
          .slice(0, numberOr(params["limit"], 25))
        return {
          status: 200,
          body: page(listed.map((m) => ({ id: m.id, caption: m.caption, permalink: m.permalink, timestamp: m.timestamp, media_type: m.mediaType })))
        }
      }
      if (request.method === "POST" && second === "media") {
        const caption = params["caption"] ?? ""
        if ([...caption].length > 2200) return graphError(400, "The caption is too long", 100, { subcode: 2207003 })
        const carouselItem = params["is_carousel_item"] === "true"
        const type = params["media_type"] ?? (carouselItem ? "IMAGE" : "IMAGE")
        const all = containersOf(core)
        let children: Array<string> = []
        if (type === "CAROUSEL") {
          children = (params["children"] ?? "").split(",").filter((s) => s !== "")
          if (children.length < 2 || children.length > 10)
            return graphError(400, "(#100) The carousel must have between 2 and 10 children", 100, { subcode: 2207028 })
          if (children.some((id) => all.get(id)?.owner !== account.id || all.get(id)?.params["is_carousel_item"] !== "true"))
            return graphError(400, "(#100) Invalid children: every child must be a carousel item container of this user", 100)
        } else if (type === "VIDEO" || type === "REELS" || (type === "STORIES" && params["video_url"] !== undefined)) {
          if (params["video_url"] === undefined) return graphError(400, "(#100) The parameter video_url is required", 100)
        } else if (params["image_url"] === undefined) return graphError(400, "(#100) The parameter image_url is required", 100)
        const container = await makeContainer(core, {
          network,
          owner: account.id,
          params,
          mediaType: type,
          children,
          downloadError: () => IG_DOWNLOAD_ERROR
        })
        return { status: 200, body: { id: container.id } }
      }
      if (request.method === "POST" && second === "media_publish") {
        const container = containersOf(core).get(params["creation_id"] ?? "")
        if (container === undefined || container.owner !== account.id)
          return graphError(400, "(#100) Param creation_id must be a valid media container id", 100)
        if (container.params["is_carousel_item"] === "true") return graphError(400, "(#100) A carousel item cannot be published on its own", 100)
        const status = statusOf(core, container)
        if (status === "PUBLISHED") return graphError(400, "The media has already been published", 9004, { subcode: 2207008 })
        if (status === "EXPIRED")
          return graphError(400, "The media you are trying to access has expired. Please try to upload again.", -2, { subcode: 2207020 })
        if (status === "ERROR") return graphError(400, container.error ?? "Media upload has failed with error code 2207001", -1, { subcode: 2207001 })
        if (status === "IN_PROGRESS")
          return graphError(400, "Media ID is not available", 9007, {
            subcode: 2207027,
            userMessage: "The media is not ready for publishing, please wait for a moment"
          })
        if (usageOf(account) >= account.cap) return capReached()
        const id = graphId(core)
        const shortcode = id.slice(-11)
        const permalink = `https://www.instagram.com/${container.mediaType === "REELS" ? "reel" : "p"}/${shortcode}/`
        const caption = container.params["caption"] ?? ""
        container.mediaId = id
        account.publishedAt.push(Date.now())
        mediaOf(core).set(id, {
          id,
          network,
          owner: account.id,
          caption,
          permalink,
          timestamp: new Date().toISOString(),
          mediaType: container.mediaType === "IMAGE" ? "IMAGE" : container.mediaType === "CAROUSEL" ? "CAROUSEL_ALBUM" : "VIDEO",
          replyTo: null
        })
        core.record({
          network,
          id,
          url: permalink,
          account: account.id,
          text: caption,
          replyTo: null,
          media: filesOf(core, container),
          dedupeKey: null,
          extra: { mediaType: container.mediaType, containerId: container.id }
        })
        return { status: 200, body: { id } }
      }
      return undefined
    }
    const container = containersOf(core).get(first)
    if (container !== undefined && container.network === network && second === undefined && request.method === "GET") {
      if (!ids.includes(container.owner)) return graphError(400, "(#10) Application does not have permission for this action", 10)
      const status = statusOf(core, container)
      return {
        status: 200,
        body: { status_code: status, ...(status === "ERROR" ? { status: `Error: ${container.error ?? ""}` } : {}), id: container.id }
      }
    }
    const media = mediaOf(core).get(first)
    if (media === undefined || media.network !== network)
      return graphError(400, `Unsupported get request. Object with ID '${first}' does not exist`, 100, { subcode: 33 })
    const owner = accounts.get(media.owner)
    if (!mine(owner)) return graphError(400, "(#10) Application does not have permission for this action", 10)
    if (request.method === "GET" && second === undefined)
      return {
        status: 200,
        body: { id: media.id, caption: media.caption, permalink: media.permalink, timestamp: media.timestamp, media_type: media.mediaType }
      }
    if (second === "comments" && request.method === "POST") {
      const message = params["message"] ?? ""
      if (message === "") return graphError(400, "(#100) The parameter message is required", 100)
      const id = graphId(core)
      const at = new Date().toISOString()
      mediaOf(core).set(id, {
        id,
        network,
        owner: media.owner,
        caption: message,
        permalink: media.permalink,
        timestamp: at,
        mediaType: "COMMENT",
        replyTo: media.id
      })
      core.record({
        network,
        id,
        url: media.permalink,
        account: media.owner,
        text: message,
        replyTo: media.id,
        media: [],
        dedupeKey: null,
        extra: {}
      })
      return { status: 200, body: { id } }
    }
    if (second === "comments" && request.method === "GET") {
      const listed = [...mediaOf(core).values()].filter((m) => m.replyTo === media.id).reverse()
      return { status: 200, body: page(listed.map((m) => ({ id: m.id, text: m.caption, timestamp: m.timestamp }))) }
    }
    if (second === "insights" && request.method === "GET") {
      const metrics = (params["metric"] ?? "").split(",").filter((s) => s !== "")
      const known = ["likes", "comments", "reach", "saved", "shares", "views", "total_interactions"]
      const unknown = metrics.find((m) => !known.includes(m))
      if (unknown !== undefined || metrics.length === 0)
        return graphError(400, `(#100) metric[0] must be one of the following values: ${known.join(", ")}`, 100)
      return { status: 200, body: insightsOf(media.id, metrics) }
    }
    return undefined
  }

/** The op of an Instagram Graph request, for fault rules: `publish` is the call that makes a post live. */
export const instagramOpOf = ({ method, path }: SimRequest) => {
  const p = unversioned(path)
  if (method === "POST" && (p.endsWith("/media_publish") || p.endsWith("/comments"))) return "publish"
  if (p.includes("oauth") || p.includes("access_token")) return "token"
  if (method === "POST" && p.endsWith("/media")) return "media"
  if (method === "GET" && (p.endsWith("/media") || p.endsWith("/comments"))) return "search"
  return "account"
}

export const instagramRejectBody = (status: number | undefined) =>
  graphError(status ?? 400, "Invalid parameter", 36003, {
    subcode: 2207009,
    userTitle: "Aspect ratio not supported",
    userMessage: "The submitted image with aspect ratio ('3:1') cannot be published. Please submit an image with a valid aspect ratio."
  })

// ---- Facebook Login ----

interface FacebookUser {
  readonly id: string
  readonly name: string
  readonly pages: ReadonlyArray<{ readonly id: string; readonly name: string; readonly igId: string | null; readonly pageToken: string }>
}

const users = new WeakMap<SimCore, Map<string, FacebookUser>>()
const codes = new WeakMap<SimCore, Map<string, { readonly userId: string; readonly redirectUri: string }>>()
const LONG_LIVED_S = 5_183_944

/** The IG accounts a token may act for: a Page token its own account, a user token its Pages' accounts. */
const allowedFor = (core: SimCore, token: string | undefined): ReadonlyArray<string> | null => {
  const account = core.accountOf(NETWORK, token)
  if (account === null) return null
  if (!account.startsWith("user:")) return [account]
  const user = stateOf(users, core).get(account.slice(5))
  return user === undefined ? [] : user.pages.flatMap((p) => (p.igId === null ? [] : [p.igId]))
}

/**
 * A Facebook user with Pages: `accounts` Instagram professional accounts linked (one each),
 * plus one Page without any. Answers the `--credentials` of the first linked account.
 */
export const seedInstagramAccount = (
  core: SimCore,
  input: { readonly username?: string; readonly accounts?: number; readonly cap?: number; readonly accountType?: string } = {}
) => {
  const all = stateOf(users, core)
  const userId = graphId(core)
  const pages: Array<FacebookUser["pages"][number]> = []
  for (let i = 0; i < (input.accounts ?? 1); i++) {
    const ig = newAccount(core, NETWORK, {
      username: i === 0 ? (input.username ?? `brand${userId.slice(-4)}`) : `${input.username ?? "brand"}${i + 1}`,
      ...(input.cap === undefined ? {} : { cap: input.cap }),
      ...(input.accountType === undefined ? {} : { accountType: input.accountType })
    })
    pages.push({ id: graphId(core), name: `Page of ${ig.username}`, igId: ig.id, pageToken: core.issueToken(NETWORK, ig.id, "access", null) })
  }
  pages.push({ id: graphId(core), name: "A Page without Instagram", igId: null, pageToken: core.issueToken(NETWORK, "page-only", "access", null) })
  const user: FacebookUser = { id: userId, name: input.username ?? "Facebook User", pages }
  all.set(userId, user)
  const [first] = pages
  return { accessToken: first?.pageToken ?? "", igUserId: first?.igId ?? "" }
}

const graphRoutes = instagramGraphRoutes(NETWORK, allowedFor)

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const path = unversioned(request.path)
  const params = paramsOf(request)
  if (request.method === "GET" && path === "/dialog/oauth") {
    const all = [...stateOf(users, core).values()]
    if (all.length === 0) seedInstagramAccount(core)
    const user = [...stateOf(users, core).values()].pop()!
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { userId: user.id, redirectUri: params["redirect_uri"] ?? "" })
    const target = new URL(params["redirect_uri"] ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", params["state"] ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (path === "/oauth/access_token") {
    if ((params["client_secret"] ?? "") === "" || (params["client_id"] ?? "") === "")
      return graphError(400, "Error validating client secret.", 1, { subcode: 0 })
    if (params["grant_type"] === "fb_exchange_token") {
      const account = core.accountOf(NETWORK, params["fb_exchange_token"])
      if (account === null) return invalidTokenError()
      return {
        status: 200,
        body: { access_token: core.issueToken(NETWORK, account, "access", LONG_LIVED_S * 1000), token_type: "bearer", expires_in: LONG_LIVED_S }
      }
    }
    const code = stateOf(codes, core).get(params["code"] ?? "")
    if (code === undefined || code.redirectUri !== params["redirect_uri"])
      return graphError(400, "This authorization code has been used.", 100, { subcode: 36009 })
    stateOf(codes, core).delete(params["code"] ?? "")
    return {
      status: 200,
      body: { access_token: core.issueToken(NETWORK, `user:${code.userId}`, "access", 3600_000), token_type: "bearer", expires_in: 3600 }
    }
  }
  if (path === "/me" || path === "/me/accounts") {
    const account = core.accountOf(NETWORK, tokenOfRequest(request, params))
    if (account === null || !account.startsWith("user:"))
      return isExpired(core, NETWORK, tokenOfRequest(request, params)) ? expiredTokenError() : invalidTokenError()
    const user = stateOf(users, core).get(account.slice(5))
    if (user === undefined) return invalidTokenError()
    if (path === "/me") return { status: 200, body: { id: user.id, name: user.name } }
    const accounts = accountsOf(core)
    return {
      status: 200,
      body: page(
        user.pages.map((p) => {
          const ig = p.igId === null ? undefined : accounts.get(p.igId)
          return {
            id: p.id,
            name: p.name,
            access_token: p.pageToken,
            ...(ig === undefined
              ? {}
              : {
                  instagram_business_account: {
                    id: ig.id,
                    username: ig.username,
                    name: ig.name,
                    profile_picture_url: `https://scontent.cdninstagram.test/${ig.id}.jpg`
                  }
                })
          }
        })
      )
    }
  }
  return graphRoutes(request, core, path, params)
}

export const instagramModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ INSTAGRAM_API_URL: base, INSTAGRAM_AUTH_URL: base, INSTAGRAM_CLIENT_ID: "sim-client", INSTAGRAM_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: instagramOpOf,
  rejectBody: instagramRejectBody,
  expiredTokenBody: expiredTokenError,
  seed: (core, input) =>
    seedInstagramAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["accounts"] === "number" ? { accounts: input["accounts"] } : {}),
      ...(typeof input["cap"] === "number" ? { cap: input["cap"] } : {}),
      ...(typeof input["accountType"] === "string" ? { accountType: input["accountType"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [instagramModule]
