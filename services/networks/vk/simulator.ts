import { createHash } from "node:crypto"
import {
  formBody,
  type NetworkModule,
  parseMultipart,
  type SimCore,
  type SimPost,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * VK's API as documented on dev.vk.com: methods at `/method/<name>` taking form or query
 * parameters with `access_token` and `v`, answering HTTP 200 `{response}` or
 * `{error: {error_code, error_msg, request_params}}`; wall.post (guid), wall.createComment,
 * wall.get, wall.getComments, wall.getById, groups.getById, users.get, and the wall photo
 * upload (photos.getWallUploadServer → multipart `photo` to the upload address →
 * photos.saveWallPhoto); and VK ID's sign-in (id.vk.com: /authorize with PKCE S256, which
 * approves at once as a new user wall and redirects with code, state and device_id;
 * /oauth2/auth for the code and for refresh tokens, which rotate).
 */
const NETWORK = "vk"
/** wall.post takes at most 10 media (dev.vk.com/en/method/wall.post, "Restrictions on published content"). */
const MAX_ATTACHMENTS = 10
/** VK's own cap on a post's text. */
const MAX_TEXT = 16384

interface Wall {
  readonly ownerId: number
  readonly name: string
  readonly screenName: string
}
interface Photo {
  readonly id: number
  readonly ownerId: number
  readonly mime: string
  readonly size: number
}

const walls = new WeakMap<SimCore, Map<number, Wall>>()
/** Uploads not yet saved: hash → the file (what photos.saveWallPhoto turns into a photo). */
const uploads = new WeakMap<
  SimCore,
  Map<string, { readonly server: number; readonly ownerId: number; readonly mime: string; readonly size: number }>
>()
const photos = new WeakMap<SimCore, Map<string, Photo>>()
/** guid → the post or comment it made, per wall. */
const guids = new WeakMap<SimCore, Map<string, string>>()
const counters = new WeakMap<SimCore, Map<string, number>>()
const codes = new WeakMap<
  SimCore,
  Map<
    string,
    { readonly ownerId: number; readonly challenge: string; readonly redirectUri: string; readonly deviceId: string; readonly clientId: string }
  >
>()
/** refresh token → the wall and device it was given for. */
const refreshTokens = new WeakMap<SimCore, Map<string, { readonly ownerId: number; readonly deviceId: string }>>()
/** VK ID access tokens live an hour. */
const VK_ID_TOKEN_SECONDS = 3600

const next = (core: SimCore, key: string) => {
  const all = stateOf(counters, core)
  const n = (all.get(key) ?? 0) + 1
  all.set(key, n)
  return n
}

/** A community (default) or a user wall and a token for it. */
export const seedVkWall = (core: SimCore, input: { readonly name?: string; readonly community?: boolean } = {}) => {
  const all = stateOf(walls, core)
  const n = all.size + 1
  const ownerId = input.community === false ? 500000 + n : -(200000 + n)
  const name = input.name ?? (ownerId < 0 ? `Community ${n}` : `User ${n}`)
  all.set(ownerId, { ownerId, name, screenName: ownerId < 0 ? `club${-ownerId}` : `id${ownerId}` })
  return { accessToken: core.issueToken(NETWORK, String(ownerId), "access", null), ownerId }
}

const ok = (response: unknown): SimResponse => ({ status: 200, body: { response } })
const fail = (code: number, message: string, method: string): SimResponse => ({
  status: 200,
  body: {
    error: {
      error_code: code,
      error_msg: message,
      request_params: [
        { key: "method", value: method },
        { key: "v", value: "5.199" }
      ]
    }
  }
})

/** Parameters from the query and a form body, as VK takes both. */
const paramsOf = (request: SimRequest): Map<string, string> => {
  const out = new Map<string, string>(request.query)
  if ((request.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded")) for (const [k, v] of formBody(request)) out.set(k, v)
  return out
}

const postJson = (post: SimPost) => ({
  id: Number(post.id),
  owner_id: Number(post.account),
  from_id: Number(post.account),
  date: Math.floor(post.at.getTime() / 1000),
  text: post.text,
  attachments: post.media.map((m) => ({ type: "photo", photo: { id: Number(m.id), owner_id: Number(post.account) } })),
  comments: { count: 0 },
  likes: { count: 4 },
  reposts: { count: 1 },
  views: { count: 120 }
})

const upload = (request: SimRequest, core: SimCore): SimResponse => {
  const ownerId = Number(request.query.get("gid") === "0" ? request.query.get("mid") : `-${request.query.get("gid") ?? ""}`)
  const { files } = parseMultipart(request.headers, request.body)
  const photo = files.find((f) => f.field === "photo")
  const server = 856312
  // the upload server answers text/html with JSON inside, and "[]" when no photo came
  if (photo === undefined) return { status: 200, headers: { "content-type": "text/html" }, body: JSON.stringify({ server, photo: "[]", hash: "" }) }
  const hash = core.newId()
  stateOf(uploads, core).set(hash, { server, ownerId, mime: photo.mime, size: photo.bytes.length })
  return {
    status: 200,
    headers: { "content-type": "text/html; charset=windows-1251" },
    body: JSON.stringify({ server, photo: JSON.stringify([{ photo: `${hash.slice(0, 10)}:w`, sizes: [] }]), hash })
  }
}

/** VK ID: the consent page (approved at once) and the token endpoint. */
const vkId = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  if (request.method === "GET" && request.path === "/authorize") {
    const q = request.query
    const redirectUri = q.get("redirect_uri") ?? ""
    if (q.get("response_type") !== "code" || (q.get("client_id") ?? "") === "" || redirectUri === "") {
      return { status: 400, body: { error: "invalid_request", error_description: "response_type, client_id and redirect_uri are required" } }
    }
    if ((q.get("code_challenge") ?? "") === "" || q.get("code_challenge_method")?.toLowerCase() !== "s256") {
      return { status: 400, body: { error: "invalid_request", error_description: "code_challenge with code_challenge_method s256 is required" } }
    }
    const { ownerId } = seedVkWall(core, { community: false, ...(q.get("account") === null ? {} : { name: q.get("account") ?? "" }) })
    const code = `vkid-code-${core.newId()}`
    const deviceId = `device-${core.newId()}`
    stateOf(codes, core).set(code, { ownerId, challenge: q.get("code_challenge") ?? "", redirectUri, deviceId, clientId: q.get("client_id") ?? "" })
    const target = new URL(redirectUri)
    for (const [k, v] of Object.entries({ code, state: q.get("state") ?? "", device_id: deviceId, type: "code_v2", expires_in: "600" }))
      target.searchParams.set(k, v)
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (request.method === "POST" && request.path === "/oauth2/auth") {
    const form = formBody(request)
    const refused = (description: string): SimResponse => ({
      status: 400,
      body: { error: "invalid_grant", error_description: description, state: form.get("state") }
    })
    const tokens = (ownerId: number, deviceId: string): SimResponse => {
      const refresh = `vkid-refresh-${core.newId()}`
      stateOf(refreshTokens, core).set(refresh, { ownerId, deviceId })
      return {
        status: 200,
        body: {
          access_token: core.issueToken(NETWORK, String(ownerId), "access", VK_ID_TOKEN_SECONDS * 1000),
          refresh_token: refresh,
          id_token: `id-${core.newId()}`,
          token_type: "Bearer",
          expires_in: VK_ID_TOKEN_SECONDS,
          user_id: ownerId,
          state: form.get("state"),
          scope: "wall photos"
        }
      }
    }
    if (form.get("grant_type") === "authorization_code") {
      const code = stateOf(codes, core).get(form.get("code") ?? "")
      if (code === undefined) return refused("code is invalid or expired")
      const challenge = createHash("sha256")
        .update(form.get("code_verifier") ?? "")
        .digest("base64url")
      if (challenge !== code.challenge) return refused("code_verifier does not match code_challenge")
      if (form.get("redirect_uri") !== code.redirectUri || form.get("device_id") !== code.deviceId || form.get("client_id") !== code.clientId) {
        return refused("redirect_uri, device_id or client_id do not match")
      }
      stateOf(codes, core).delete(form.get("code") ?? "")
      return tokens(code.ownerId, code.deviceId)
    }
    if (form.get("grant_type") === "refresh_token") {
      const held = stateOf(refreshTokens, core).get(form.get("refresh_token") ?? "")
      if (held === undefined || held.deviceId !== form.get("device_id")) return refused("refresh_token is invalid")
      // each refresh token works once: a new one comes with the new access token
      stateOf(refreshTokens, core).delete(form.get("refresh_token") ?? "")
      return tokens(held.ownerId, held.deviceId)
    }
    return { status: 400, body: { error: "unsupported_grant_type" } }
  }
  return undefined
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  if (request.path === "/upload.php" && request.method === "POST") return upload(request, core)
  const signIn = vkId(request, core)
  if (signIn !== undefined) return signIn
  const match = /^\/method\/([\w.]+)$/.exec(request.path)
  if (match === null) return undefined
  const name = match[1]!
  const params = paramsOf(request)
  const account = core.accountOf(NETWORK, params.get("access_token"))
  if (account === null) return fail(5, "User authorization failed: invalid access_token (4).", name)
  if (params.get("v") === undefined) return fail(8, "Invalid request: v (version) is required", name)
  const own = stateOf(walls, core).get(Number(account))
  if (own === undefined) return fail(5, "User authorization failed: invalid access_token (4).", name)
  const mayPost = (ownerId: number) => ownerId === own.ownerId
  const ownerParam = Number(params.get("owner_id") ?? own.ownerId)

  if (name === "groups.getById") {
    const group = stateOf(walls, core).get(-Number(params.get("group_id") ?? -own.ownerId))
    if (group === undefined || group.ownerId > 0)
      return fail(100, "One of the parameters specified was missing or invalid: group_id is undefined", name)
    return ok({
      groups: [
        {
          id: -group.ownerId,
          name: group.name,
          screen_name: group.screenName,
          type: "page",
          photo_200: `https://sun.userapi.com/g${-group.ownerId}.jpg`
        }
      ],
      profiles: []
    })
  }
  if (name === "users.get") {
    const user = stateOf(walls, core).get(Number(params.get("user_ids") ?? own.ownerId))
    if (user === undefined || user.ownerId < 0) return fail(113, "Invalid user id", name)
    const [first, ...last] = user.name.split(" ")
    return ok([
      {
        id: user.ownerId,
        first_name: first,
        last_name: last.join(" "),
        screen_name: user.screenName,
        photo_200: `https://sun.userapi.com/u${user.ownerId}.jpg`
      }
    ])
  }
  if (name === "photos.getWallUploadServer") {
    const groupId = params.get("group_id")
    if (groupId !== undefined && !mayPost(-Number(groupId)))
      return fail(27, "Group authorization failed: method is unavailable with group auth.", name)
    const gid = groupId ?? "0"
    return ok({
      album_id: -14,
      upload_url: `${core.baseOf(NETWORK)}/upload.php?act=do_add&mid=${Math.max(own.ownerId, 0)}&aid=-14&gid=${gid}&hash=${core.newId()}&api=1&wallphoto=1`,
      user_id: Math.max(own.ownerId, 0)
    })
  }
  if (name === "photos.saveWallPhoto") {
    const hash = params.get("hash") ?? ""
    const saved = stateOf(uploads, core).get(hash)
    if (saved === undefined || String(saved.server) !== params.get("server")) return fail(121, "Invalid hash", name)
    if (!mayPost(saved.ownerId)) return fail(100, "One of the parameters specified was missing or invalid: group_id is undefined", name)
    stateOf(uploads, core).delete(hash)
    const photo: Photo = { id: 457239000 + next(core, "photo"), ownerId: saved.ownerId, mime: saved.mime, size: saved.size }
    stateOf(photos, core).set(`photo${photo.ownerId}_${photo.id}`, photo)
    return ok([{ id: photo.id, owner_id: photo.ownerId, album_id: -14, date: Math.floor(Date.now() / 1000), sizes: [] }])
  }

  /** The saved photos an attachments list names; a string when one is unknown or too many. */
  const attached = (): ReadonlyArray<Photo> | string => {
    const list = (params.get("attachments") ?? "").split(",").filter((a) => a !== "")
    if (list.length > MAX_ATTACHMENTS) return "attachments: too many"
    const found = list.map((a) => stateOf(photos, core).get(a))
    return found.some((p) => p === undefined) ? "attachments is invalid" : (found as ReadonlyArray<Photo>)
  }
  const guard = (kind: string) => {
    const guid = params.get("guid")
    return guid === undefined ? null : `${kind}:${ownerParam}:${guid}`
  }
  const media = (list: ReadonlyArray<Photo>) => list.map((p) => ({ id: String(p.id), mime: p.mime, size: p.size }))

  if (name === "wall.post") {
    if (!mayPost(ownerParam)) return fail(214, "Access to adding post denied", name)
    const key = guard("post")
    const earlier = key === null ? undefined : stateOf(guids, core).get(key)
    if (earlier !== undefined) return ok({ post_id: Number(earlier) })
    const text = params.get("message") ?? ""
    const files = attached()
    if (typeof files === "string") return fail(100, `One of the parameters specified was missing or invalid: ${files}`, name)
    if (text === "" && files.length === 0) return fail(100, "One of the parameters specified was missing or invalid: message is empty", name)
    if ([...text].length > MAX_TEXT) return fail(100, "One of the parameters specified was missing or invalid: message is too long", name)
    const id = next(core, `wall${ownerParam}`)
    core.record({
      network: NETWORK,
      id: String(id),
      url: `https://vk.com/wall${ownerParam}_${id}`,
      account: String(ownerParam),
      text,
      replyTo: null,
      media: media(files),
      dedupeKey: params.get("guid") ?? null,
      extra: { from_group: params.get("from_group") ?? "0" }
    })
    if (key !== null) stateOf(guids, core).set(key, String(id))
    return ok({ post_id: id })
  }
  if (name === "wall.createComment") {
    const postId = params.get("post_id") ?? ""
    const post = core.posts.find(
      (p) => p.network === NETWORK && p.account === String(ownerParam) && p.id === postId && p.extra["post_id"] === undefined
    )
    if (post === undefined) return fail(100, "One of the parameters specified was missing or invalid: post_id is undefined", name)
    const key = guard(`comment${postId}`)
    const earlier = key === null ? undefined : stateOf(guids, core).get(key)
    if (earlier !== undefined) return ok({ comment_id: Number(earlier), parents_stack: [] })
    const text = params.get("message") ?? ""
    const files = attached()
    if (typeof files === "string") return fail(100, `One of the parameters specified was missing or invalid: ${files}`, name)
    if (text === "" && files.length === 0) return fail(100, "One of the parameters specified was missing or invalid: message is empty", name)
    const fromGroup = params.get("from_group")
    if (fromGroup !== undefined && fromGroup !== "0" && !mayPost(-Number(fromGroup))) return fail(15, "Access denied: from_group", name)
    const id = next(core, `wall${ownerParam}`)
    const replyTo = params.get("reply_to_comment") ?? postId
    core.record({
      network: NETWORK,
      id: String(id),
      url: `https://vk.com/wall${ownerParam}_${postId}?reply=${id}`,
      account: String(ownerParam),
      text,
      replyTo,
      media: media(files),
      dedupeKey: params.get("guid") ?? null,
      extra: { post_id: postId, from_group: fromGroup ?? "0" }
    })
    if (key !== null) stateOf(guids, core).set(key, String(id))
    return ok({ comment_id: id, parents_stack: [] })
  }
  if (name === "wall.get") {
    const count = Math.min(100, Number(params.get("count") ?? "20"))
    const items = core
      .visiblePosts(NETWORK, String(ownerParam))
      .filter((p) => p.extra["post_id"] === undefined)
      .slice()
      .reverse()
    return ok({ count: items.length, items: items.slice(0, count).map(postJson) })
  }
  if (name === "wall.getComments") {
    const postId = params.get("post_id") ?? ""
    const count = Math.min(100, Number(params.get("count") ?? "10"))
    const items = core.visiblePosts(NETWORK, String(ownerParam)).filter((p) => p.extra["post_id"] === postId)
    const sorted = params.get("sort") === "desc" ? items.slice().reverse() : items
    return ok({
      count: items.length,
      items: sorted.slice(0, count).map((p) => ({ id: Number(p.id), from_id: ownerParam, post_id: Number(postId), text: p.text }))
    })
  }
  if (name === "wall.getById") {
    const wanted = (params.get("posts") ?? "").split(",")
    const items = core.posts.filter((p) => p.network === NETWORK && p.extra["post_id"] === undefined && wanted.includes(`${p.account}_${p.id}`))
    return ok({ items: items.map(postJson), profiles: [], groups: [] })
  }
  return fail(3, "Unknown method passed", name)
}

export const vkModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ VK_API_URL: `${base}/method`, VK_AUTH_URL: base, VK_CLIENT_ID: "sim-vk-app" }),
  handle,
  opOf: ({ path }) =>
    /\/wall\.(post|createComment)$/.test(path)
      ? "publish"
      : path === "/upload.php" || path.includes("/photos.")
        ? "media"
        : /\/wall\.(get|getComments)$/.test(path)
          ? "search"
          : path === "/authorize" || path === "/oauth2/auth"
            ? "token"
            : "account",
  rejectBody: () => fail(100, "One of the parameters specified was missing or invalid: message is too long", "wall.post"),
  expiredTokenBody: () => fail(5, "User authorization failed: access_token has expired.", "wall.post"),
  searchUnavailableBody: () => fail(10, "Internal server error", "wall.get"),
  seed: (core, input) =>
    seedVkWall(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(input["community"] === false ? { community: false } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [vkModule]
