import type { NetworkModule, SimCore, SimRequest, SimResponse } from "../../../test/support/simulator/core.js"
import { stateOf } from "../../../test/support/simulator/core.js"
import { instagramGraphRoutes, instagramOpOf, instagramRejectBody } from "./simulator.js"
import {
  accountsOf,
  expiredTokenError,
  graphError,
  invalidTokenError,
  isExpired,
  newAccount,
  paramsOf,
  tokenOfRequest,
  unversioned
} from "../../../test/support/simulator/metaGraph.js"

/**
 * Instagram API with Instagram Login as Meta documents it (developers.facebook.com/docs/
 * instagram-platform/instagram-api-with-instagram-login: business-login, get-started,
 * reference/access_token and refresh_access_token): www.instagram.com/oauth/authorize,
 * api.instagram.com/oauth/access_token (the short-lived token, `{data: [{access_token,
 * user_id, permissions}]}`), graph.instagram.com/access_token (`ig_exchange_token`, 60 days),
 * /refresh_access_token (`ig_refresh_token`, only with a token still valid), /me; content
 * publishing as on graph.facebook.com (./instagram.ts). One prefix serves all three hosts.
 */
const NETWORK = "instagram-standalone"
const LONG_LIVED_S = 5_183_944

const codes = new WeakMap<SimCore, Map<string, { readonly igId: string; readonly redirectUri: string }>>()

export const seedInstagramStandaloneAccount = (
  core: SimCore,
  input: { readonly username?: string; readonly cap?: number; readonly accountType?: string; readonly expiresInMs?: number } = {}
) => {
  const account = newAccount(core, NETWORK, {
    username: input.username ?? "creator",
    ...(input.cap === undefined ? {} : { cap: input.cap }),
    ...(input.accountType === undefined ? {} : { accountType: input.accountType })
  })
  const ttl = Math.max(1, input.expiresInMs ?? LONG_LIVED_S * 1000)
  return {
    accessToken: core.issueToken(NETWORK, account.id, "access", ttl),
    igUserId: account.id,
    expiresAt: new Date(Date.now() + ttl).toISOString()
  }
}

const allowedFor = (core: SimCore, token: string | undefined) => {
  const id = core.accountOf(NETWORK, token)
  return id === null ? null : [id]
}

const graphRoutes = instagramGraphRoutes(NETWORK, allowedFor)
const longLived = (core: SimCore, igId: string) => ({
  access_token: core.issueToken(NETWORK, igId, "access", LONG_LIVED_S * 1000),
  token_type: "bearer",
  expires_in: LONG_LIVED_S
})

const handle = async (request: SimRequest, core: SimCore): Promise<SimResponse | undefined> => {
  const path = unversioned(request.path)
  const params = paramsOf(request)
  if (request.method === "GET" && path === "/oauth/authorize") {
    const all = [...accountsOf(core).values()].filter((a) => a.network === NETWORK)
    const igId = all[all.length - 1]?.id ?? seedInstagramStandaloneAccount(core).igUserId
    const code = `code-${core.newId()}`
    stateOf(codes, core).set(code, { igId, redirectUri: params["redirect_uri"] ?? "" })
    const target = new URL(params["redirect_uri"] ?? "")
    target.searchParams.set("code", code)
    target.searchParams.set("state", params["state"] ?? "")
    target.hash = "_" // Instagram ends its redirect with `#_`
    return { status: 302, headers: { location: target.toString() }, body: "" }
  }
  if (request.method === "POST" && path === "/oauth/access_token") {
    if ((params["client_secret"] ?? "") === "")
      return { status: 400, body: { error_type: "OAuthException", code: 400, error_message: "Invalid client_secret" } }
    const code = stateOf(codes, core).get(params["code"] ?? "")
    if (code === undefined || code.redirectUri !== params["redirect_uri"])
      return { status: 400, body: { error_type: "OAuthException", code: 400, error_message: "Invalid authorization code" } }
    stateOf(codes, core).delete(params["code"] ?? "")
    return {
      status: 200,
      body: {
        data: [
          {
            access_token: core.issueToken(NETWORK, code.igId, "access", 3600_000),
            user_id: code.igId,
            permissions: "instagram_business_basic,instagram_business_content_publish"
          }
        ]
      }
    }
  }
  if (request.method === "GET" && (path === "/access_token" || path === "/refresh_access_token")) {
    const token = tokenOfRequest(request, params)
    const igId = core.accountOf(NETWORK, token)
    if (igId === null) return isExpired(core, NETWORK, token) ? expiredTokenError() : invalidTokenError()
    if (path === "/access_token") {
      if (params["grant_type"] !== "ig_exchange_token" || (params["client_secret"] ?? "") === "")
        return graphError(400, "Invalid grant_type or client_secret", 100)
      return { status: 200, body: longLived(core, igId) }
    }
    if (params["grant_type"] !== "ig_refresh_token") return graphError(400, "Unsupported grant_type", 100)
    return { status: 200, body: longLived(core, igId) }
  }
  if (request.method === "GET" && path === "/me") {
    const token = tokenOfRequest(request, params)
    const igId = core.accountOf(NETWORK, token)
    if (igId === null) return isExpired(core, NETWORK, token) ? expiredTokenError() : invalidTokenError()
    const account = accountsOf(core).get(igId)!
    return {
      status: 200,
      body: {
        id: `app-${account.id}`,
        user_id: account.id,
        username: account.username,
        name: account.name,
        account_type: account.accountType,
        profile_picture_url: `https://scontent.cdninstagram.test/${account.id}.jpg`
      }
    }
  }
  return graphRoutes(request, core, path, params)
}

export const instagramStandaloneModule: NetworkModule = {
  network: NETWORK,
  env: (base) => ({
    INSTAGRAM_STANDALONE_API_URL: base,
    INSTAGRAM_STANDALONE_AUTH_URL: base,
    INSTAGRAM_STANDALONE_CLIENT_ID: "sim-client",
    INSTAGRAM_STANDALONE_CLIENT_SECRET: "sim-secret"
  }),
  handle,
  opOf: instagramOpOf,
  rejectBody: instagramRejectBody,
  expiredTokenBody: expiredTokenError,
  seed: (core, input) =>
    seedInstagramStandaloneAccount(core, {
      ...(typeof input["username"] === "string" ? { username: input["username"] } : {}),
      ...(typeof input["cap"] === "number" ? { cap: input["cap"] } : {}),
      ...(typeof input["accountType"] === "string" ? { accountType: input["accountType"] } : {}),
      ...(typeof input["expiresInMs"] === "number" ? { expiresInMs: input["expiresInMs"] } : {})
    })
}

/** The simulated networks this file adds to the simulator (test/support/simulator/registry.ts). */
export const simulators: ReadonlyArray<NetworkModule> = [instagramStandaloneModule]
