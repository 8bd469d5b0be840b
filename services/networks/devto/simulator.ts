import { jsonBody, type NetworkModule, type SimCore, type SimRequest, type SimResponse, stateOf } from "../../../test/support/simulator/core.js"

/**
 * The Forem API v1 of dev.to as documented (developers.forem.com/api/v1): `api-key`
 * header; GET /users/me; POST /articles (`{article: {title, body_markdown, published,
 * tags, series, main_image, canonical_url, description}}`, 201 with the article); GET
 * /articles/me/all (the author's articles with body_markdown and counts). Errors are
 * `{error, status}`; an unknown key is 401 `{"error":"unauthorized","status":401}`. Forem
 * refuses a second article of the same user with the same title and body (422 "Body
 * markdown has already been taken"), titles over 128 characters, more than 4 tags, and tags
 * that are not alphanumeric.
 */
const NETWORK = "devto"

interface Account {
  readonly id: number
  readonly username: string
  readonly name: string
  readonly apiKey: string
}
interface Stored {
  readonly id: number
  readonly account: number
  readonly title: string
  readonly body: string
  readonly url: string
  readonly at: number
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const articles = new WeakMap<SimCore, Map<number, Stored>>()

export const seedDevtoAccount = (core: SimCore, input: { readonly username?: string } = {}) => {
  const all = stateOf(accounts, core)
  const id = 100000 + all.size + 1
  const account: Account = {
    id,
    username: input.username ?? `dev${id}`,
    name: `Dev ${id}`,
    apiKey: `${core.newId()}${core.newId()}`
  }
  all.set(account.apiKey, account)
  return { apiKey: account.apiKey }
}

const error = (status: number, message: string): SimResponse => ({ status, body: { error: message, status } })

const asText = (value: unknown) => (typeof value === "string" ? value : "")

const tagsOf = (value: unknown): ReadonlyArray<string> =>
  (Array.isArray(value) ? value.map(asText) : asText(value).split(",")).map((t) => t.trim()).filter((t) => t !== "")

const create = async (request: SimRequest, core: SimCore, account: Account): Promise<SimResponse> => {
  const body = jsonBody(request)
  const article = typeof body === "object" && body !== null && "article" in body ? (body as { article: Record<string, unknown> }).article : null
  if (article === null || typeof article !== "object") return error(422, "param is missing or the value is empty: article")
  const title = asText(article["title"]).trim()
  const markdown = asText(article["body_markdown"])
  if (title === "") return error(422, "Title can't be blank")
  if ([...title].length > 128) return error(422, "Title is too long (maximum is 128 characters)")
  const tags = tagsOf(article["tags"])
  if (tags.length > 4) return error(422, "Tag list exceed the maximum of 4 tags")
  const bad = tags.find((t) => !/^[A-Za-z0-9]+$/.test(t))
  if (bad !== undefined) return error(422, `Tag "${bad}" contains non-alphanumeric or prohibited unicode characters`)
  const mine = stateOf(articles, core)
  if ([...mine.values()].some((a) => a.account === account.id && a.title === title && a.body === markdown)) {
    return error(422, "Body markdown has already been taken")
  }
  const cover = asText(article["main_image"])
  const fetched = cover === "" ? null : await core.fetchMedia(cover)
  if (fetched !== null && !fetched.ok) return error(422, `Main image url is not a valid image: ${fetched.reason}`)
  const id = 1000000 + core.posts.length + mine.size + 1
  const slug = `${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${id.toString(36)}`
  const url = `https://dev.to/${account.username}/${slug}`
  mine.set(id, { id, account: account.id, title, body: markdown, url, at: Date.now() })
  core.record({
    network: NETWORK,
    id: String(id),
    url,
    account: String(account.id),
    text: markdown,
    replyTo: null,
    media: fetched === null || !fetched.ok ? [] : [{ id: cover, mime: fetched.mime, size: fetched.bytes.length }],
    dedupeKey: null,
    extra: {
      title,
      tags,
      published: article["published"] === true,
      ...(typeof article["series"] === "string" ? { series: article["series"] } : {}),
      ...(typeof article["canonical_url"] === "string" ? { canonical_url: article["canonical_url"] } : {}),
      ...(typeof article["description"] === "string" ? { description: article["description"] } : {})
    }
  })
  return {
    status: 201,
    body: { type_of: "article", id, title, slug, url, path: `/${account.username}/${slug}`, published: article["published"] === true, tags }
  }
}

const handle = (request: SimRequest, core: SimCore): Promise<SimResponse> | SimResponse | undefined => {
  const key = request.headers["api-key"]
  const account = typeof key === "string" ? stateOf(accounts, core).get(key) : undefined
  if (account === undefined) return error(401, "unauthorized")
  const route = `${request.method} ${request.path}`
  if (route === "GET /users/me") {
    return { status: 200, body: { type_of: "user", id: account.id, username: account.username, name: account.name, profile_image: null } }
  }
  if (route === "POST /articles") return create(request, core, account)
  if (route === "GET /articles/me/all" || route === "GET /articles/me/published") {
    const perPage = Math.min(1000, Number(request.query.get("per_page") ?? "30") || 30)
    const visible = new Set(core.visiblePosts(NETWORK, String(account.id)).map((p) => p.id))
    const list = [...stateOf(articles, core).values()]
      .filter((a) => a.account === account.id && visible.has(String(a.id)))
      .sort((a, b) => b.at - a.at)
      .slice(0, perPage)
      .map((a) => ({
        type_of: "article",
        id: a.id,
        title: a.title,
        url: a.url,
        published: true,
        body_markdown: a.body,
        page_views_count: 12,
        public_reactions_count: 3,
        comments_count: 1
      }))
    return { status: 200, body: list }
  }
  return undefined
}

export const devtoModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ DEVTO_API_URL: base }),
  handle,
  opOf: ({ method, path }) => (method === "POST" && path === "/articles" ? "publish" : path.startsWith("/articles/me") ? "search" : "account"),
  rejectBody: (status) => error(status ?? 422, "Title can't be blank"),
  expiredTokenBody: () => error(401, "unauthorized"),
  seed: (core, input) => seedDevtoAccount(core, typeof input["username"] === "string" ? { username: input["username"] } : {})
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [devtoModule]
