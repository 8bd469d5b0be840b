import {
  bearerOf,
  formBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Reddit as its API documents it (reddit.com/dev/api, the OAuth2 wiki of reddit-archive):
 * GET /api/v1/authorize (approved at once; a refresh token only with duration=permanent),
 * POST /api/v1/access_token (HTTP Basic app credentials; refresh keeps the refresh token),
 * GET /api/v1/me, POST /api/submit (api_type=json; refusals are 200 with `json.errors`;
 * an image or video post is answered without its id), POST /api/comment, the media upload lease
 * POST /api/media/asset.json and the S3 form it names, GET /user/{name}/submitted,
 * GET /api/info, GET /subreddits/search, GET /r/{sr}/api/link_flair_v2. Subreddits: `test`
 * (anything), `pics` (images and links only, flair required), `news` (links only).
 *
 * Video posts (kind=video, as PRAW's submit_video sends them): `url` is the video's uploaded
 * asset and `video_poster_url` its poster image's (PRAW always sends one, its own logo when the
 * caller has none; a submit without it is refused here). Reddit names the post on a websocket
 * once the video is processed: the account's listing shows it after `core.processingMs()`.
 */
const NETWORK = "reddit"
const HOUR = 3600_000

interface User {
  readonly id: string
  readonly name: string
}
interface Sub {
  readonly name: string
  readonly title: string
  readonly kinds: ReadonlyArray<string>
  readonly flairRequired: boolean
}

const SUBREDDITS: ReadonlyArray<Sub> = [
  { name: "test", title: "Testing ground", kinds: ["self", "link", "image", "video"], flairRequired: false },
  { name: "pics", title: "Pictures", kinds: ["link", "image"], flairRequired: true },
  { name: "news", title: "News", kinds: ["link"], flairRequired: false }
]
const FLAIRS = [
  { id: "flair-oc", text: "OC", type: "text", text_editable: false },
  { id: "flair-art", text: "Art", type: "text", text_editable: false }
]

const users = new WeakMap<SimCore, Map<string, User>>()
const codes = new WeakMap<SimCore, Map<string, { readonly user: string; readonly redirectUri: string; readonly permanent: boolean }>>()
const assets = new WeakMap<SimCore, Map<string, { uploaded: boolean; mime: string; size: number }>>()
const extras = new WeakMap<
  SimCore,
  Map<string, { readonly subreddit: string; readonly title: string; readonly kind: string; readonly listedAt: number }>
>()
const NOT_ALLOWED: Readonly<Record<string, string>> = { self: "NO_SELFS", link: "NO_LINKS", image: "NO_IMAGES", video: "NO_VIDEOS" }

const unauthorized: SimResponse = { status: 401, body: { message: "Unauthorized", error: 401 } }
const refused = (code: string, text: string, field: string): SimResponse => ({ status: 200, body: { json: { errors: [[code, text, field]] } } })

const tokensFor = (core: SimCore, user: string, ttlMs = HOUR, permanent = true) => ({
  access_token: core.issueToken(NETWORK, user, "access", ttlMs),
  token_type: "bearer",
  expires_in: Math.floor(ttlMs / 1000),
  scope: "identity submit read history flair mysubreddits",
  ...(permanent ? { refresh_token: core.issueToken(NETWORK, user, "refresh", null) } : {})
})

export const seedRedditAccount = (core: SimCore, input: { readonly username?: string; readonly expiresInMs?: number } = {}) => {
  const all = stateOf(users, core)
  const user: User = { id: core.newId().slice(-7), name: input.username ?? `redditor${all.size + 1}` }
  all.set(user.id, user)
  const ttl = Math.max(1, input.expiresInMs ?? HOUR)
  const t = tokensFor(core, user.id, ttl)
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString() }
}

const basicClient = (request: SimRequest) => {
  const header = request.headers["authorization"]
  const match = typeof header === "string" ? /^Basic\s+(.+)$/i.exec(header) : null
  const [id = "", secret = ""] = Buffer.from(match?.[1] ?? "", "base64")
    .toString("utf8")
    .split(":")
  return id !== "" && secret !== ""
}

const token = (request: SimRequest, core: SimCore): SimResponse => {
  if (!basicClient(request)) return unauthorized
  const form = formBody(request)
  if (form.get("grant_type") === "authorization_code") {
    const code = stateOf(codes, core).get(form.get("code") ?? "")
    if (code === undefined || code.redirectUri !== form.get("redirect_uri")) return { status: 400, body: { error: "invalid_grant" } }
    stateOf(codes, core).delete(form.get("code") ?? "")
    return { status: 200, body: tokensFor(core, code.user, HOUR, code.permanent) }
  }
  if (form.get("grant_type") === "refresh_token") {
    const found = core.tokens.get(form.get("refresh_token") ?? "")
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh") return { status: 400, body: { error: "invalid_grant" } }
    // Reddit keeps the refresh token: the answer has none
    return { status: 200, body: tokensFor(core, found.account, HOUR, false) }
  }
  return { status: 400, body: { error: "unsupported_grant_type" } }
}

const t3 = (core: SimCore, id: string) => {
  const post = core.posts.find((p) => p.network === NETWORK && p.id === id)
  const extra = stateOf(extras, core).get(id)
  if (post === undefined || extra === undefined) return undefined
  const short = id.replace(/^t3_/, "")
  return {
    kind: "t3",
    data: {
      id: short,
      name: id,
      title: extra.title,
      subreddit: extra.subreddit,
      selftext: extra.kind === "self" ? post.text : "",
      permalink: new URL(post.url).pathname,
      url: post.url,
      author: post.account,
      score: 1,
      upvote_ratio: 1,
      num_comments: core.posts.filter((p) => p.network === NETWORK && p.replyTo === id).length,
      created_utc: Math.floor(post.at.getTime() / 1000)
    }
  }
}

const listing = (children: ReadonlyArray<unknown>) => ({ kind: "Listing", data: { after: null, before: null, dist: children.length, children } })

const submit = (request: SimRequest, core: SimCore, user: User): SimResponse => {
  const form = formBody(request)
  const sub = SUBREDDITS.find((s) => s.name.toLowerCase() === (form.get("sr") ?? "").toLowerCase())
  if (sub === undefined) return refused("SUBREDDIT_NOEXIST", "that community doesn't exist", "sr")
  const title = form.get("title") ?? ""
  if (title.trim() === "") return refused("NO_TEXT", "we need something here", "title")
  if ([...title].length > 300) return refused("TOO_LONG", "this is too long (max: 300)", "title")
  const kind = form.get("kind") ?? "link"
  if (!sub.kinds.includes(kind)) return refused(NOT_ALLOWED[kind] ?? "NO_LINKS", `r/${sub.name} doesn't allow this kind of post`, "sr")
  if (sub.flairRequired && (form.get("flair_id") ?? "") === "")
    return refused("SUBMIT_VALIDATION_FLAIR_REQUIRED", "Your post must contain post flair.", "flair")
  if (sub.flairRequired && !FLAIRS.some((f) => f.id === form.get("flair_id")))
    return refused("BAD_FLAIR_TEMPLATE_ID", "that flair doesn't exist", "flair")
  const text = form.get("text") ?? ""
  if (kind === "self" && [...text].length > 40000) return refused("TOO_LONG", "this is too long (max: 40000)", "text")
  const url = form.get("url") ?? ""
  const media: Array<{ id: string; mime: string; size: number }> = []
  const uploaded = (address: string) => {
    const key = address.startsWith(`${core.origin}/${NETWORK}/s3/`) ? decodeURIComponent(address.slice(`${core.origin}/${NETWORK}/s3/`.length)) : ""
    const asset = stateOf(assets, core).get(key)
    return asset?.uploaded === true ? { id: key, mime: asset.mime, size: asset.size } : undefined
  }
  if (kind === "image") {
    const asset = uploaded(url)
    if (asset === undefined) return refused("BAD_IMAGE", "the image was not uploaded to reddit", "url")
    media.push(asset)
  } else if (kind === "video") {
    const video = uploaded(url)
    if (video === undefined || !video.mime.startsWith("video/")) return refused("BAD_VIDEO", "the video was not uploaded to reddit", "url")
    const poster = uploaded(form.get("video_poster_url") ?? "")
    if (poster === undefined || !poster.mime.startsWith("image/"))
      return refused("BAD_VIDEO_POSTER", "a video post needs a poster image uploaded to reddit", "video_poster_url")
    media.push(video, poster)
  } else if (kind === "link" && !/^https?:\/\//.test(url)) return refused("BAD_URL", "you should check that url", "url")
  const short = core.newId().slice(-7)
  const name = `t3_${short}`
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .slice(0, 40)
  const address = `https://www.reddit.com/r/${sub.name}/comments/${short}/${slug}/`
  // a video's post is made once Reddit has processed the video
  stateOf(extras, core).set(name, { subreddit: sub.name, title, kind, listedAt: Date.now() + (kind === "video" ? core.processingMs() : 0) })
  core.record({
    network: NETWORK,
    id: name,
    url: address,
    account: user.name,
    text: kind === "self" ? text : title,
    replyTo: null,
    media,
    dedupeKey: null,
    extra: { subreddit: sub.name, title, kind, url, flair_id: form.get("flair_id"), video_poster_url: form.get("video_poster_url") }
  })
  // an image or video post is named only on its websocket; the answer points there
  if (kind === "image" || kind === "video")
    return {
      status: 200,
      body: {
        json: {
          errors: [],
          data: { user_submitted_page: `https://www.reddit.com/user/${user.name}/submitted/`, websocket_url: `wss://ws.redditmedia.com/${short}` }
        }
      }
    }
  return { status: 200, body: { json: { errors: [], data: { url: address, drafts_count: 0, id: short, name } } } }
}

const comment = (request: SimRequest, core: SimCore, user: User): SimResponse => {
  const form = formBody(request)
  const parent = form.get("thing_id") ?? ""
  const target = core.posts.find((p) => p.network === NETWORK && p.id === parent)
  if (target === undefined) return refused("DELETED_LINK", "the link you are commenting on has been deleted", "parent")
  const short = core.newId().slice(-7)
  const name = `t1_${short}`
  const root = target.replyTo === null ? target : (core.posts.find((p) => p.network === NETWORK && p.id === target.extra["root"]) ?? target)
  const permalink = `${new URL(root.url).pathname}${short}/`
  core.record({
    network: NETWORK,
    id: name,
    url: `https://www.reddit.com${permalink}`,
    account: user.name,
    text: form.get("text") ?? "",
    replyTo: parent,
    media: [],
    dedupeKey: null,
    extra: { root: root.id }
  })
  return {
    status: 200,
    body: {
      json: {
        errors: [],
        data: { things: [{ kind: "t1", data: { id: short, name, body: form.get("text"), permalink, parent_id: parent, link_id: root.id } }] }
      }
    }
  }
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/api/v1/authorize") {
    const all = stateOf(users, core)
    if (all.size === 0) seedRedditAccount(core, { username: "redditor" })
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, {
      user: all.keys().next().value ?? "",
      redirectUri: request.query.get("redirect_uri") ?? "",
      permanent: request.query.get("duration") === "permanent"
    })
    const target = new URL(request.query.get("redirect_uri") ?? "")
    target.searchParams.set("state", request.query.get("state") ?? "")
    target.searchParams.set("code", code)
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/api/v1/access_token") return token(request, core)
  const s3 = /^\/s3\/?$/.exec(path)
  if (method === "POST" && s3 !== null) {
    const { fields, files } = parseMultipart(request.headers, request.body)
    const asset = stateOf(assets, core).get(fields["key"] ?? "")
    const file = files.find((f) => f.field === "file")
    if (asset === undefined || file === undefined || fields["x-amz-signature"] === undefined)
      return { status: 403, headers: { "content-type": "application/xml" }, body: "<Error><Code>AccessDenied</Code></Error>" }
    Object.assign(asset, { uploaded: true, mime: file.mime, size: file.bytes.length })
    const location = `${core.origin}/${NETWORK}/s3/${encodeURIComponent(fields["key"] ?? "")}`
    return { status: 201, headers: { "content-type": "application/xml" }, body: `<PostResponse><Location>${location}</Location></PostResponse>` }
  }
  const userId = core.accountOf(NETWORK, bearerOf(request))
  if (userId === null) return unauthorized
  const user = stateOf(users, core).get(userId)
  if (user === undefined) return unauthorized
  if (method === "GET" && path === "/api/v1/me")
    return {
      status: 200,
      body: { id: user.id, name: user.name, icon_img: "https://styles.redditmedia.com/icon.png?a=1&amp;b=2", link_karma: 12, comment_karma: 34 }
    }
  if (method === "POST" && path === "/api/submit") return submit(request, core, user)
  if (method === "POST" && path === "/api/comment") return comment(request, core, user)
  if (method === "POST" && path === "/api/media/asset.json") {
    const form = formBody(request)
    const folder = (form.get("mimetype") ?? "").startsWith("video/") ? "rte_videos" : "rte_images"
    const key = `${folder}/${core.newId()}/${(form.get("filepath") ?? "file").replace(/[^A-Za-z0-9._-]/g, "_")}`
    stateOf(assets, core).set(key, { uploaded: false, mime: form.get("mimetype") ?? "", size: 0 })
    return {
      status: 200,
      body: {
        args: {
          action: `${core.origin.replace(/^https?:/, "")}/${NETWORK}/s3`,
          fields: [
            { name: "acl", value: "private" },
            { name: "key", value: key },
            { name: "Content-Type", value: form.get("mimetype") ?? "" },
            { name: "policy", value: "eyJleHBpcmF0aW9uIjoi" },
            { name: "x-amz-signature", value: "sig" }
          ]
        },
        asset: {
          asset_id: key.split("/")[1],
          processing_state: "incomplete",
          payload: { filepath: form.get("filepath") },
          websocket_url: "wss://ws.redditmedia.com/asset"
        }
      }
    }
  }
  const submitted = /^\/user\/([^/]+)\/submitted$/.exec(path)
  if (method === "GET" && submitted !== null) {
    const name = decodeURIComponent(submitted[1] ?? "")
    const children = core
      .visiblePosts(NETWORK, name)
      .filter((p) => p.replyTo === null && (stateOf(extras, core).get(p.id)?.listedAt ?? 0) <= Date.now())
      .reverse()
      .flatMap((p) => {
        const thing = t3(core, p.id)
        return thing === undefined ? [] : [thing]
      })
    return { status: 200, body: listing(children) }
  }
  if (method === "GET" && path === "/api/info") {
    const thing = t3(core, request.query.get("id") ?? "")
    return { status: 200, body: listing(thing === undefined ? [] : [thing]) }
  }
  if (method === "GET" && path === "/subreddits/search") {
    const q = (request.query.get("q") ?? "").toLowerCase()
    const found = SUBREDDITS.filter((s) => s.name.includes(q) || s.title.toLowerCase().includes(q))
    return {
      status: 200,
      body: listing(
        found.map((s) => ({
          kind: "t5",
          data: { display_name: s.name, title: s.title, subscribers: 1000, submission_type: s.kinds.includes("self") ? "any" : "link" }
        }))
      )
    }
  }
  const flairs = /^\/r\/([^/]+)\/api\/link_flair_v2$/.exec(path)
  if (method === "GET" && flairs !== null) return { status: 200, body: FLAIRS }
  return undefined
}

export const redditModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ REDDIT_API_URL: base, REDDIT_AUTH_URL: base, REDDIT_CLIENT_ID: "sim-client", REDDIT_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && (path === "/api/submit" || path === "/api/comment")
      ? "publish"
      : path.startsWith("/api/media") || path.startsWith("/s3")
        ? "media"
        : method === "GET" && /^\/user\/[^/]+\/submitted$/.test(path)
          ? "search"
          : path === "/api/v1/access_token" || path === "/api/v1/authorize"
            ? "token"
            : "account",
  // Reddit refuses a submit with 200 and json.errors; a status given answers its plain error
  rejectBody: (status) =>
    status === undefined || status === 200
      ? refused("SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.", "sr")
      : { status, body: { message: "Forbidden", error: status } },
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedRedditAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [redditModule]
