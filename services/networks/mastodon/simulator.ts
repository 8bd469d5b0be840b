import {
  bearerOf,
  formBody,
  jsonBody,
  parseMultipart,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Mastodon's API as the adapter uses it (docs.joinmastodon.org): apps, OAuth (the
 * authorize page approves at once, as `?account=` or the first account), the account,
 * media, statuses with Idempotency-Key, an account's statuses and one status.
 */

const NETWORK = "mastodon"
const MAX_CHARS = 500

interface Account {
  readonly id: string
  readonly username: string
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const apps = new WeakMap<SimCore, Map<string, { readonly secret: string; readonly redirectUri: string }>>()
const codes = new WeakMap<SimCore, Map<string, { readonly account: string; readonly clientId: string; readonly redirectUri: string }>>()
const media = new WeakMap<SimCore, Map<string, { readonly mime: string; readonly size: number; readonly alt: string }>>()
/** Files still being processed: id → when they are ready. */
const processing = new WeakMap<SimCore, Map<string, number>>()
/** Idempotency-Key → status id, per account (Mastodon keeps them an hour). */
const idempotency = new WeakMap<SimCore, Map<string, string>>()

const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")
/** Mastodon renders a status's text as paragraphs of HTML. */
const toHtml = (text: string) =>
  text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br />")}</p>`)
    .join("")

const accountJson = (core: SimCore, a: Account) => ({
  id: a.id,
  username: a.username,
  acct: a.username,
  display_name: a.username[0]!.toUpperCase() + a.username.slice(1),
  avatar: `${core.baseOf(NETWORK)}/avatars/${a.id}.png`,
  followers_count: 42,
  following_count: 7,
  statuses_count: core.posts.filter((p) => p.network === NETWORK && p.account === a.id).length
})

export const seedMastodonAccount = (core: SimCore, input: { readonly username?: string } = {}) => {
  const all = stateOf(accounts, core)
  const username = input.username ?? `user${all.size + 1}`
  const existing = [...all.values()].find((a) => a.username === username)
  const account = existing ?? { id: String(100000 + all.size + 1), username }
  all.set(account.id, account)
  return { instance: core.baseOf(NETWORK), accessToken: core.issueToken(NETWORK, account.id, "access", null), accountId: account.id }
}

const statusJson = (core: SimCore, post: (typeof core.posts)[number]) => ({
  id: post.id,
  url: post.url,
  uri: post.url,
  content: toHtml(post.text),
  created_at: post.at.toISOString(),
  in_reply_to_id: post.replyTo,
  visibility: post.extra["visibility"] ?? "public",
  media_attachments: post.media.map((m) => ({ id: m.id, type: "image", description: m.alt ?? "" })),
  favourites_count: 3,
  reblogs_count: 1,
  replies_count: core.posts.filter((p) => p.replyTo === post.id).length
})

const unauthorized: SimResponse = { status: 401, body: { error: "The access token is invalid" } }

/** JSON or form fields of a request (Mastodon takes both). */
const fieldsOf = (request: SimRequest): Record<string, unknown> => {
  const type = request.headers["content-type"] ?? ""
  if (type.includes("json")) {
    const body = jsonBody(request)
    return typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {}
  }
  const form = formBody(request)
  const out: Record<string, unknown> = {}
  for (const [k, v] of form) {
    if (k.endsWith("[]")) out[k.slice(0, -2)] = [...((out[k.slice(0, -2)] as Array<string> | undefined) ?? []), v]
    else out[k] = v
  }
  return out
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "POST" && path === "/api/v1/apps") {
    const fields = fieldsOf(request)
    const id = `app-${core.newId()}`
    const secret = `secret-${core.newId()}`
    stateOf(apps, core).set(id, { secret, redirectUri: String(fields["redirect_uris"] ?? "") })
    return { status: 200, body: { id, name: fields["client_name"], client_id: id, client_secret: secret, redirect_uri: fields["redirect_uris"] } }
  }
  if (method === "GET" && path === "/oauth/authorize") {
    const clientId = request.query.get("client_id") ?? ""
    const redirectUri = request.query.get("redirect_uri") ?? ""
    const app = stateOf(apps, core).get(clientId)
    if (app === undefined || app.redirectUri !== redirectUri) return { status: 400, body: { error: "invalid_client" } }
    const wanted = request.query.get("account")
    const account = [...stateOf(accounts, core).values()].find((a) => a.username === wanted) ?? stateOf(accounts, core).values().next().value
    const accountId = account?.id ?? seedMastodonAccount(core, { username: wanted ?? "alice" }).accountId
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { account: accountId, clientId, redirectUri })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/oauth/token") {
    const fields = fieldsOf(request)
    const code = stateOf(codes, core).get(String(fields["code"] ?? ""))
    const app = stateOf(apps, core).get(String(fields["client_id"] ?? ""))
    if (code === undefined || app === undefined || app.secret !== fields["client_secret"] || code.redirectUri !== fields["redirect_uri"]) {
      return { status: 400, body: { error: "invalid_grant", error_description: "The provided authorization grant is invalid" } }
    }
    stateOf(codes, core).delete(String(fields["code"]))
    return {
      status: 200,
      body: { access_token: core.issueToken(NETWORK, code.account, "access", null), token_type: "Bearer", scope: "read write", created_at: 0 }
    }
  }
  const accountId = core.accountOf(NETWORK, bearerOf(request))
  if (accountId === null) return unauthorized
  const account = stateOf(accounts, core).get(accountId)
  if (account === undefined) return unauthorized
  if (method === "GET" && path === "/api/v1/accounts/verify_credentials") return { status: 200, body: accountJson(core, account) }
  if (method === "POST" && path === "/api/v2/media") {
    const { fields, files } = parseMultipart(request.headers, request.body)
    const file = files.find((f) => f.field === "file")
    if (file === undefined) return { status: 422, body: { error: "Validation failed: File can't be blank" } }
    const id = core.newId()
    stateOf(media, core).set(id, { mime: file.mime, size: file.bytes.length, alt: fields["description"] ?? "" })
    // videos are processed after the answer, as Mastodon does: 202 without a url, ready a moment later
    if (file.mime.startsWith("video/")) {
      stateOf(processing, core).set(id, Date.now() + 1500)
      return { status: 202, body: { id, type: "video", url: null, description: fields["description"] ?? "" } }
    }
    return { status: 200, body: { id, type: "image", url: `${core.baseOf(NETWORK)}/media/${id}`, description: fields["description"] ?? "" } }
  }
  if (method === "POST" && path === "/api/v1/statuses") {
    const key = request.headers["idempotency-key"]
    const keys = stateOf(idempotency, core)
    const dedupe = typeof key === "string" ? `${accountId}:${key}` : null
    const earlier = dedupe === null ? undefined : keys.get(dedupe)
    const seen = earlier === undefined ? undefined : core.posts.find((p) => p.network === NETWORK && p.id === earlier)
    if (seen !== undefined) return { status: 200, body: statusJson(core, seen) }
    const fields = fieldsOf(request)
    const text = typeof fields["status"] === "string" ? fields["status"] : ""
    const mediaIds = Array.isArray(fields["media_ids"]) ? fields["media_ids"].map(String) : []
    if (text === "" && mediaIds.length === 0) return { status: 422, body: { error: "Validation failed: Text can't be blank" } }
    if ([...text].length > MAX_CHARS) return { status: 422, body: { error: `Validation failed: Text character limit of ${MAX_CHARS} exceeded` } }
    const replyTo = typeof fields["in_reply_to_id"] === "string" ? fields["in_reply_to_id"] : null
    if (replyTo !== null && !core.posts.some((p) => p.network === NETWORK && p.id === replyTo))
      return { status: 404, body: { error: "Record not found" } }
    const known = stateOf(media, core)
    if (mediaIds.some((id) => !known.has(id))) return { status: 422, body: { error: "Validation failed: Media attachments are invalid" } }
    if (mediaIds.some((id) => Date.now() < (stateOf(processing, core).get(id) ?? 0))) {
      return { status: 422, body: { error: "Cannot attach files that have not finished processing. Try again in a moment!" } }
    }
    const id = String(110000000000000 + core.posts.length + 1)
    const post = core.record({
      network: NETWORK,
      id,
      url: `${core.baseOf(NETWORK)}/@${account.username}/${id}`,
      account: accountId,
      text,
      replyTo,
      media: mediaIds.map((m) => ({ id: m, ...known.get(m)! })),
      dedupeKey: typeof key === "string" ? key : null,
      extra: { visibility: fields["visibility"] ?? "public" }
    })
    if (dedupe !== null) keys.set(dedupe, id)
    return { status: 200, body: statusJson(core, post) }
  }
  const mediaOne = /^\/api\/v1\/media\/([^/]+)$/.exec(path)
  if (method === "GET" && mediaOne !== null) {
    const readyAt = stateOf(processing, core).get(mediaOne[1]!) ?? 0
    if (Date.now() < readyAt) return { status: 206, body: { id: mediaOne[1], url: null } }
    return { status: 200, body: { id: mediaOne[1], url: `${core.baseOf(NETWORK)}/media/${mediaOne[1]}` } }
  }
  const statusesOf = /^\/api\/v1\/accounts\/([^/]+)\/statuses$/.exec(path)
  if (method === "GET" && statusesOf !== null) {
    const limit = Number(request.query.get("limit") ?? "20")
    const visible = core.visiblePosts(NETWORK, statusesOf[1]!).slice().reverse().slice(0, limit)
    return { status: 200, body: visible.map((p) => statusJson(core, p)) }
  }
  const one = /^\/api\/v1\/statuses\/([^/]+)$/.exec(path)
  if (method === "GET" && one !== null) {
    const post = core.posts.find((p) => p.network === NETWORK && p.id === one[1])
    return post === undefined ? { status: 404, body: { error: "Record not found" } } : { status: 200, body: statusJson(core, post) }
  }
  return undefined
}

export const mastodonModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ MASTODON_URL: base }),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && path === "/api/v1/statuses"
      ? "publish"
      : path.startsWith("/api/v2/media")
        ? "media"
        : /\/accounts\/[^/]+\/statuses$/.test(path)
          ? "search"
          : path.startsWith("/oauth") || path === "/api/v1/apps"
            ? "token"
            : "account",
  rejectBody: (status) => ({ status: status ?? 422, body: { error: `Validation failed: Text character limit of ${MAX_CHARS} exceeded` } }),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) => seedMastodonAccount(core, { ...(typeof input["username"] === "string" ? { username: input["username"] } : {}) })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [mastodonModule]
