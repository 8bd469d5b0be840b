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
import { behaviours, type SimSoftware, type SoftwareBehaviour, simSoftwareOf } from "./simulatorSoftware.js"

/**
 * Mastodon's API as the adapter uses it (docs.joinmastodon.org): apps, OAuth (the
 * authorize page approves at once, as `?account=` or the first account), the account,
 * media, statuses with Idempotency-Key, an account's statuses and one status. Other servers
 * that speak the Mastodon API are instances under `/mastodon/<software>` (pixelfed,
 * gotosocial, pleroma, akkoma, friendica, sharkey), each answering with its documented
 * differences (./simulatorSoftware.ts), NodeInfo and GET /api/v1/instance included.
 */

const NETWORK = "mastodon"

interface Account {
  readonly id: string
  readonly username: string
  readonly software: SimSoftware
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

/** The instance's address: the network's base for Mastodon, `<base>/<software>` for the others. */
const baseOf = (core: SimCore, software: SimSoftware) => (software === "mastodon" ? core.baseOf(NETWORK) : `${core.baseOf(NETWORK)}/${software}`)

const accountJson = (core: SimCore, a: Account) => ({
  id: a.id,
  username: a.username,
  acct: a.username,
  display_name: a.username[0]!.toUpperCase() + a.username.slice(1),
  avatar: `${baseOf(core, a.software)}/avatars/${a.id}.png`,
  followers_count: 42,
  following_count: 7,
  statuses_count: core.posts.filter((p) => p.network === NETWORK && p.account === a.id).length
})

export const seedMastodonAccount = (core: SimCore, input: { readonly username?: string; readonly software?: SimSoftware } = {}) => {
  const all = stateOf(accounts, core)
  const software = input.software ?? "mastodon"
  const username = input.username ?? `user${all.size + 1}`
  const existing = [...all.values()].find((a) => a.username === username && a.software === software)
  const account = existing ?? { id: String(100000 + all.size + 1), username, software }
  all.set(account.id, account)
  return { instance: baseOf(core, software), accessToken: core.issueToken(NETWORK, account.id, "access", null), accountId: account.id }
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
const refuse = (b: SoftwareBehaviour, status: number, text: string): SimResponse => ({ status, body: { [b.errorField]: text } })

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

/** The instance a request is for, and its path on that instance. */
const instanceOf = (path: string): { readonly software: SimSoftware; readonly path: string } => {
  const match = /^\/([a-z]+)(\/.*)?$/.exec(path)
  const software = match === null ? null : simSoftwareOf(match[1]!)
  return software === null || software === "mastodon" ? { software: "mastodon", path } : { software, path: match?.[2] ?? "/" }
}

/** NodeInfo (nodeinfo.diaspora.software/protocol) and GET /api/v1/instance: who the server is and its limits. */
const aboutServer = (path: string, core: SimCore, software: SimSoftware, b: SoftwareBehaviour): SimResponse | undefined => {
  const base = baseOf(core, software)
  if (path === "/.well-known/nodeinfo")
    return { status: 200, body: { links: [{ rel: "http://nodeinfo.diaspora.software/ns/schema/2.0", href: `${base}/nodeinfo/2.0` }] } }
  if (path === "/nodeinfo/2.0")
    return {
      status: 200,
      body: {
        version: "2.0",
        software: { name: b.nodeInfoName, version: b.nodeInfoVersion },
        protocols: ["activitypub"],
        services: { inbound: [], outbound: [] },
        openRegistrations: false,
        usage: { users: { total: stateOf(accounts, core).size } },
        metadata: {}
      }
    }
  if (path === "/api/v1/instance")
    return {
      status: 200,
      body: {
        uri: base,
        title: `A ${b.nodeInfoName} instance`,
        version: b.version,
        ...(b.limitsIn === "max_toot_chars"
          ? { max_toot_chars: b.maxCharacters }
          : {
              configuration: {
                statuses: { max_characters: b.maxCharacters, max_media_attachments: b.maxMedia ?? 1000, characters_reserved_per_url: 23 }
              }
            })
      }
    }
  return undefined
}

const handle = (raw: SimRequest, core: SimCore): SimResponse | undefined => {
  const { software, path } = instanceOf(raw.path)
  const request = { ...raw, path }
  const b = behaviours[software]
  const base = baseOf(core, software)
  const { method } = request
  const about = method === "GET" ? aboutServer(path, core, software, b) : undefined
  if (about !== undefined) return about
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
    const here = [...stateOf(accounts, core).values()].filter((a) => a.software === software)
    const account = here.find((a) => a.username === wanted) ?? (wanted === null ? here[0] : undefined)
    const accountId = account?.id ?? seedMastodonAccount(core, { username: wanted ?? "alice", software }).accountId
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
  // a token is good only on the instance that issued it
  if (account === undefined || account.software !== software) return unauthorized
  if (method === "GET" && path === "/api/v1/accounts/verify_credentials") return { status: 200, body: accountJson(core, account) }
  const upload = /^\/api\/(v1|v2)\/media$/.exec(path)
  if (method === "POST" && upload !== null) {
    if (upload[1] === "v2" && !b.v2Media) return refuse(b, 404, "Not Found")
    const { fields, files } = parseMultipart(request.headers, request.body)
    const file = files.find((f) => f.field === "file")
    if (file === undefined) return refuse(b, 422, "Validation failed: File can't be blank")
    const id = core.newId()
    stateOf(media, core).set(id, { mime: file.mime, size: file.bytes.length, alt: fields["description"] ?? "" })
    // v2: videos are processed after the answer, as Mastodon does: 202 without a url, ready a moment later
    if (upload[1] === "v2" && file.mime.startsWith("video/")) {
      stateOf(processing, core).set(id, Date.now() + 1500)
      return { status: 202, body: { id, type: "video", url: null, description: fields["description"] ?? "" } }
    }
    return { status: 200, body: { id, type: file.mime.split("/")[0], url: `${base}/media/${id}`, description: fields["description"] ?? "" } }
  }
  if (method === "POST" && path === "/api/v1/statuses") {
    const key = request.headers["idempotency-key"]
    const keys = stateOf(idempotency, core)
    const dedupe = typeof key === "string" && b.idempotency !== "ignores" ? `${accountId}:${key}` : null
    const earlier = dedupe === null ? undefined : keys.get(dedupe)
    const seen = earlier === undefined ? undefined : core.posts.find((p) => p.network === NETWORK && p.id === earlier)
    if (seen !== undefined)
      return b.idempotency === "replays" ? { status: 200, body: statusJson(core, seen) } : refuse(b, 400, "Duplicate idempotency key.")
    const fields = fieldsOf(request)
    const text = typeof fields["status"] === "string" ? fields["status"] : ""
    const mediaIds = Array.isArray(fields["media_ids"]) ? fields["media_ids"].map(String) : []
    const replyTo = typeof fields["in_reply_to_id"] === "string" ? fields["in_reply_to_id"] : null
    if (b.mediaRequired && mediaIds.length === 0 && replyTo === null) return refuse(b, 403, "Empty statuses are not allowed")
    if (text === "" && mediaIds.length === 0) return refuse(b, 422, "Validation failed: Text can't be blank")
    if ([...text].length > b.maxCharacters) return refuse(b, 422, b.tooLong(b.maxCharacters, [...text].length))
    if (b.maxMedia !== null && mediaIds.length > b.maxMedia) return refuse(b, 422, `Validation failed: at most ${b.maxMedia} media attachments`)
    const visibility = typeof fields["visibility"] === "string" ? fields["visibility"] : "public"
    if (!b.visibilities.includes(visibility)) return refuse(b, 422, `Validation failed: visibility ${visibility} is not available`)
    if (replyTo !== null && !core.posts.some((p) => p.network === NETWORK && p.id === replyTo)) return refuse(b, 404, "Record not found")
    const known = stateOf(media, core)
    if (mediaIds.some((id) => !known.has(id))) return refuse(b, 422, "Validation failed: Media attachments are invalid")
    if (mediaIds.some((id) => Date.now() < (stateOf(processing, core).get(id) ?? 0))) {
      return refuse(b, 422, "Cannot attach files that have not finished processing. Try again in a moment!")
    }
    const id = String(110000000000000 + core.posts.length + 1)
    const post = core.record({
      network: NETWORK,
      id,
      url: software === "pixelfed" ? `${base}/p/${account.username}/${id}` : `${base}/@${account.username}/${id}`,
      account: accountId,
      text,
      replyTo,
      media: mediaIds.map((m) => ({ id: m, ...known.get(m)! })),
      dedupeKey: dedupe === null ? null : String(key),
      extra: { visibility, software }
    })
    if (dedupe !== null) keys.set(dedupe, id)
    return { status: 200, body: statusJson(core, post) }
  }
  const mediaOne = /^\/api\/v1\/media\/([^/]+)$/.exec(path)
  if (method === "GET" && mediaOne !== null) {
    const readyAt = stateOf(processing, core).get(mediaOne[1]!) ?? 0
    if (Date.now() < readyAt) return { status: 206, body: { id: mediaOne[1], url: null } }
    return { status: 200, body: { id: mediaOne[1], url: `${base}/media/${mediaOne[1]}` } }
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
    return post === undefined ? refuse(b, 404, "Record not found") : { status: 200, body: statusJson(core, post) }
  }
  return undefined
}

/** The seed's `software` (an instance of that server), when it names one the simulator plays. */
const softwareInput = (value: unknown): { readonly software?: SimSoftware } => {
  const software = typeof value === "string" ? simSoftwareOf(value) : null
  return software === null ? {} : { software }
}

export const mastodonModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ MASTODON_URL: base }),
  handle,
  opOf: (request) => {
    const { method } = request
    const { path } = instanceOf(request.path)
    return method === "POST" && path === "/api/v1/statuses"
      ? "publish"
      : path === "/.well-known/nodeinfo" || path.startsWith("/nodeinfo/")
        ? "nodeinfo"
        : /^\/api\/v[12]\/media/.test(path)
          ? "media"
          : /\/accounts\/[^/]+\/statuses$/.test(path)
            ? "search"
            : path.startsWith("/oauth") || path === "/api/v1/apps"
              ? "token"
              : "account"
  },
  rejectBody: (status) => ({ status: status ?? 422, body: { error: `Validation failed: Text character limit of 500 exceeded` } }),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedMastodonAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...softwareInput(input["software"])
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [mastodonModule]
