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
 * Twitch as dev.twitch.tv documents it: the OAuth server (id.twitch.tv: GET /oauth2/authorize,
 * approved at once; POST /oauth2/token for authorization_code and refresh_token, `scope` as a
 * list) and Helix under /helix, each call with the app's `Client-Id`: GET /users (the token's
 * user), POST /chat/messages (`broadcaster_id`, `sender_id`, `message` up to 500 characters,
 * `reply_parent_message_id`; answers `{data: [{message_id, is_sent, drop_reason}]}`) and
 * POST /chat/announcements?broadcaster_id&moderator_id (`message`, `color`; 204 No Content).
 * Errors are `{error, status, message}`.
 */
const NETWORK = "twitch"
const HOUR = 3600_000
const COLORS = ["blue", "green", "orange", "purple", "primary"]

interface Account {
  readonly id: string
  readonly login: string
}

const accounts = new WeakMap<SimCore, Map<string, Account>>()
const codes = new WeakMap<SimCore, Map<string, { readonly account: string; readonly redirectUri: string }>>()

const problem = (status: number, message: string): SimResponse => ({
  status,
  body: { error: status === 401 ? "Unauthorized" : status === 403 ? "Forbidden" : "Bad Request", status, message }
})
const unauthorized = problem(401, "Invalid OAuth token")

const tokensFor = (core: SimCore, account: string, ttlMs = 4 * HOUR) => ({
  access_token: core.issueToken(NETWORK, account, "access", ttlMs),
  refresh_token: core.issueToken(NETWORK, account, "refresh", null),
  expires_in: Math.floor(ttlMs / 1000),
  scope: ["moderator:manage:announcements", "user:read:chat", "user:write:chat"],
  token_type: "bearer"
})

export const seedTwitchAccount = (core: SimCore, input: { readonly login?: string; readonly expiresInMs?: number } = {}) => {
  const all = stateOf(accounts, core)
  const id = String(140000000 + all.size * 7 + Math.floor(Math.random() * 100000) * 10)
  const login = input.login ?? `caster${all.size + 1}`
  all.set(id, { id, login: login.toLowerCase() })
  const ttl = Math.max(1, input.expiresInMs ?? 4 * HOUR)
  const t = tokensFor(core, id, ttl)
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString(), broadcasterId: id }
}

const token = (request: SimRequest, core: SimCore): SimResponse => {
  const form = formBody(request)
  if ((form.get("client_id") ?? "") === "" || (form.get("client_secret") ?? "") === "") return problem(400, "missing client secret")
  if (form.get("grant_type") === "authorization_code") {
    const code = stateOf(codes, core).get(form.get("code") ?? "")
    if (code === undefined || code.redirectUri !== form.get("redirect_uri")) return problem(400, "Invalid authorization code")
    stateOf(codes, core).delete(form.get("code") ?? "")
    return { status: 200, body: tokensFor(core, code.account) }
  }
  if (form.get("grant_type") === "refresh_token") {
    const found = core.tokens.get(form.get("refresh_token") ?? "")
    if (found === undefined || found.network !== NETWORK || found.kind !== "refresh") return problem(400, "Invalid refresh token")
    return { status: 200, body: { ...tokensFor(core, found.account), refresh_token: form.get("refresh_token") } }
  }
  return problem(400, "Invalid grant type")
}

const bodyOf = (request: SimRequest): Record<string, unknown> => {
  const raw = jsonBody(request)
  return typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
}

const sendMessage = (request: SimRequest, core: SimCore, account: Account): SimResponse => {
  const body = bodyOf(request)
  const broadcaster = stateOf(accounts, core).get(typeof body["broadcaster_id"] === "string" ? body["broadcaster_id"] : "")
  if (broadcaster === undefined) return problem(400, "The ID in broadcaster_id is not valid.")
  if (body["sender_id"] !== account.id) return problem(403, "The ID in sender_id must match the user ID in the user access token.")
  const message = typeof body["message"] === "string" ? body["message"] : ""
  if (message === "") return problem(400, 'Missing required parameter "message"')
  if ([...message].length > 500) return problem(400, "The message may not be longer than 500 characters.")
  const replyTo = typeof body["reply_parent_message_id"] === "string" ? body["reply_parent_message_id"] : null
  const id = crypto.randomUUID()
  core.record({
    network: NETWORK,
    id,
    url: `https://www.twitch.tv/${broadcaster.login}`,
    account: broadcaster.id,
    text: message,
    replyTo,
    media: [],
    dedupeKey: null,
    extra: { kind: "message", sender: account.id }
  })
  return { status: 200, body: { data: [{ message_id: id, is_sent: true }] } }
}

const announce = (request: SimRequest, core: SimCore, account: Account): SimResponse => {
  const broadcaster = stateOf(accounts, core).get(request.query.get("broadcaster_id") ?? "")
  if (broadcaster === undefined) return problem(400, "The ID in broadcaster_id is not valid.")
  if (request.query.get("moderator_id") !== account.id) return problem(403, "The ID in moderator_id must match the user ID in the user access token.")
  const body = bodyOf(request)
  const message = typeof body["message"] === "string" ? body["message"] : ""
  if (message === "") return problem(400, 'Missing required parameter "message"')
  if ([...message].length > 500) return problem(400, "The message may not be longer than 500 characters.")
  const color = typeof body["color"] === "string" ? body["color"] : "primary"
  if (!COLORS.includes(color)) return problem(400, "The color is not valid.")
  core.record({
    network: NETWORK,
    id: `announcement-${core.newId()}`,
    url: `https://www.twitch.tv/${broadcaster.login}`,
    account: broadcaster.id,
    text: message,
    replyTo: null,
    media: [],
    dedupeKey: null,
    extra: { kind: "announcement", color }
  })
  return { status: 204 }
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/oauth2/authorize") {
    const all = stateOf(accounts, core)
    if (all.size === 0) seedTwitchAccount(core, { login: "caster" })
    const redirectUri = request.query.get("redirect_uri") ?? ""
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { account: all.keys().next().value ?? "", redirectUri })
    const target = new URL(redirectUri)
    target.searchParams.set("code", code)
    target.searchParams.set("scope", request.query.get("scope") ?? "")
    target.searchParams.set("state", request.query.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/oauth2/token") return token(request, core)
  if (!path.startsWith("/helix/")) return undefined
  if (typeof request.headers["client-id"] !== "string" || request.headers["client-id"] === "") return problem(401, "Client-Id header required")
  const accountId = core.accountOf(NETWORK, bearerOf(request))
  const account = accountId === null ? undefined : stateOf(accounts, core).get(accountId)
  if (account === undefined) return unauthorized
  if (method === "GET" && path === "/helix/users")
    return {
      status: 200,
      body: {
        data: [
          {
            id: account.id,
            login: account.login,
            display_name: account.login,
            type: "",
            broadcaster_type: "affiliate",
            profile_image_url: `https://static-cdn.jtvnw.net/${account.id}.png`
          }
        ]
      }
    }
  if (method === "POST" && path === "/helix/chat/messages") return sendMessage(request, core, account)
  if (method === "POST" && path === "/helix/chat/announcements") return announce(request, core, account)
  return undefined
}

export const twitchModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ TWITCH_API_URL: `${base}/helix`, TWITCH_AUTH_URL: base, TWITCH_CLIENT_ID: "sim-client", TWITCH_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) => (method === "POST" && path.startsWith("/helix/chat/") ? "publish" : path.startsWith("/oauth2") ? "token" : "account"),
  rejectBody: (status) => problem(status ?? 400, "The message may not be longer than 500 characters."),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedTwitchAccount(core, {
      ...(typeof input["login"] === "string" ? { login: input["login"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [twitchModule]
