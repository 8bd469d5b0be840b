import { createHash } from "node:crypto"
import {
  bearerOf,
  formBody,
  jsonBody,
  type NetworkModule,
  type SimCore,
  type SimRequest,
  type SimResponse,
  stateOf
} from "../../../test/support/simulator/core.js"

/**
 * Kick as docs.kick.com documents it: the OAuth 2.1 server (id.kick.com: GET /oauth/authorize,
 * approved at once, PKCE S256 required; POST /oauth/token for authorization_code and
 * refresh_token, each refresh answering a new refresh token, `expires_in` 7200) and the public
 * API under /public/v1: GET /users (the token's user), GET /channels (the token's channel),
 * POST /chat (`type` user with `broadcaster_user_id`, `content` up to 500 characters,
 * `reply_to_message_id`) answering `{data: {is_sent, message_id}, message}`. Errors are
 * `{data: {}, message}`.
 */
const NETWORK = "kick"
const HOUR = 3600_000

interface Account {
  readonly id: number
  readonly name: string
  readonly slug: string
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const codes = new WeakMap<SimCore, Map<string, { readonly account: string; readonly redirectUri: string; readonly challenge: string }>>()

const problem = (status: number, message: string): SimResponse => ({ status, body: { data: {}, message } })
const unauthorized = problem(401, "Unauthorized")

const tokensFor = (core: SimCore, account: string, ttlMs = 2 * HOUR) => ({
  access_token: core.issueToken(NETWORK, account, "access", ttlMs),
  refresh_token: core.issueToken(NETWORK, account, "refresh", null),
  token_type: "Bearer",
  expires_in: Math.floor(ttlMs / 1000),
  scope: "user:read channel:read chat:write"
})

export const seedKickAccount = (core: SimCore, input: { readonly name?: string; readonly expiresInMs?: number } = {}) => {
  const all = stateOf(accounts, core)
  const id = 70000 + all.size + Math.floor(Math.random() * 1000) * 100
  const name = input.name ?? `streamer${all.size + 1}`
  all.set(String(id), { id, name, slug: name.toLowerCase() })
  const ttl = Math.max(1, input.expiresInMs ?? 2 * HOUR)
  const t = tokensFor(core, String(id), ttl)
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString(), broadcasterUserId: id }
}

const token = (request: SimRequest, core: SimCore): SimResponse => {
  const form = formBody(request)
  if (form.get("client_id") === null || form.get("client_id") === "" || form.get("client_secret") === "")
    return { status: 401, body: { error: "invalid_client", error_description: "Client authentication failed" } }
  if (form.get("grant_type") === "authorization_code") {
    const code = stateOf(codes, core).get(form.get("code") ?? "")
    if (code === undefined || code.redirectUri !== form.get("redirect_uri"))
      return { status: 400, body: { error: "invalid_grant", error_description: "The authorization code is invalid or expired" } }
    const verifier = form.get("code_verifier") ?? ""
    if (createHash("sha256").update(verifier).digest("base64url") !== code.challenge)
      return { status: 400, body: { error: "invalid_grant", error_description: "The code_verifier does not match the code_challenge" } }
    stateOf(codes, core).delete(form.get("code") ?? "")
    return { status: 200, body: tokensFor(core, code.account) }
  }
  if (form.get("grant_type") === "refresh_token") {
    const value = form.get("refresh_token") ?? ""
    const found = core.tokens.get(value)
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh")
      return { status: 400, body: { error: "invalid_grant", error_description: "The refresh token is invalid" } }
    // each refresh answers a new refresh token
    core.tokens.delete(value)
    return { status: 200, body: tokensFor(core, found.account) }
  }
  return { status: 400, body: { error: "unsupported_grant_type", error_description: "Unsupported grant_type" } }
}

const chat = (request: SimRequest, core: SimCore, account: Account): SimResponse => {
  const raw = jsonBody(request)
  const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
  if (body["type"] !== "user" && body["type"] !== "bot") return problem(422, "The type field must be user or bot.")
  const content = typeof body["content"] === "string" ? body["content"] : ""
  if (content === "") return problem(422, "The content field is required.")
  if ([...content].length > 500) return problem(422, "The content field must not be greater than 500 characters.")
  const broadcaster = body["broadcaster_user_id"]
  if (body["type"] === "user" && typeof broadcaster !== "number") return problem(422, "The broadcaster user id field is required when type is user.")
  const channel = typeof broadcaster === "number" ? stateOf(accounts, core).get(String(broadcaster)) : account
  if (channel === undefined) return problem(404, "Channel not found.")
  const replyTo = typeof body["reply_to_message_id"] === "string" ? body["reply_to_message_id"] : null
  const id = crypto.randomUUID()
  core.record({
    network: NETWORK,
    id,
    url: `https://kick.com/${channel.slug}`,
    account: String(channel.id),
    text: content,
    replyTo,
    media: [],
    dedupeKey: null,
    extra: { type: body["type"], sender: account.id }
  })
  return { status: 200, body: { data: { is_sent: true, message_id: id }, message: "OK" } }
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/oauth/authorize") {
    if (request.query.get("code_challenge_method") !== "S256" || (request.query.get("code_challenge") ?? "") === "")
      return problem(400, "PKCE is required: code_challenge with code_challenge_method S256.")
    const all = stateOf(accounts, core)
    if (all.size === 0) seedKickAccount(core, { name: "Streamer" })
    const account = all.keys().next().value ?? ""
    const code = `code-${core.newId()}`
    const redirectUri = request.query.get("redirect_uri") ?? ""
    stateOf(codes, core).set(code, { account, redirectUri, challenge: request.query.get("code_challenge") ?? "" })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/oauth/token") return token(request, core)
  const accountId = core.accountOf(NETWORK, bearerOf(request))
  const account = accountId === null ? undefined : stateOf(accounts, core).get(accountId)
  if (account === undefined) return unauthorized
  if (method === "GET" && path === "/public/v1/users")
    return {
      status: 200,
      body: {
        data: [{ user_id: account.id, name: account.name, email: "", profile_picture: `https://files.kick.com/${account.id}.webp` }],
        message: "OK"
      }
    }
  if (method === "GET" && path === "/public/v1/channels")
    return { status: 200, body: { data: [{ broadcaster_user_id: account.id, slug: account.slug, stream_title: "" }], message: "OK" } }
  if (method === "POST" && path === "/public/v1/chat") return chat(request, core, account)
  return undefined
}

export const kickModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ KICK_API_URL: `${base}/public/v1`, KICK_AUTH_URL: base, KICK_CLIENT_ID: "sim-client", KICK_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) => (method === "POST" && path === "/public/v1/chat" ? "publish" : path.startsWith("/oauth") ? "token" : "account"),
  rejectBody: (status) => problem(status ?? 422, "The content field must not be greater than 500 characters."),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedKickAccount(core, {
      ...(typeof input["name"] === "string" ? { name: input["name"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [kickModule]
