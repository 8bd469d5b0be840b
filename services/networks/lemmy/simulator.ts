import {
  bearerOf,
  jsonBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Lemmy's HTTP API v3 as join-lemmy.org/docs and lemmy-js-client 0.19 describe it: login
 * (username_or_email + password → jwt), the session as `Authorization: Bearer` (or the `jwt`
 * cookie for pict-rs), posts (name, community_id, url, body, alt_text, custom_thumbnail),
 * comments (content, post_id, parent_id), a person's details with their newest posts and
 * comments, communities (one by name or id, the list, search), and pict-rs uploads
 * (`images[]` → `{msg: "ok", files: [{file, delete_token}]}`). Errors are `{"error": "<code>"}`.
 */

const NETWORK = "lemmy"
const TITLE_MAX = 200
const BODY_MAX = 10_000

interface Person {
  readonly id: number
  readonly name: string
  readonly password: string
}
interface Community {
  readonly id: number
  readonly name: string
  readonly title: string
}
interface Post {
  readonly id: number
  readonly name: string
  readonly body: string | null
  readonly url: string | null
  readonly communityId: number
  readonly creator: number
}
interface Comment {
  readonly id: number
  readonly content: string
  readonly postId: number
  readonly parentId: number | null
  readonly creator: number
}

const people = new WeakMap<SimCore, Map<number, Person>>()
const communities = new WeakMap<SimCore, Map<number, Community>>()
const posts = new WeakMap<SimCore, Map<number, Post>>()
const comments = new WeakMap<SimCore, Map<number, Comment>>()
const images = new WeakMap<SimCore, Map<string, { readonly mime: string; readonly size: number }>>()

const error = (status: number, code: string): SimResponse => ({ status, body: { error: code } })

const communityOf = (core: SimCore, name: string): Community => {
  const all = stateOf(communities, core)
  const existing = [...all.values()].find((c) => c.name === name)
  if (existing !== undefined) return existing
  const made = { id: all.size + 1, name, title: name[0]!.toUpperCase() + name.slice(1) }
  all.set(made.id, made)
  return made
}

/** An account with a password (and the communities it may post in): the `--credentials` of the admin CLI. */
export const seedLemmyAccount = (core: SimCore, input: { readonly username?: string; readonly password?: string } = {}) => {
  const all = stateOf(people, core)
  const name = input.username ?? `user${all.size + 1}`
  const password = input.password ?? `pw-${core.newId()}`
  const existing = [...all.values()].find((p) => p.name === name)
  const person = existing ?? { id: all.size + 1, name, password }
  all.set(person.id, person)
  for (const c of ["technology", "photography", "scheduling"]) communityOf(core, c)
  return { instance: core.baseOf(NETWORK), username: person.name, password: person.password }
}

/** Signs an account's session out (its JWT is refused from now on), as an expired or revoked session. */
export const expireLemmySessions = (core: SimCore, username: string) => {
  const person = [...stateOf(people, core).values()].find((p) => p.name === username)
  for (const [token, t] of core.tokens) if (t.network === NETWORK && t.account === String(person?.id)) core.tokens.delete(token)
}

const apId = (core: SimCore, kind: "post" | "comment", id: number) => `${core.baseOf(NETWORK)}/${kind}/${id}`
const personJson = (core: SimCore, p: Person) => ({
  id: p.id,
  name: p.name,
  display_name: p.name[0]!.toUpperCase() + p.name.slice(1),
  avatar: `${core.baseOf(NETWORK)}/pictrs/image/avatar-${p.id}.png`,
  actor_id: `${core.baseOf(NETWORK)}/u/${p.name}`,
  local: true
})
const communityJson = (core: SimCore, c: Community) => ({
  community: { id: c.id, name: c.name, title: c.title, actor_id: `${core.baseOf(NETWORK)}/c/${c.name}`, local: true },
  subscribed: "NotSubscribed",
  counts: { subscribers: 100 * c.id, posts: [...stateOf(posts, core).values()].filter((p) => p.communityId === c.id).length }
})
const postJson = (core: SimCore, p: Post) => ({
  post: {
    id: p.id,
    name: p.name,
    body: p.body,
    url: p.url,
    community_id: p.communityId,
    creator_id: p.creator,
    ap_id: apId(core, "post", p.id),
    local: true
  },
  counts: {
    post_id: p.id,
    comments: [...stateOf(comments, core).values()].filter((c) => c.postId === p.id).length,
    score: 1,
    upvotes: 1,
    downvotes: 0
  }
})
const commentJson = (core: SimCore, c: Comment) => ({
  comment: {
    id: c.id,
    content: c.content,
    post_id: c.postId,
    creator_id: c.creator,
    ap_id: apId(core, "comment", c.id),
    path: c.parentId === null ? `0.${c.id}` : `0.${c.parentId}.${c.id}`
  },
  counts: { comment_id: c.id, score: 1, upvotes: 1, downvotes: 0, child_count: 0 }
})

const fieldsOf = (request: SimRequest): Record<string, unknown> => {
  const body = jsonBody(request)
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
}
/** The session: `Authorization: Bearer` or the `jwt` cookie (lemmy-js-client sends both). */
const jwtOf = (request: SimRequest) => bearerOf(request) ?? /(?:^|;\s*)jwt=([^;]+)/.exec(request.headers.cookie ?? "")?.[1]

/** Media named by a post's url or a comment's markdown image, as the simulator keeps them. */
const mediaIn = (core: SimCore, text: string, alt: string | undefined) =>
  [...stateOf(images, core).entries()]
    .filter(([file]) => text.includes(`/pictrs/image/${file}`))
    .map(([file, m]) => ({ id: file, mime: m.mime, size: m.size, ...(alt === undefined ? {} : { alt }) }))

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path, query } = request
  if (method === "POST" && path === "/api/v3/user/login") {
    const f = fieldsOf(request)
    const person = [...stateOf(people, core).values()].find((p) => p.name === f["username_or_email"])
    if (person === undefined || person.password !== f["password"]) return error(400, "incorrect_login")
    return {
      status: 200,
      body: { jwt: core.issueToken(NETWORK, String(person.id), "access", null), registration_created: false, verify_email_sent: false }
    }
  }
  const personId = Number(core.accountOf(NETWORK, jwtOf(request)) ?? Number.NaN)
  const me = stateOf(people, core).get(personId)
  if (method === "POST" && path === "/pictrs/image") {
    if (me === undefined) return { status: 401, body: { msg: "not_logged_in" } }
    const file = parseMultipart(request.headers, request.body).files.find((f) => f.field === "images[]")
    if (file === undefined) return { status: 400, body: { msg: "No files present in upload" } }
    if (!file.mime.startsWith("image/")) return { status: 400, body: { msg: "Unsupported media type" } }
    const name = `${core.newId()}.${file.mime.split("/")[1] ?? "png"}`
    stateOf(images, core).set(name, { mime: file.mime, size: file.bytes.length })
    return { status: 201, body: { msg: "ok", files: [{ file: name, delete_token: core.newId() }] } }
  }
  if (me === undefined) return error(401, "not_logged_in")
  if (method === "GET" && path === "/api/v3/user") {
    const person = [...stateOf(people, core).values()].find((p) => p.name === query.get("username"))
    if (person === undefined) return error(404, "couldnt_find_person")
    const limit = Number(query.get("limit") ?? "10")
    const visible = new Set(core.visiblePosts(NETWORK, String(person.id)).map((p) => p.id))
    const newest = <T extends { readonly id: number }>(all: Iterable<T>, prefix: string) =>
      [...all]
        .filter((x) => visible.has(`${prefix}${x.id}`))
        .reverse()
        .slice(0, limit)
    return {
      status: 200,
      body: {
        person_view: {
          person: personJson(core, person),
          counts: {
            person_id: person.id,
            post_count: [...stateOf(posts, core).values()].filter((p) => p.creator === person.id).length,
            comment_count: [...stateOf(comments, core).values()].filter((c) => c.creator === person.id).length
          }
        },
        posts: newest(
          [...stateOf(posts, core).values()].filter((p) => p.creator === person.id),
          "p"
        ).map((p) => postJson(core, p)),
        comments: newest(
          [...stateOf(comments, core).values()].filter((c) => c.creator === person.id),
          "c"
        ).map((c) => commentJson(core, c)),
        moderates: []
      }
    }
  }
  if (method === "GET" && path === "/api/v3/community") {
    const name = query.get("name")?.split("@")[0]
    const found = [...stateOf(communities, core).values()].find((c) => c.name === name || String(c.id) === query.get("id"))
    return found === undefined
      ? error(404, "couldnt_find_community")
      : { status: 200, body: { community_view: communityJson(core, found), moderators: [] } }
  }
  if (method === "GET" && path === "/api/v3/community/list") {
    const limit = Number(query.get("limit") ?? "10")
    return { status: 200, body: { communities: [...stateOf(communities, core).values()].slice(0, limit).map((c) => communityJson(core, c)) } }
  }
  if (method === "GET" && path === "/api/v3/search") {
    const q = (query.get("q") ?? "").toLowerCase()
    const found =
      query.get("type_") === "Communities" || query.get("type_") === "All" || query.get("type_") === null
        ? [...stateOf(communities, core).values()].filter((c) => c.name.includes(q) || c.title.toLowerCase().includes(q))
        : []
    return {
      status: 200,
      body: { type_: query.get("type_") ?? "All", comments: [], posts: [], communities: found.map((c) => communityJson(core, c)), users: [] }
    }
  }
  if (method === "POST" && path === "/api/v3/post") {
    const f = fieldsOf(request)
    const name = typeof f["name"] === "string" ? f["name"] : ""
    if (name.trim() === "" || [...name].length > TITLE_MAX) return error(400, "invalid_post_title")
    const body = typeof f["body"] === "string" ? f["body"] : null
    if (body !== null && [...body].length > BODY_MAX) return error(400, "invalid_body_field")
    const url = typeof f["url"] === "string" ? f["url"] : null
    if (url !== null && !/^https?:\/\//.test(url)) return error(400, "invalid_url")
    const community = stateOf(communities, core).get(Number(f["community_id"]))
    if (community === undefined) return error(404, "couldnt_find_community")
    const all = stateOf(posts, core)
    const post: Post = { id: all.size + 1, name, body, url, communityId: community.id, creator: me.id }
    all.set(post.id, post)
    core.record({
      network: NETWORK,
      id: `p${post.id}`,
      url: apId(core, "post", post.id),
      account: String(me.id),
      text: body ?? "",
      replyTo: null,
      media: mediaIn(
        core,
        `${url ?? ""} ${typeof f["custom_thumbnail"] === "string" ? f["custom_thumbnail"] : ""}`,
        typeof f["alt_text"] === "string" ? f["alt_text"] : undefined
      ),
      dedupeKey: null,
      extra: { title: name, community: community.name, url }
    })
    return {
      status: 200,
      body: { post_view: { ...postJson(core, post), community: communityJson(core, community).community, creator: personJson(core, me) } }
    }
  }
  if (method === "POST" && path === "/api/v3/comment") {
    const f = fieldsOf(request)
    const content = typeof f["content"] === "string" ? f["content"] : ""
    if (content.trim() === "") return error(400, "couldnt_create_comment")
    const post = stateOf(posts, core).get(Number(f["post_id"]))
    if (post === undefined) return error(404, "couldnt_find_post")
    const parentId = f["parent_id"] === undefined ? null : Number(f["parent_id"])
    const parent = parentId === null ? undefined : stateOf(comments, core).get(parentId)
    if (parentId !== null && (parent === undefined || parent.postId !== post.id)) return error(404, "couldnt_find_comment")
    const all = stateOf(comments, core)
    const comment: Comment = { id: all.size + 1, content, postId: post.id, parentId, creator: me.id }
    all.set(comment.id, comment)
    core.record({
      network: NETWORK,
      id: `c${comment.id}`,
      url: apId(core, "comment", comment.id),
      account: String(me.id),
      text: content,
      replyTo: parentId === null ? `p${post.id}` : `c${parentId}`,
      media: mediaIn(core, content, undefined),
      dedupeKey: null,
      extra: {}
    })
    return { status: 200, body: { comment_view: commentJson(core, comment), recipient_ids: [] } }
  }
  if (method === "GET" && path === "/api/v3/post") {
    const post = stateOf(posts, core).get(Number(query.get("id")))
    return post === undefined ? error(404, "couldnt_find_post") : { status: 200, body: { post_view: postJson(core, post), cross_posts: [] } }
  }
  if (method === "GET" && path === "/api/v3/comment") {
    const comment = stateOf(comments, core).get(Number(query.get("id")))
    return comment === undefined
      ? error(404, "couldnt_find_comment")
      : { status: 200, body: { comment_view: commentJson(core, comment), recipient_ids: [] } }
  }
  return undefined
}

export const lemmyModule: NetworkModule = {
  network: NETWORK,
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && (path === "/api/v3/post" || path === "/api/v3/comment")
      ? "publish"
      : path.startsWith("/pictrs")
        ? "media"
        : path === "/api/v3/user"
          ? "search"
          : path === "/api/v3/user/login"
            ? "token"
            : "account",
  rejectBody: (status) => error(status ?? 400, "invalid_post_title"),
  expiredTokenBody: () => error(401, "not_logged_in"),
  // self-hosted: the instance address comes with the credentials, no environment
  seed: (core, input) =>
    seedLemmyAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["password"] === "string" ? { password: input["password"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [lemmyModule]
