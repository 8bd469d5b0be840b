import {
  jsonBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * A self-hosted WordPress site's REST API as developer.wordpress.org/rest-api/reference
 * documents it, under the site's `/wp-json`: application passwords by HTTP Basic
 * (401 `incorrect_password` otherwise), GET /wp/v2/users/me, POST /wp/v2/media (multipart
 * `file`, `alt_text`; 201 with the attachment), POST /wp/v2/posts (title, content, status
 * `publish`/`future`/`draft`/`pending`/`private`, categories, tags, featured_media; 201
 * with the post; a Contributor may not publish: 403 `rest_cannot_publish`; term ids the
 * site does not have are skipped, as core does), GET /wp/v2/posts (search, author, status,
 * context=edit with `raw` fields), GET /wp/v2/categories and /wp/v2/tags. Errors are
 * `{code, message, data: {status}}`.
 */
const NETWORK = "wordpress"

interface User {
  readonly id: number
  readonly username: string
  readonly password: string
  readonly role: "administrator" | "author" | "contributor"
}

interface Stored {
  readonly id: number
  readonly author: number
  readonly title: string
  readonly content: string
  readonly status: string
  readonly link: string
  readonly at: number
}

const users = new WeakMap<SimCore, Map<string, User>>()
const posts = new WeakMap<SimCore, Map<number, Stored>>()
const attachments = new WeakMap<
  SimCore,
  Map<number, { readonly author: number; readonly mime: string; readonly size: number; readonly alt: string }>
>()
const ids = new WeakMap<SimCore, Map<"next", number>>()

const categories = [
  { id: 1, name: "Uncategorized", slug: "uncategorized" },
  { id: 2, name: "News", slug: "news" }
]
const tags = [
  { id: 3, name: "cats", slug: "cats" },
  { id: 4, name: "dogs", slug: "dogs" }
]

const error = (status: number, code: string, message: string, params?: Record<string, string>): SimResponse => ({
  status,
  body: { code, message, data: { status, ...(params === undefined ? {} : { params }) } }
})
const incorrectPassword = error(401, "incorrect_password", "The provided password is an invalid application password.")

const nextId = (core: SimCore) => {
  const state = stateOf(ids, core)
  const id = (state.get("next") ?? 100) + 1
  state.set("next", id)
  return id
}

export const seedWordPressAccount = (core: SimCore, input: { readonly username?: string; readonly role?: User["role"] } = {}) => {
  const all = stateOf(users, core)
  const username = input.username ?? `editor${all.size + 1}`
  // application passwords are 24 characters, shown in groups of four
  const password = (core.newId() + core.newId())
    .replace(/[^a-z0-9]/gi, "")
    .slice(0, 24)
    .replace(/(.{4})(?!$)/g, "$1 ")
  all.set(username, { id: all.size + 1, username, password, role: input.role ?? "author" })
  return { site: core.baseOf(NETWORK), username, applicationPassword: password }
}

/** The user of the request's Basic credentials (spaces of the application password ignored, as WordPress does). */
const userOf = (request: SimRequest, core: SimCore): User | undefined => {
  const header = request.headers["authorization"]
  const match = typeof header === "string" ? /^Basic\s+(.+)$/i.exec(header) : null
  if (match === null) return undefined
  const decoded = Buffer.from(match[1] ?? "", "base64").toString("utf8")
  const at = decoded.indexOf(":")
  const user = stateOf(users, core).get(decoded.slice(0, at))
  return user !== undefined && user.password.replace(/\s/g, "") === decoded.slice(at + 1).replace(/\s/g, "") ? user : undefined
}

const slugOf = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")

const termsOf = (value: unknown, known: ReadonlyArray<{ id: number }>) =>
  (Array.isArray(value) ? value : []).filter((v): v is number => typeof v === "number" && known.some((t) => t.id === v))

const createPost = (request: SimRequest, core: SimCore, user: User): SimResponse => {
  const raw = jsonBody(request)
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  const title = typeof body["title"] === "string" ? body["title"] : ""
  const content = typeof body["content"] === "string" ? body["content"] : ""
  const status = typeof body["status"] === "string" ? body["status"] : "draft"
  if (!["publish", "future", "draft", "pending", "private"].includes(status))
    return error(400, "rest_invalid_param", "Invalid parameter(s): status", {
      status: "status is not one of publish, future, draft, pending, private."
    })
  if (title === "" && content === "") return error(400, "empty_content", "Content, title, and excerpt are empty.")
  if ((status === "publish" || status === "private" || status === "future") && user.role === "contributor")
    return error(403, "rest_cannot_publish", "Sorry, you are not allowed to publish posts as this user.")
  const featured = body["featured_media"]
  const media: Array<{ id: string; mime: string; size: number; alt?: string }> = []
  if (featured !== undefined && featured !== 0) {
    const found = typeof featured === "number" ? stateOf(attachments, core).get(featured) : undefined
    if (found === undefined) return error(400, "rest_invalid_featured_media", "Invalid featured media ID.")
    media.push({ id: String(featured), mime: found.mime, size: found.size, ...(found.alt === "" ? {} : { alt: found.alt }) })
  }
  const id = nextId(core)
  const now = new Date()
  const link =
    status === "publish"
      ? `${core.baseOf(NETWORK)}/${now.getUTCFullYear()}/${String(now.getUTCMonth() + 1).padStart(2, "0")}/${slugOf(title) || id}/`
      : `${core.baseOf(NETWORK)}/?p=${id}`
  const post: Stored = { id, author: user.id, title, content, status, link, at: Date.now() }
  stateOf(posts, core).set(id, post)
  const cats = termsOf(body["categories"], categories)
  const tagIds = termsOf(body["tags"], tags)
  core.record({
    network: NETWORK,
    id: String(id),
    url: link,
    account: user.username,
    text: content,
    replyTo: null,
    media,
    dedupeKey: null,
    extra: { title, status, categories: cats.length === 0 ? [1] : cats, tags: tagIds, featured_media: featured ?? 0 }
  })
  return { status: 201, body: asJson(post, "edit", { categories: cats.length === 0 ? [1] : cats, tags: tagIds, featured_media: featured ?? 0 }) }
}

const asJson = (post: Stored, context: string, more: Record<string, unknown> = {}) => ({
  id: post.id,
  date_gmt: new Date(post.at).toISOString().slice(0, 19),
  link: post.link,
  status: post.status,
  type: "post",
  author: post.author,
  title: { ...(context === "edit" ? { raw: post.title } : {}), rendered: post.title },
  content: { ...(context === "edit" ? { raw: post.content } : {}), rendered: `<p>${post.content}</p>\n`, protected: false },
  ...more
})

const upload = (request: SimRequest, core: SimCore, user: User): SimResponse => {
  const { fields, files } = parseMultipart(request.headers, request.body)
  const file = files.find((f) => f.field === "file")
  if (file === undefined) return error(400, "rest_upload_no_data", "No data supplied.")
  if (!file.mime.startsWith("image/") && !file.mime.startsWith("video/"))
    return error(500, "rest_upload_sideload_error", "Sorry, you are not allowed to upload this file type.")
  const id = nextId(core)
  stateOf(attachments, core).set(id, { author: user.id, mime: file.mime, size: file.bytes.length, alt: fields["alt_text"] ?? "" })
  return {
    status: 201,
    body: {
      id,
      type: "attachment",
      media_type: file.mime.startsWith("image/") ? "image" : "file",
      mime_type: file.mime,
      alt_text: fields["alt_text"] ?? "",
      source_url: `${core.baseOf(NETWORK)}/wp-content/uploads/${file.filename}`
    }
  }
}

const list = (request: SimRequest, core: SimCore, user: User): SimResponse => {
  const context = request.query.get("context") ?? "view"
  if (context === "edit" && user.role === "contributor" && request.query.get("author") !== String(user.id))
    return error(401, "rest_forbidden_context", "Sorry, you are not allowed to edit posts in this post type.")
  const statuses = (request.query.get("status") ?? "publish").split(",")
  const author = request.query.get("author")
  const search = (request.query.get("search") ?? "").toLowerCase()
  const perPage = Math.min(100, Number(request.query.get("per_page") ?? "10") || 10)
  const visible = new Set(core.visiblePosts(NETWORK, user.username).map((p) => p.id))
  const found = [...stateOf(posts, core).values()]
    .filter((p) => (p.author === user.id ? visible.has(String(p.id)) : p.status === "publish"))
    .filter((p) => statuses.includes(p.status) && (author === null || String(p.author) === author))
    .filter((p) => search === "" || p.title.toLowerCase().includes(search) || p.content.toLowerCase().includes(search))
    .sort((a, b) => b.at - a.at)
  return {
    status: 200,
    headers: { "x-wp-total": String(found.length), "x-wp-totalpages": String(Math.max(1, Math.ceil(found.length / perPage))) },
    body: found.slice(0, perPage).map((p) => asJson(p, context))
  }
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (!path.startsWith("/wp-json/")) return undefined
  const route = path.slice("/wp-json".length)
  const user = userOf(request, core)
  if (user === undefined) {
    return request.headers["authorization"] === undefined ? error(401, "rest_not_logged_in", "You are not currently logged in.") : incorrectPassword
  }
  if (method === "GET" && route === "/wp/v2/users/me")
    return {
      status: 200,
      body: {
        id: user.id,
        name: user.username,
        slug: user.username,
        username: user.username,
        roles: [user.role],
        avatar_urls: { "24": `https://secure.gravatar.com/avatar/${user.id}?s=24`, "96": `https://secure.gravatar.com/avatar/${user.id}?s=96` }
      }
    }
  if (method === "POST" && route === "/wp/v2/posts") return createPost(request, core, user)
  if (method === "GET" && route === "/wp/v2/posts") return list(request, core, user)
  if (method === "POST" && route === "/wp/v2/media") return upload(request, core, user)
  if (method === "GET" && (route === "/wp/v2/categories" || route === "/wp/v2/tags")) {
    const word = (request.query.get("search") ?? "").toLowerCase()
    const terms = (route === "/wp/v2/categories" ? categories : tags).filter((t) => word === "" || t.name.toLowerCase().includes(word))
    return { status: 200, body: terms.map((t) => ({ ...t, count: 0, taxonomy: route === "/wp/v2/categories" ? "category" : "post_tag" })) }
  }
  return error(404, "rest_no_route", "No route was found matching the URL and request method.")
}

export const wordpressModule: NetworkModule = {
  network: NETWORK,
  // the site's address comes with the credentials: nothing to set
  env: () => ({}),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && path === "/wp-json/wp/v2/posts"
      ? "publish"
      : path === "/wp-json/wp/v2/media"
        ? "media"
        : method === "GET" && path === "/wp-json/wp/v2/posts"
          ? "search"
          : "account",
  rejectBody: (status) =>
    error(status ?? 400, "rest_invalid_param", "Invalid parameter(s): status", { status: "status is not one of publish, draft." }),
  expiredTokenBody: () => incorrectPassword,
  seed: (core, input) =>
    seedWordPressAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(input["role"] === "contributor" || input["role"] === "administrator" ? { role: input["role"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [wordpressModule]
