import { jsonBody, type NetworkModule, type SimCore, type SimRequest, type SimResponse, stateOf } from "../../../test/support/simulator/core.js"

/**
 * Hashnode's GraphQL endpoint (gql.hashnode.com) for the operations its documentation
 * gives: `me` with its publications, `publishPost(input: PublishPostInput!)`,
 * `publication(id).posts`, `post(id)` and the publication's `followersCount`. The token
 * goes in `Authorization` (a `Bearer ` prefix is optional). Errors are the GraphQL shape
 * with `extensions.code` (UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, BAD_USER_INPUT,
 * INTERNAL_SERVER_ERROR); request bodies over 100 KB and more than 15 tags are refused, and
 * a publication without Pro gets FORBIDDEN with Hashnode's Pro-plan message on writes and
 * publication reads.
 * Not a GraphQL engine: the operation is told by its root field, and answers carry every
 * field the documented selections ask.
 */
const NETWORK = "hashnode"
const MAX_BODY_BYTES = 100 * 1024

interface User {
  readonly id: string
  readonly username: string
  readonly token: string
  readonly publications: ReadonlyArray<string>
}
interface Publication {
  readonly id: string
  readonly title: string
  readonly host: string
  readonly series: Set<string>
  /** The API writes to (and reads the posts of) Pro publications only. */
  readonly pro: boolean
}
interface Post {
  readonly id: string
  readonly publication: string
  readonly title: string
  readonly markdown: string
  readonly url: string
  readonly at: number
}

const users = new WeakMap<SimCore, Map<string, User>>()
const publications = new WeakMap<SimCore, Map<string, Publication>>()
const posts = new WeakMap<SimCore, Map<string, Post>>()

/** A 24-hex-digit id, as Hashnode's ObjectIds. */
const objectId = (core: SimCore) => Buffer.from(`${core.newId()}${core.newId()}`).toString("hex").padEnd(24, "0").slice(-24)

export const seedHashnodeAccount = (core: SimCore, input: { readonly username?: string; readonly title?: string; readonly pro?: boolean } = {}) => {
  const allUsers = stateOf(users, core)
  const username = input.username ?? `writer${allUsers.size + 1}`
  const publication: Publication = {
    id: objectId(core),
    title: input.title ?? `${username}'s blog`,
    host: `${username}.hashnode.dev`,
    series: new Set(),
    pro: input.pro ?? true
  }
  stateOf(publications, core).set(publication.id, publication)
  const user: User = { id: objectId(core), username, token: `${core.newId()}-${core.newId()}`, publications: [publication.id] }
  allUsers.set(user.token, user)
  return { token: user.token, publicationId: publication.id }
}

/** A series of a publication: its id. */
export const seedHashnodeSeries = (core: SimCore, publicationId: string) => {
  const id = objectId(core)
  stateOf(publications, core).get(publicationId)?.series.add(id)
  return id
}

const NOT_PRO = "Publication does not have an active Pro plan. Upgrade in your dashboard to access this via the API."

const graphError = (message: string, code: string, status = 200): SimResponse => ({
  status,
  body: { errors: [{ message, extensions: { code } }], data: null }
})
const data = (value: unknown): SimResponse => ({ status: 200, body: { data: value } })

const operationOf = (query: string) => {
  if (/\bpublishPost\s*\(/.test(query)) return "publish"
  if (/\bme\s*\{/.test(query)) return "me"
  if (/\bpublication\s*\(/.test(query)) return /followersCount/.test(query) ? "publication-numbers" : "publication-posts"
  if (/\bpost\s*\(/.test(query)) return "post-numbers"
  return "unknown"
}

const requestOf = (request: SimRequest) => {
  const body = jsonBody(request)
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  const variables = typeof record["variables"] === "object" && record["variables"] !== null ? (record["variables"] as Record<string, unknown>) : {}
  return { query: typeof record["query"] === "string" ? record["query"] : "", variables }
}

const userOf = (request: SimRequest, core: SimCore) => {
  const header = request.headers["authorization"]
  const token = typeof header === "string" ? header.replace(/^Bearer\s+/i, "") : ""
  return stateOf(users, core).get(token)
}

const text = (value: unknown) => (typeof value === "string" ? value : "")

const publish = async (core: SimCore, user: User, input: Record<string, unknown>): Promise<SimResponse> => {
  const publicationId = text(input["publicationId"])
  const publication = stateOf(publications, core).get(publicationId)
  if (publication === undefined) return graphError("Publication not found", "NOT_FOUND")
  if (!user.publications.includes(publicationId)) return graphError("You are not allowed to publish in this publication", "FORBIDDEN")
  if (!publication.pro) return graphError(NOT_PRO, "FORBIDDEN")
  const title = text(input["title"]).trim()
  const markdown = text(input["contentMarkdown"])
  if (title === "") return graphError("Title is required", "BAD_USER_INPUT")
  if (markdown.trim() === "") return graphError("Content is required", "BAD_USER_INPUT")
  const tags = Array.isArray(input["tags"]) ? input["tags"] : []
  if (tags.length > 15) return graphError("A post can have at most 15 tags", "BAD_USER_INPUT")
  const seriesId = text(input["seriesId"])
  if (seriesId !== "" && !publication.series.has(seriesId)) return graphError("Series not found", "BAD_USER_INPUT")
  const cover = text(input["coverImage"])
  const fetched = cover === "" ? null : await core.fetchMedia(cover)
  const id = objectId(core)
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, "-")
  const url = `https://${publication.host}/${slug}`
  stateOf(posts, core).set(id, { id, publication: publicationId, title, markdown, url, at: Date.now() })
  core.record({
    network: NETWORK,
    id,
    url,
    account: publicationId,
    text: markdown,
    replyTo: null,
    media: fetched === null || !fetched.ok ? [] : [{ id: cover, mime: fetched.mime, size: fetched.bytes.length }],
    dedupeKey: null,
    extra: {
      title,
      tags,
      ...(typeof input["subtitle"] === "string" ? { subtitle: input["subtitle"] } : {}),
      ...(typeof input["originalArticleURL"] === "string" ? { originalArticleURL: input["originalArticleURL"] } : {}),
      ...(seriesId === "" ? {} : { seriesId }),
      ...(cover === "" ? {} : { coverImage: cover })
    }
  })
  return data({ publishPost: { post: { id, slug, url, title } } })
}

const handle = (request: SimRequest, core: SimCore): Promise<SimResponse> | SimResponse | undefined => {
  if (request.method !== "POST" || request.path !== "/") return undefined
  if (request.body.length > MAX_BODY_BYTES) return graphError("Request body is larger than 100 KB", "BAD_USER_INPUT", 413)
  const { query, variables } = requestOf(request)
  const operation = operationOf(query)
  const user = userOf(request, core)
  if (user === undefined) return graphError("You must be authenticated to do this.", "UNAUTHENTICATED")
  const allPublications = stateOf(publications, core)
  switch (operation) {
    case "me":
      return data({
        me: {
          id: user.id,
          username: user.username,
          name: user.username,
          profilePicture: null,
          publications: {
            edges: user.publications.flatMap((id) => {
              const p = allPublications.get(id)
              return p === undefined ? [] : [{ node: { id: p.id, title: p.title, url: `https://${p.host}` } }]
            })
          }
        }
      })
    case "publish": {
      const input = typeof variables["input"] === "object" && variables["input"] !== null ? (variables["input"] as Record<string, unknown>) : {}
      return publish(core, user, input)
    }
    case "publication-posts":
    case "publication-numbers": {
      const id = text(variables["id"])
      const publication = allPublications.get(id)
      if (publication === undefined) return data({ publication: null })
      if (!publication.pro) return graphError(NOT_PRO, "FORBIDDEN")
      const visible = new Set(core.visiblePosts(NETWORK, id).map((p) => p.id))
      const mine = [...stateOf(posts, core).values()].filter((p) => p.publication === id && visible.has(p.id)).sort((a, b) => b.at - a.at)
      if (operation === "publication-numbers") return data({ publication: { followersCount: 42, posts: { totalDocuments: mine.length } } })
      return data({
        publication: {
          posts: { edges: mine.slice(0, 20).map((p) => ({ node: { id: p.id, title: p.title, url: p.url, content: { markdown: p.markdown } } })) }
        }
      })
    }
    case "post-numbers": {
      const post = stateOf(posts, core).get(text(variables["id"]))
      return data({ post: post === undefined ? null : { views: 7, reactionCount: 2, responseCount: 1 } })
    }
    default:
      return graphError("Cannot query this field", "GRAPHQL_VALIDATION_FAILED", 400)
  }
}

export const hashnodeModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ HASHNODE_API_URL: base }),
  handle,
  opOf: (request) => {
    const operation = operationOf(requestOf(request).query)
    return operation === "publish" ? "publish" : operation === "publication-posts" ? "search" : "account"
  },
  rejectBody: () => graphError("Title is required", "BAD_USER_INPUT"),
  expiredTokenBody: () => graphError("You must be authenticated to do this.", "UNAUTHENTICATED"),
  seed: (core, input) =>
    seedHashnodeAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["title"] === "string" ? { title: input["title"] } : {}),
      ...(typeof input["pro"] === "boolean" ? { pro: input["pro"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [hashnodeModule]
