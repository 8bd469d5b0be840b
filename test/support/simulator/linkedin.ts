import { bearerOf, formBody, jsonBody, type NetworkModule, type SimCore, type SimRequest, type SimResponse, stateOf } from "./core.js"

/**
 * LinkedIn as the adapter uses it: OAuth (/oauth/v2/authorization approves at once,
 * /oauth/v2/accessToken), /v2/userinfo, /rest/images?action=initializeUpload plus the PUT
 * of the bytes, /rest/posts (id in x-restli-id), /rest/socialActions/{urn}/comments.
 * Every /rest call must carry LinkedIn-Version.
 */
const NETWORK = "linkedin"

interface Member {
  readonly sub: string
  readonly name: string
  /** An app without LinkedIn's partner refresh: its tokens come without a refresh token. */
  readonly noRefreshToken: boolean
}

const members = new WeakMap<SimCore, Map<string, Member>>()
const codes = new WeakMap<SimCore, Map<string, { readonly sub: string; readonly redirectUri: string }>>()
const images = new WeakMap<SimCore, Map<string, { uploaded: boolean; mime: string; size: number }>>()

const DAY = 86_400_000

const tokensFor = (core: SimCore, sub: string, ttlMs = 60 * DAY) => {
  const access = { access_token: core.issueToken(NETWORK, sub, "access", ttlMs), expires_in: Math.floor(ttlMs / 1000) }
  if (stateOf(members, core).get(sub)?.noRefreshToken === true) return access
  return { ...access, refresh_token: core.issueToken(NETWORK, sub, "refresh", null), refresh_token_expires_in: 365 * 86400 }
}

export const seedLinkedInAccount = (
  core: SimCore,
  input: { readonly name?: string; readonly expiresInMs?: number; readonly noRefreshToken?: boolean } = {}
) => {
  const all = stateOf(members, core)
  const member: Member = { sub: `m${core.newId()}`, name: input.name ?? `Member ${all.size + 1}`, noRefreshToken: input.noRefreshToken === true }
  all.set(member.sub, member)
  const ttl = input.expiresInMs ?? 60 * DAY
  const t = tokensFor(core, member.sub, Math.max(1, ttl))
  return {
    accessToken: t.access_token,
    ...("refresh_token" in t ? { refreshToken: t.refresh_token } : {}),
    expiresAt: new Date(Date.now() + ttl).toISOString(),
    author: `urn:li:person:${member.sub}`
  }
}

const error = (status: number, message: string): SimResponse => ({ status, body: { status, serviceErrorCode: 100, code: "ACCESS_DENIED", message } })
const unauthorized = error(401, "Invalid access token")

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/oauth/v2/authorization") {
    const all = stateOf(members, core)
    const sub = all.keys().next().value ?? seedLinkedInAccount(core, { name: "Lee Member" }).author.replace("urn:li:person:", "")
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { sub, redirectUri: request.query.get("redirect_uri") ?? "" })
    const target = new URL(request.query.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/oauth/v2/accessToken") {
    const form = formBody(request)
    if ((form.get("client_secret") ?? "") === "") return { status: 401, body: { error: "invalid_client" } }
    if (form.get("grant_type") === "authorization_code") {
      const code = stateOf(codes, core).get(form.get("code") ?? "")
      if (code === undefined || code.redirectUri !== form.get("redirect_uri"))
        return { status: 400, body: { error: "invalid_request", error_description: "Unable to retrieve access token: authorization code not found" } }
      stateOf(codes, core).delete(form.get("code") ?? "")
      return { status: 200, body: tokensFor(core, code.sub) }
    }
    const value = form.get("refresh_token") ?? ""
    const found = core.tokens.get(value)
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh")
      return { status: 400, body: { error: "invalid_request", error_description: "The provided refresh token is invalid" } }
    return { status: 200, body: tokensFor(core, found.account) }
  }
  const upload = /^\/upload\/([^/]+)$/.exec(path)
  if (method === "PUT" && upload !== null) {
    const image = stateOf(images, core).get(decodeURIComponent(upload[1]!))
    if (image === undefined) return { status: 404, body: "" }
    Object.assign(image, { uploaded: true, mime: request.headers["content-type"] ?? "", size: request.body.length })
    return { status: 201, body: "" }
  }
  const sub = core.accountOf(NETWORK, bearerOf(request))
  if (sub === null) return unauthorized
  const member = stateOf(members, core).get(sub)!
  if (method === "GET" && path === "/v2/userinfo")
    return {
      status: 200,
      body: { sub: member.sub, name: member.name, email: `${member.sub}@example.com`, picture: `https://media.example/${member.sub}.jpg` }
    }
  if (path.startsWith("/rest/") && request.headers["linkedin-version"] === undefined)
    return error(426, "A version must be present. Please specify a version by adding the LinkedIn-Version header.")
  const raw = jsonBody(request)
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  if (method === "POST" && path === "/rest/images" && request.query.get("action") === "initializeUpload") {
    const image = `urn:li:image:${core.newId()}`
    stateOf(images, core).set(image, { uploaded: false, mime: "", size: 0 })
    return {
      status: 200,
      body: { value: { uploadUrlExpiresAt: Date.now() + 3600_000, uploadUrl: `${core.baseOf(NETWORK)}/upload/${encodeURIComponent(image)}`, image } }
    }
  }
  if (method === "POST" && path === "/rest/posts") {
    if (body["author"] !== `urn:li:person:${member.sub}` && !String(body["author"]).startsWith("urn:li:organization:"))
      return error(403, "Not enough permissions to post as this author")
    const text = typeof body["commentary"] === "string" ? body["commentary"].replace(/\\(.)/g, "$1") : ""
    if ([...text].length > 3000) return error(422, "/commentary: length must be at most 3000")
    const content = body["content"] as
      | { media?: { id: string; altText?: string }; multiImage?: { images: Array<{ id: string; altText?: string }> } }
      | undefined
    const attached = content?.media !== undefined ? [content.media] : (content?.multiImage?.images ?? [])
    const known = stateOf(images, core)
    if (attached.some((i) => known.get(i.id)?.uploaded !== true)) return error(422, "/content/media/id: the image is not uploaded")
    const urn = `urn:li:share:${7000000000000000000n + BigInt(core.posts.length + 1)}`
    core.record({
      network: NETWORK,
      id: urn,
      url: `https://www.linkedin.com/feed/update/${urn}/`,
      account: `urn:li:person:${member.sub}`,
      text,
      replyTo: null,
      media: attached.map((i) => ({
        id: i.id,
        mime: known.get(i.id)!.mime,
        size: known.get(i.id)!.size,
        ...(i.altText === undefined ? {} : { alt: i.altText })
      })),
      dedupeKey: null,
      extra: { commentary: body["commentary"], version: request.headers["linkedin-version"] }
    })
    return { status: 201, headers: { "x-restli-id": urn }, body: "" }
  }
  const comments = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(path)
  if (method === "POST" && comments !== null) {
    const target = decodeURIComponent(comments[1]!)
    if (!core.posts.some((p) => p.network === NETWORK && p.id === target)) return error(404, "Not found")
    const message = body["message"] as { text?: string } | undefined
    const id = `urn:li:comment:(${target},${7100000000000000000n + BigInt(core.posts.length + 1)})`
    core.record({
      network: NETWORK,
      id,
      url: `https://www.linkedin.com/feed/update/${target}/`,
      account: `urn:li:person:${member.sub}`,
      text: message?.text ?? "",
      replyTo: target,
      media: [],
      dedupeKey: null,
      extra: {}
    })
    return { status: 201, headers: { "x-restli-id": id }, body: { id, object: target } }
  }
  return undefined
}

export const linkedinModule: NetworkModule = {
  network: NETWORK,
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && (path === "/rest/posts" || path.endsWith("/comments"))
      ? "publish"
      : path.startsWith("/rest/images") || path.startsWith("/upload")
        ? "media"
        : path.startsWith("/oauth")
          ? "token"
          : "account",
  rejectBody: (status) => error(status ?? 422, "/commentary: length must be at most 3000"),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedLinkedInAccount(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {}),
      ...(input["noRefreshToken"] === true ? { noRefreshToken: true } : {})
    })
}
