import {
  bearerOf,
  formBody,
  jsonBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Tumblr's API v2 as github.com/tumblr/docs documents it (api.md, npf-spec.md): GET
 * /oauth2/authorize (approved at once), POST /v2/oauth2/token (authorization_code and
 * refresh_token grants with client_id and client_secret in the body; access tokens of
 * 2520 s; a refresh answers a new refresh token), GET /v2/user/info (the user's blogs),
 * POST /v2/blog/{blog}/posts in NPF (JSON, or multipart with the JSON in the `json` part and
 * each uploaded file in the part its media `identifier` names; 201 `{id}`; text blocks of
 * at most 4096 code points; one native video per post; 250 posts a day per user, then
 * 403.8023), GET /v2/blog/{blog}/posts (`npf`, `limit`, `id`, `notes_info`). Every answer
 * has the `{meta: {status, msg}}` envelope; errors add `errors: [{title, code, detail}]`.
 * The User-Agent header is required.
 */
const NETWORK = "tumblr"
const TOKEN_TTL_MS = 2520_000
const DAILY_POSTS = 250

interface Blog {
  readonly name: string
  readonly title: string
  readonly uuid: string
  readonly primary: boolean
}

interface Account {
  readonly id: string
  readonly name: string
  readonly blogs: ReadonlyArray<Blog>
  /** Posts a day this user may publish (Tumblr's is 250). */
  readonly cap: number
}

interface Held {
  readonly blog: string
  readonly content: ReadonlyArray<Record<string, unknown>>
  readonly tags: ReadonlyArray<string>
  readonly at: number
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const codes = new WeakMap<SimCore, Map<string, { readonly account: string; readonly redirectUri: string | null }>>()
const held = new WeakMap<SimCore, Map<string, Held>>()

const MESSAGES: Readonly<Record<number, string>> = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found" }
const error = (status: number, code: number, title: string, detail?: string): SimResponse => ({
  status,
  body: { meta: { status, msg: MESSAGES[status] ?? "Error" }, response: [], errors: [{ title, code, ...(detail === undefined ? {} : { detail }) }] }
})
const ok = (status: number, response: unknown): SimResponse => ({
  status,
  body: { meta: { status, msg: status === 201 ? "Created" : "OK" }, response }
})
const unauthorized = error(401, 0, "Unauthorized")

const tokensFor = (core: SimCore, account: string, ttlMs = TOKEN_TTL_MS) => ({
  access_token: core.issueToken(NETWORK, account, "access", ttlMs),
  expires_in: Math.floor(ttlMs / 1000),
  id_token: false,
  refresh_token: core.issueToken(NETWORK, account, "refresh", null),
  scope: "basic write offline_access",
  token_type: "bearer"
})

export const seedTumblrAccount = (
  core: SimCore,
  input: { readonly username?: string; readonly blogs?: number; readonly expiresInMs?: number; readonly cap?: number } = {}
) => {
  const all = stateOf(accounts, core)
  const id = core.newId()
  const name = input.username ?? `tumblelog${all.size + 1}`
  const blogs = Array.from({ length: Math.max(1, input.blogs ?? 2) }, (_, i) => ({
    name: i === 0 ? name : `${name}-side${i}`,
    title: i === 0 ? `${name}'s blog` : `Side blog ${i}`,
    uuid: `t:${core.newId()}`,
    primary: i === 0
  }))
  all.set(id, { id, name, blogs, cap: input.cap ?? DAILY_POSTS })
  const ttl = Math.max(1, input.expiresInMs ?? TOKEN_TTL_MS)
  const t = tokensFor(core, id, ttl)
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString(), blog: name }
}

/** The token request's fields: the docs' curl sends multipart (-F); form-encoded and JSON work too. */
const fieldsOf = (request: SimRequest): Record<string, string> => {
  const type = request.headers["content-type"] ?? ""
  if (type.startsWith("multipart/form-data")) return parseMultipart(request.headers, request.body).fields
  if (type.startsWith("application/json")) {
    const raw = jsonBody(request)
    return typeof raw === "object" && raw !== null ? Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, String(v)])) : {}
  }
  return Object.fromEntries(formBody(request))
}

const token = (request: SimRequest, core: SimCore): SimResponse => {
  const form = fieldsOf(request)
  if ((form["client_id"] ?? "") === "" || (form["client_secret"] ?? "") === "") return unauthorized
  if (form["grant_type"] === "authorization_code") {
    const code = stateOf(codes, core).get(form["code"] ?? "")
    if (code === undefined || (code.redirectUri !== null && code.redirectUri !== form["redirect_uri"])) return unauthorized
    stateOf(codes, core).delete(form["code"] ?? "")
    return { status: 200, body: tokensFor(core, code.account) }
  }
  if (form["grant_type"] === "refresh_token") {
    const found = core.tokens.get(form["refresh_token"] ?? "")
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh") return unauthorized
    // a new refresh token takes the old one's place
    core.tokens.delete(form["refresh_token"] ?? "")
    return { status: 200, body: tokensFor(core, found.account) }
  }
  return error(400, 0, "Unsupported grant_type")
}

const blogOf = (account: Account, identifier: string) =>
  account.blogs.find((b) => b.name === identifier || `${b.name}.tumblr.com` === identifier || b.uuid === identifier)

const textOf = (content: ReadonlyArray<Record<string, unknown>>) =>
  content
    .filter((b) => b["type"] === "text")
    .map((b) => String(b["text"] ?? ""))
    .join("\n")

const createPost = (request: SimRequest, core: SimCore, account: Account, blog: Blog): SimResponse => {
  const multipartBody = (request.headers["content-type"] ?? "").startsWith("multipart/form-data")
  const parts = multipartBody ? parseMultipart(request.headers, request.body) : { fields: {}, files: [] }
  const raw = multipartBody
    ? (() => {
        try {
          return JSON.parse(parts.fields["json"] ?? "") as unknown
        } catch {
          return undefined
        }
      })()
    : jsonBody(request)
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  const content = Array.isArray(body["content"]) ? (body["content"] as ReadonlyArray<unknown>) : undefined
  if (content === undefined) return error(400, 8001, "'content' must be an array'")
  const blocks = content.filter((b): b is Record<string, unknown> => typeof b === "object" && b !== null)
  const media: Array<{ id: string; mime: string; size: number; alt?: string }> = []
  let videos = 0
  for (const block of blocks) {
    if (block["type"] === "text") {
      if (typeof block["text"] !== "string") return error(400, 8001, "Invalid NPF: a text block needs text")
      if ([...block["text"]].length > 4096) return error(400, 8001, "Invalid NPF: a text block is longer than 4096 characters")
      continue
    }
    if (block["type"] !== "image" && block["type"] !== "video") return error(400, 8001, `Invalid NPF: unknown block type ${String(block["type"])}`)
    const objects = (block["type"] === "image" ? (Array.isArray(block["media"]) ? block["media"] : []) : [block["media"]]) as ReadonlyArray<unknown>
    const first = objects[0] as Record<string, unknown> | undefined
    const identifier = typeof first?.["identifier"] === "string" ? first["identifier"] : undefined
    const file = parts.files.find((f) => f.field === identifier)
    if (file === undefined) return error(400, 8001, "Invalid NPF: a media block names no uploaded file")
    const wanted = block["type"] === "image" ? "image/" : "video/"
    if (!file.mime.startsWith(wanted)) return error(400, 8005, "The uploaded media is an invalid format we cannot accept")
    if (block["type"] === "video" && ++videos > 1) return error(400, 8001, "Only one native video may be uploaded per post")
    media.push({
      id: identifier ?? "",
      mime: file.mime,
      size: file.bytes.length,
      ...(typeof block["alt_text"] === "string" ? { alt: block["alt_text"] } : {})
    })
  }
  const today = new Date().toISOString().slice(0, 10)
  const todays = core.posts.filter((p) => p.network === NETWORK && p.extra["user"] === account.id && p.at.toISOString().slice(0, 10) === today)
  if (todays.length >= account.cap) return error(403, 8023, "Daily posting limit reached", "You have reached your daily posting limit.")
  const id = `${700000000000 + core.posts.length}${Math.floor(Math.random() * 1000)}`
  const tags =
    typeof body["tags"] === "string"
      ? body["tags"]
          .split(",")
          .map((t) => t.trim())
          .filter((t) => t !== "")
      : []
  stateOf(held, core).set(id, { blog: blog.name, content: blocks, tags, at: Date.now() })
  core.record({
    network: NETWORK,
    id,
    url: `https://www.tumblr.com/${blog.name}/${id}`,
    account: blog.name,
    text: textOf(blocks),
    replyTo: null,
    media,
    dedupeKey: null,
    extra: { user: account.id, blog: blog.name, state: body["state"] ?? "published", tags, blocks: blocks.map((b) => b["type"]) }
  })
  return ok(201, { id })
}

const listPosts = (request: SimRequest, core: SimCore, blog: Blog): SimResponse => {
  const limit = Math.min(20, Math.max(1, Number(request.query.get("limit") ?? "20") || 20))
  const wanted = request.query.get("id")
  const visible = new Set(core.visiblePosts(NETWORK, blog.name).map((p) => p.id))
  const all = [...stateOf(held, core).entries()].filter(([id, p]) => p.blog === blog.name && visible.has(id)).sort(([, a], [, b]) => b.at - a.at)
  const chosen = wanted === null ? all.slice(0, limit) : all.filter(([id]) => id === wanted)
  if (wanted !== null && chosen.length === 0) return error(404, 0, "Not Found")
  const npf = request.query.get("npf") === "true"
  const notes = request.query.get("notes_info") === "true"
  return ok(200, {
    blog: { name: blog.name, title: blog.title, uuid: blog.uuid, posts: all.length },
    posts: chosen.map(([id, p]) => ({
      blog_name: blog.name,
      id: Number(id),
      id_string: id,
      post_url: `https://www.tumblr.com/${blog.name}/${id}`,
      type: npf ? "blocks" : "text",
      timestamp: Math.floor(p.at / 1000),
      state: "published",
      tags: p.tags,
      is_blocks_post_format: true,
      ...(npf ? { content: p.content, layout: [], trail: [] } : { body: `<p>${textOf(p.content)}</p>` }),
      ...(notes ? { note_count: 7, notes: [] } : {})
    })),
    total_posts: all.length
  })
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/oauth2/authorize") {
    const all = stateOf(accounts, core)
    if (all.size === 0) seedTumblrAccount(core, { username: "tumblelog" })
    const account = all.keys().next().value ?? ""
    if (request.query.get("response_type") !== "code" || (request.query.get("client_id") ?? "") === "") return error(400, 0, "Bad Request")
    const code = `code-${core.newId()}`
    const redirectUri = request.query.get("redirect_uri")
    stateOf(codes, core).set(code, { account, redirectUri })
    const target = new URL(redirectUri ?? "http://127.0.0.1/")
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if ((request.headers["user-agent"] ?? "") === "") return error(400, 0, "Bad Request", "The User-Agent header is required.")
  if (method === "POST" && path === "/v2/oauth2/token") return token(request, core)
  const accountId = core.accountOf(NETWORK, bearerOf(request))
  const account = accountId === null ? undefined : stateOf(accounts, core).get(accountId)
  const posts = /^\/v2\/blog\/([^/]+)\/posts$/.exec(path)
  // reading a blog's posts takes the app's api_key, or the user's OAuth token
  if (method === "GET" && posts !== null && (account !== undefined || (request.query.get("api_key") ?? "") !== "")) {
    const name = decodeURIComponent(posts[1] ?? "")
    const blog = [...stateOf(accounts, core).values()].map((a) => blogOf(a, name)).find((b) => b !== undefined)
    return blog === undefined ? error(404, 0, "Not Found") : listPosts(request, core, blog)
  }
  if (account === undefined) return unauthorized
  if (method === "GET" && path === "/v2/user/info")
    return ok(200, {
      user: {
        name: account.name,
        likes: 0,
        following: 3,
        default_post_format: "html",
        blogs: account.blogs.map((b, i) => ({ ...b, url: `https://${b.name}.tumblr.com/`, followers: 40 + i, tweet: "N", type: "public" }))
      }
    })
  if (method === "POST" && posts !== null) {
    const name = decodeURIComponent(posts[1] ?? "")
    const blog = blogOf(account, name)
    if (blog === undefined) {
      const exists = [...stateOf(accounts, core).values()].some((a) => blogOf(a, name) !== undefined)
      return exists ? error(403, 0, "Forbidden", "You cannot post to this blog.") : error(404, 0, "Not Found")
    }
    return createPost(request, core, account, blog)
  }
  return undefined
}

export const tumblrModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ TUMBLR_API_URL: base, TUMBLR_AUTH_URL: base, TUMBLR_CLIENT_ID: "sim-client", TUMBLR_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    /^\/v2\/blog\/[^/]+\/posts$/.test(path)
      ? method === "POST"
        ? "publish"
        : "search"
      : path.startsWith("/v2/oauth2") || path.startsWith("/oauth2")
        ? "token"
        : "account",
  rejectBody: (status) => error(status ?? 400, 8001, "'content' must be an array'"),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedTumblrAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["blogs"] === "number" ? { blogs: input["blogs"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(typeof input["cap"] === "number" ? { cap: input["cap"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [tumblrModule]
