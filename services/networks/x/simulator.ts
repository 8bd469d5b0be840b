import { createHash } from "node:crypto"
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
 * X API v2 as the adapter uses it: OAuth 2.0 with PKCE (the authorize page approves at
 * once), token refresh that rotates the refresh token, /2/users/me, /2/media/upload,
 * /2/tweets (with replies), /2/users/{id}/tweets, /2/tweets/{id}. Access tokens last 2 hours.
 */
const NETWORK = "x"
const ACCESS_TTL_MS = 2 * 3600_000

interface User {
  readonly id: string
  readonly username: string
}

const users = new WeakMap<SimCore, Map<string, User>>()
const codes = new WeakMap<SimCore, Map<string, { readonly user: string; readonly challenge: string; readonly redirectUri: string }>>()
const media = new WeakMap<SimCore, Map<string, { readonly mime: string; readonly size: number }>>()

const tokensFor = (core: SimCore, userId: string, accessTtlMs = ACCESS_TTL_MS) => ({
  token_type: "bearer",
  expires_in: Math.floor(accessTtlMs / 1000),
  access_token: core.issueToken(NETWORK, userId, "access", accessTtlMs),
  refresh_token: core.issueToken(NETWORK, userId, "refresh", null),
  scope: "tweet.read tweet.write users.read offline.access media.write"
})

/** An account with tokens; `expiresInMs` below 5 minutes makes the adapter refresh first. */
export const seedXAccount = (core: SimCore, input: { readonly username?: string; readonly expiresInMs?: number } = {}) => {
  const all = stateOf(users, core)
  const user: User = { id: String(1500000000000000000n + BigInt(all.size + 1)), username: input.username ?? `xuser${all.size + 1}` }
  all.set(user.id, user)
  const ttl = input.expiresInMs ?? ACCESS_TTL_MS
  const t = tokensFor(core, user.id, Math.max(1, ttl))
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: new Date(Date.now() + ttl).toISOString() }
}

const problem = (status: number, title: string, detail: string): SimResponse => ({
  status,
  body: { title, detail, type: `https://api.x.com/2/problems/${title.toLowerCase().replace(/\s+/g, "-")}`, status }
})
const unauthorized = problem(401, "Unauthorized", "Unauthorized")

/** X counts a link as 23 and most CJK and emoji as 2 (a simplification of twitter-text). */
const weighted = (text: string) => {
  const withoutLinks = text.replace(/https?:\/\/\S+/g, "")
  const links = (text.match(/https?:\/\/\S+/g) ?? []).length
  return links * 23 + [...withoutLinks].reduce((n, ch) => n + ((ch.codePointAt(0) ?? 0) > 0x10ff ? 2 : 1), 0)
}

const handle = (request: SimRequest, core: SimCore): SimResponse | undefined => {
  const { method, path } = request
  if (method === "GET" && path === "/i/oauth2/authorize") {
    const q = request.query
    if (q.get("code_challenge_method") !== "S256" || (q.get("code_challenge") ?? "") === "")
      return problem(400, "Invalid Request", "PKCE is required")
    const all = stateOf(users, core)
    const user = [...all.values()].find((u) => u.username === q.get("account")) ?? all.values().next().value ?? { id: "", username: "" }
    const id =
      user.id !== ""
        ? user.id
        : (() => {
            seedXAccount(core, { username: q.get("account") ?? "xperson" })
            return [...all.values()].at(-1)!.id
          })()
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { user: id, challenge: q.get("code_challenge") ?? "", redirectUri: q.get("redirect_uri") ?? "" })
    const target = new URL(q.get("redirect_uri") ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", q.get("state") ?? "")
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (method === "POST" && path === "/2/oauth2/token") {
    const form = formBody(request)
    const auth = request.headers["authorization"]
    if (typeof auth !== "string" || !auth.startsWith("Basic "))
      return { status: 401, body: { error: "unauthorized_client", error_description: "Missing valid authorization header" } }
    if (form.get("grant_type") === "authorization_code") {
      const code = stateOf(codes, core).get(form.get("code") ?? "")
      const verifier = form.get("code_verifier") ?? ""
      if (
        code === undefined ||
        code.redirectUri !== form.get("redirect_uri") ||
        createHash("sha256").update(verifier).digest("base64url") !== code.challenge
      ) {
        return { status: 400, body: { error: "invalid_request", error_description: "Value passed for the authorization code was invalid." } }
      }
      stateOf(codes, core).delete(form.get("code") ?? "")
      return { status: 200, body: tokensFor(core, code.user) }
    }
    if (form.get("grant_type") === "refresh_token") {
      const value = form.get("refresh_token") ?? ""
      const found = core.tokens.get(value)
      if (found === undefined || found.network !== NETWORK || found.kind !== "refresh") {
        return { status: 400, body: { error: "invalid_request", error_description: "Value passed for the token was invalid." } }
      }
      core.tokens.delete(value) // rotated: the old refresh token stops working
      return { status: 200, body: tokensFor(core, found.account) }
    }
    return { status: 400, body: { error: "unsupported_grant_type" } }
  }
  const userId = core.accountOf(NETWORK, bearerOf(request))
  if (userId === null) return unauthorized
  const user = stateOf(users, core).get(userId)!
  if (method === "GET" && path === "/2/users/me") {
    return {
      status: 200,
      body: {
        data: {
          id: user.id,
          username: user.username,
          name: user.username.toUpperCase(),
          profile_image_url: `https://pbs.example/${user.id}.png`,
          public_metrics: { followers_count: 100, following_count: 10, tweet_count: core.posts.filter((p) => p.account === user.id).length }
        }
      }
    }
  }
  if (method === "POST" && path === "/2/media/upload") {
    const { files } = parseMultipart(request.headers, request.body)
    const file = files.find((f) => f.field === "media")
    if (file === undefined) return problem(400, "Invalid Request", "media is required")
    const id = String(1600000000000000000n + BigInt(stateOf(media, core).size + 1))
    stateOf(media, core).set(id, { mime: file.mime, size: file.bytes.length })
    return { status: 200, body: { data: { id, media_key: `3_${id}` } } }
  }
  if (method === "POST" && path === "/2/tweets") {
    const raw = jsonBody(request)
    const body = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {}
    const text = typeof body["text"] === "string" ? body["text"] : ""
    if (weighted(text) > 280) return problem(400, "Invalid Request", "One or more parameters to your request was invalid: text is too long")
    const mine = core.posts.filter((p) => p.network === NETWORK && p.account === user.id)
    if (text !== "" && mine.some((p) => p.text === text && Date.now() - p.at.getTime() < 3600_000)) {
      return problem(403, "Forbidden", "You are not allowed to create a Tweet with duplicate content.")
    }
    const reply = body["reply"] as { in_reply_to_tweet_id?: string } | undefined
    const replyTo = reply?.in_reply_to_tweet_id ?? null
    if (replyTo !== null && !core.posts.some((p) => p.network === NETWORK && p.id === replyTo))
      return problem(400, "Invalid Request", "The Tweet you are replying to does not exist.")
    const mediaIds = ((body["media"] as { media_ids?: Array<string> } | undefined)?.media_ids ?? []).map(String)
    const known = stateOf(media, core)
    if (mediaIds.some((m) => !known.has(m))) return problem(400, "Invalid Request", "Your media IDs are invalid.")
    const id = String(1700000000000000000n + BigInt(core.posts.length + 1))
    core.record({
      network: NETWORK,
      id,
      url: `https://x.com/${user.username}/status/${id}`,
      account: user.id,
      text,
      replyTo,
      media: mediaIds.map((m) => ({ id: m, ...known.get(m)! })),
      dedupeKey: null,
      extra: { reply_settings: body["reply_settings"] ?? null, community_id: body["community_id"] ?? null }
    })
    return { status: 201, body: { data: { id, text, edit_history_tweet_ids: [id] } } }
  }
  const timeline = /^\/2\/users\/([^/]+)\/tweets$/.exec(path)
  if (method === "GET" && timeline !== null) {
    const max = Number(request.query.get("max_results") ?? "10")
    const visible = core.visiblePosts(NETWORK, timeline[1]!).slice().reverse().slice(0, max)
    return {
      status: 200,
      body:
        visible.length === 0
          ? { meta: { result_count: 0 } }
          : { data: visible.map((p) => ({ id: p.id, text: p.text })), meta: { result_count: visible.length } }
    }
  }
  const one = /^\/2\/tweets\/([^/]+)$/.exec(path)
  if (method === "GET" && one !== null) {
    const post = core.posts.find((p) => p.network === NETWORK && p.id === one[1])
    if (post === undefined) return problem(404, "Not Found Error", "Could not find tweet")
    return {
      status: 200,
      body: {
        data: {
          id: post.id,
          text: post.text,
          public_metrics: {
            retweet_count: 1,
            reply_count: core.posts.filter((p) => p.replyTo === post.id).length,
            like_count: 4,
            quote_count: 0,
            impression_count: 250
          }
        }
      }
    }
  }
  return undefined
}

export const xModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({ X_API_URL: base, X_CLIENT_ID: "sim-client", X_CLIENT_SECRET: "sim-secret" }),
  handle,
  opOf: ({ method, path }) =>
    method === "POST" && path === "/2/tweets"
      ? "publish"
      : path.startsWith("/2/media")
        ? "media"
        : /\/users\/[^/]+\/tweets$/.test(path)
          ? "search"
          : path.includes("oauth2")
            ? "token"
            : "account",
  rejectBody: (status) => problem(status ?? 403, "Forbidden", "You are not allowed to create a Tweet with duplicate content."),
  expiredTokenBody: () => unauthorized,
  seed: (core, input) =>
    seedXAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {})
    })
}

/** The simulated networks this folder adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [xModule]
