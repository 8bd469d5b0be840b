import {
  bearerOf,
  formBody,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Facebook's Graph API for Pages, as documented (developers.facebook.com/docs/pages-api,
 * /docs/graph-api/reference/page/feed, /page/photos, /page/videos, /docs/facebook-login):
 * the login dialog (approves at once), /oauth/access_token (code, then fb_exchange_token),
 * /me, /me/accounts (the pages with their tokens), POST /{page}/feed (message, link,
 * attached_media[n]={"media_fbid"}), POST /{page}/photos (url, published), POST
 * /{page}/videos (file_url; processed for core.processingMs(), status on GET /{video}),
 * POST /{object}/comments, POST /{page}/photo_stories (photo_id of an unpublished photo),
 * GET /{page}/published_posts, /{page}/videos, /{page}/insights. Every path may
 * carry a version (/v21.0/…); tokens come as access_token or Authorization: Bearer.
 * Errors are `{error: {message, type, code, error_subcode, fbtrace_id}}`, HTTP 400 mostly.
 */
const NETWORK = "facebook"

interface User {
  readonly id: string
  readonly name: string
  readonly pageIds: Array<string>
}
interface Page {
  readonly id: string
  readonly name: string
  readonly token: string
}
interface Photo {
  readonly pageId: string
  readonly mime: string
  readonly size: number
  readonly alt: string | undefined
  attachedTo: string | null
}
interface Video {
  readonly pageId: string
  readonly readyAt: number
}

const users = new WeakMap<SimCore, Map<string, User>>()
const pages = new WeakMap<SimCore, Map<string, Page>>()
const codes = new WeakMap<SimCore, Map<string, { readonly userId: string; readonly redirectUri: string }>>()
const photos = new WeakMap<SimCore, Map<string, Photo>>()
const videos = new WeakMap<SimCore, Map<string, Video>>()
let numeric = 100_000_000_000_000

const nextId = () => String(++numeric)

const graphError = (status: number, code: number, message: string, subcode?: number): SimResponse => ({
  status,
  body: { error: { message, type: "OAuthException", code, ...(subcode === undefined ? {} : { error_subcode: subcode }), fbtrace_id: "AsimTrace" } }
})
const expired = graphError(400, 190, "Error validating access token: Session has expired on Tuesday, 01-Jan-30 00:00:00 PST.", 463)
const invalidToken = graphError(400, 190, "Invalid OAuth access token - Cannot parse access token")

/** A user who manages `pages` pages: the `--credentials` of the first (its page token and id), and all of them. */
export const seedFacebookAccount = (core: SimCore, input: { readonly name?: string; readonly pages?: number } = {}) => {
  const allUsers = stateOf(users, core)
  const user: User = { id: nextId(), name: input.name ?? `Person ${allUsers.size + 1}`, pageIds: [] }
  allUsers.set(user.id, user)
  const all = stateOf(pages, core)
  const made: Array<Page> = []
  for (let i = 0; i < Math.max(0, input.pages ?? 1); i++) {
    const id = nextId()
    const page: Page = { id, name: `${user.name} Page ${i + 1}`, token: core.issueToken(NETWORK, `page:${id}`, "access", null) }
    all.set(id, page)
    user.pageIds.push(id)
    made.push(page)
  }
  return {
    accessToken: made[0]?.token ?? "",
    pageId: made[0]?.id ?? "",
    userId: user.id,
    pages: made.map((p) => ({ id: p.id, name: p.name }))
  }
}

const tokenOf = (request: SimRequest, form: URLSearchParams) =>
  bearerOf(request) ?? form.get("access_token") ?? request.query.get("access_token") ?? undefined

const pictureOf = (id: string) => ({ data: { url: `https://scontent.example/${id}.jpg`, is_silhouette: false } })

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const { method } = request
  const path = request.path.replace(/^\/v\d+\.\d+(?=\/)/, "")
  const form = method === "POST" ? formBody(request) : new URLSearchParams()
  if (method === "GET" && path === "/dialog/oauth") {
    // the most recently made person signs in and allows every page
    const last = [...stateOf(users, core).values()].at(-1) ?? stateOf(users, core).get(seedFacebookAccount(core, { pages: 1 }).userId)!
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { userId: last.id, redirectUri: request.query.get("redirect_uri") ?? "" })
    const target = new URL(request.query.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "GET" && path === "/oauth/access_token") {
    const q = request.query
    if ((q.get("client_secret") ?? "") === "") return graphError(400, 1, "Missing client_secret parameter.")
    if (q.get("grant_type") === "fb_exchange_token") {
      const account = core.accountOf(NETWORK, q.get("fb_exchange_token") ?? undefined)
      if (account === null || !account.startsWith("user:")) return invalidToken
      return {
        status: 200,
        body: { access_token: core.issueToken(NETWORK, account, "access", 60 * 86_400_000), token_type: "bearer", expires_in: 5_183_944 }
      }
    }
    const code = stateOf(codes, core).get(q.get("code") ?? "")
    if (code === undefined || code.redirectUri !== q.get("redirect_uri")) return graphError(400, 100, "Invalid verification code format.", 36007)
    stateOf(codes, core).delete(q.get("code") ?? "")
    return {
      status: 200,
      body: { access_token: core.issueToken(NETWORK, `user:${code.userId}`, "access", 2 * 3600_000), token_type: "bearer", expires_in: 7200 }
    }
  }
  const token = tokenOf(request, form)
  const account = core.accountOf(NETWORK, token)
  if (account === null) return token !== undefined && core.tokens.has(token) ? expired : invalidToken
  const [kind, ownId = ""] = account.split(":")
  const allPages = stateOf(pages, core)
  if (method === "GET" && path === "/me") {
    if (kind === "user") {
      const user = stateOf(users, core).get(ownId)!
      return { status: 200, body: { id: user.id, name: user.name, picture: pictureOf(user.id) } }
    }
    const page = allPages.get(ownId)!
    return { status: 200, body: { id: page.id, name: page.name, picture: pictureOf(page.id) } }
  }
  if (method === "GET" && path === "/me/accounts") {
    if (kind !== "user") return graphError(400, 100, "(#100) Tried accessing nonexisting field (accounts) on node type (Page)")
    const user = stateOf(users, core).get(ownId)!
    return {
      status: 200,
      body: {
        data: user.pageIds.map((id) => {
          const page = allPages.get(id)!
          return { id, name: page.name, access_token: page.token, category: "Brand", tasks: ["MANAGE", "CREATE_CONTENT"], picture: pictureOf(id) }
        }),
        paging: { cursors: { before: "b", after: "a" } }
      }
    }
  }
  const edge = /^\/([^/]+)(?:\/([a-z_]+))?$/.exec(path)
  if (edge === null) return undefined
  const nodeId = decodeURIComponent(edge[1]!)
  const edgeName = edge[2]
  const page = allPages.get(nodeId)
  // a page's edges take only that page's token (publishing needs the page token)
  if (page !== undefined && edgeName !== undefined && account !== `page:${page.id}`)
    return graphError(
      403,
      200,
      "(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission"
    )
  if (method === "GET" && page !== undefined && edgeName === undefined)
    return { status: 200, body: { id: page.id, name: page.name, picture: pictureOf(page.id) } }
  if (method === "POST" && page !== undefined && edgeName === "photos") {
    const url = form.get("url")
    if (url === null) return graphError(400, 324, "(#324) Requires upload file")
    const fetched = await core.fetchMedia(url)
    if (!fetched.ok) return graphError(400, 324, `(#324) Missing or invalid image file: ${fetched.reason}`)
    if (!fetched.mime.startsWith("image/")) return graphError(400, 324, "(#324) Missing or invalid image file")
    const id = nextId()
    const photo: Photo = {
      pageId: page.id,
      mime: fetched.mime,
      size: fetched.bytes.length,
      alt: form.get("alt_text_custom") ?? undefined,
      attachedTo: null
    }
    stateOf(photos, core).set(id, photo)
    if (form.get("published") === "false") return { status: 200, body: { id } }
    const postId = `${page.id}_${nextId()}`
    photo.attachedTo = postId
    core.record({
      network: NETWORK,
      id: postId,
      url: `https://www.facebook.com/${postId}`,
      account: page.id,
      text: form.get("caption") ?? form.get("message") ?? "",
      replyTo: null,
      media: [{ id, mime: photo.mime, size: photo.size }],
      dedupeKey: null,
      extra: {}
    })
    return { status: 200, body: { id, post_id: postId } }
  }
  if (method === "POST" && page !== undefined && edgeName === "feed") {
    const message = form.get("message") ?? ""
    const attached: Array<string> = []
    for (const [key, value] of form) {
      if (!/^attached_media\[\d+\]$/.test(key)) continue
      try {
        const parsed = JSON.parse(value) as { media_fbid?: unknown }
        attached.push(String(parsed.media_fbid))
      } catch {
        return graphError(400, 100, "(#100) param attached_media must be an array of objects with media_fbid")
      }
    }
    if (message === "" && attached.length === 0 && form.get("link") === null) return graphError(400, 100, "(#100) Missing message or attachment")
    if (message.length > 63206) return graphError(400, 100, "(#100) Message is too long")
    const known = stateOf(photos, core)
    for (const id of attached) {
      const photo = known.get(id)
      if (photo === undefined || photo.pageId !== page.id) return graphError(400, 100, `(#100) Invalid media_fbid ${id}`)
      if (photo.attachedTo !== null) return graphError(400, 1366051, "These photos were already posted.")
    }
    const postId = `${page.id}_${nextId()}`
    for (const id of attached) known.get(id)!.attachedTo = postId
    core.record({
      network: NETWORK,
      id: postId,
      url: `https://www.facebook.com/${postId}`,
      account: page.id,
      text: message,
      replyTo: null,
      media: attached.map((id) => {
        const photo = known.get(id)!
        return { id, mime: photo.mime, size: photo.size, ...(photo.alt === undefined ? {} : { alt: photo.alt }) }
      }),
      dedupeKey: null,
      extra: { link: form.get("link") }
    })
    return { status: 200, body: { id: postId } }
  }
  if (method === "POST" && page !== undefined && edgeName === "photo_stories") {
    const photoId = form.get("photo_id") ?? ""
    const photo = stateOf(photos, core).get(photoId)
    if (photo === undefined || photo.pageId !== page.id)
      return graphError(400, 100, "(#100) Param photo_id must be a valid unpublished photo of this page")
    if (photo.attachedTo !== null) return graphError(400, 1366051, "These photos were already posted.")
    const postId = nextId()
    photo.attachedTo = postId
    core.record({
      network: NETWORK,
      id: postId,
      url: `https://www.facebook.com/stories/${page.id}/${postId}`,
      account: page.id,
      text: "",
      replyTo: null,
      media: [{ id: photoId, mime: photo.mime, size: photo.size }],
      dedupeKey: null,
      extra: { story: true }
    })
    return { status: 200, body: { success: true, post_id: postId } }
  }
  if (method === "POST" && page !== undefined && edgeName === "videos") {
    const url = form.get("file_url")
    if (url === null) return graphError(400, 390, "(#390) Video upload requires a file or file_url")
    const fetched = await core.fetchMedia(url)
    if (!fetched.ok) return graphError(400, 389, `(#389) Unable to fetch video file from URL: ${fetched.reason}`)
    const id = nextId()
    stateOf(videos, core).set(id, { pageId: page.id, readyAt: Date.now() + core.processingMs() })
    core.record({
      network: NETWORK,
      id,
      url: `https://www.facebook.com/${page.id}/videos/${id}/`,
      account: page.id,
      text: form.get("description") ?? "",
      replyTo: null,
      media: [{ id, mime: fetched.mime, size: fetched.bytes.length }],
      dedupeKey: null,
      extra: { video: true }
    })
    return { status: 200, body: { id } }
  }
  const video = stateOf(videos, core).get(nodeId)
  if (method === "GET" && video !== undefined && edgeName === undefined) {
    if (account !== `page:${video.pageId}`) return graphError(400, 100, "(#100) Unsupported get request.", 33)
    const total = Math.max(1, core.processingMs())
    const left = video.readyAt - Date.now()
    const ready = left <= 0
    return {
      status: 200,
      body: {
        id: nodeId,
        status: { video_status: ready ? "ready" : "processing", processing_progress: ready ? 100 : Math.floor(((total - left) / total) * 100) },
        permalink_url: `https://www.facebook.com/${video.pageId}/videos/${nodeId}/`
      }
    }
  }
  const target = core.posts.find((p) => p.network === NETWORK && p.id === nodeId)
  if (method === "POST" && edgeName === "comments") {
    if (target === undefined) return graphError(400, 100, "(#100) Unsupported post request. Object does not exist.", 33)
    if (account !== `page:${target.account}`) return graphError(403, 200, "(#200) Permissions error")
    const id = `${nodeId.split("_").at(-1)}_${nextId()}`
    core.record({
      network: NETWORK,
      id,
      url: `https://www.facebook.com/${id}`,
      account: target.account,
      text: form.get("message") ?? "",
      replyTo: nodeId,
      media: [],
      dedupeKey: null,
      extra: form.get("attachment_url") === null ? {} : { attachment_url: form.get("attachment_url") }
    })
    return { status: 200, body: { id } }
  }
  if (method === "GET" && edgeName === "comments" && target !== undefined)
    return {
      status: 200,
      body: {
        data: core
          .visiblePosts(NETWORK, target.account)
          .filter((p) => p.replyTo === nodeId)
          .map((p) => ({ id: p.id, message: p.text }))
      }
    }
  if (method === "GET" && page !== undefined && (edgeName === "published_posts" || edgeName === "feed")) {
    const limit = Number(request.query.get("limit") ?? "25")
    const live = core
      .visiblePosts(NETWORK, page.id)
      .filter((p) => p.replyTo === null && (stateOf(videos, core).get(p.id)?.readyAt ?? 0) <= Date.now())
      .reverse()
      .slice(0, limit)
    return {
      status: 200,
      body: { data: live.map((p) => ({ id: p.id, message: p.text, created_time: p.at.toISOString(), permalink_url: p.url })) }
    }
  }
  if (method === "GET" && page !== undefined && edgeName === "videos") {
    const held = core.visiblePosts(NETWORK, page.id).filter((p) => stateOf(videos, core).has(p.id))
    return {
      status: 200,
      body: {
        data: held.reverse().map((p) => {
          const ready = stateOf(videos, core).get(p.id)!.readyAt <= Date.now()
          return {
            id: p.id,
            description: p.text,
            updated_time: p.at.toISOString(),
            status: { video_status: ready ? "ready" : "processing" },
            permalink_url: p.url
          }
        })
      }
    }
  }
  if (method === "GET" && page !== undefined && edgeName === "insights") {
    const metrics = (request.query.get("metric") ?? "").split(",").filter((m) => m !== "")
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().replace(/\.\d+Z$/, "+0000")
    return {
      status: 200,
      body: {
        data: metrics.map((name) => ({
          name,
          period: "day",
          title: name,
          values: [2, 1, 0].map((n) => ({ value: core.posts.filter((p) => p.account === page.id).length * (3 - n), end_time: day(n) })),
          id: `${page.id}/insights/${name}/day`
        }))
      }
    }
  }
  if (method === "GET" && target !== undefined && edgeName === undefined)
    return {
      status: 200,
      body: {
        id: target.id,
        reactions: { data: [], summary: { total_count: 3 } },
        comments: { data: [], summary: { total_count: core.posts.filter((p) => p.replyTo === target.id).length } },
        shares: { count: 1 }
      }
    }
  return undefined
}

export const facebookModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ FACEBOOK_API_URL: base, FACEBOOK_AUTH_URL: base, FACEBOOK_CLIENT_ID: "sim-client", FACEBOOK_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) => {
    const bare = path.replace(/^\/v\d+\.\d+(?=\/)/, "")
    if (bare.startsWith("/oauth") || bare.startsWith("/dialog")) return "token"
    if (method === "POST" && /\/(feed|videos|comments|photo_stories)$/.test(bare)) return "publish"
    if (method === "POST" && bare.endsWith("/photos")) return "media"
    if (/\/(published_posts|feed|comments|videos)$/.test(bare)) return "search"
    return "account"
  },
  rejectBody: (status) => graphError(status ?? 400, 100, "(#100) Invalid parameter"),
  expiredTokenBody: () => expired,
  seed: (core, input) =>
    seedFacebookAccount(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["pages"] === "number" ? { pages: input["pages"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [facebookModule]
