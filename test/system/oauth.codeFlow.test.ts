import { auth as mcpAuth, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js"
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import { Schema } from "effect"
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import {
  authorizeUrl,
  bodyOf,
  OAuthFailure,
  TokenAnswer,
  getPage,
  hiddenFields,
  pkcePair,
  postForm,
  pressAllow,
  registerApp,
  signIn,
  startAtOwnAddress,
  tokenRequest,
  uniqueIp
} from "../support/people.js"
import { createWorld, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { tokenHash } from "../../services/platform/secrets.js"
import { createHash } from "node:crypto"
import { Redis } from "ioredis"

/**
 * Spec: Authentication → OAuth 2.0 for apps. The code grant driven by a standard OAuth
 * client library (oauth4webapi) against the real pages: discovery, registration, PKCE,
 * Allow on the signed-in Allow screen, token, the token on the public API; then every way
 * to get it wrong.
 */

let world: TestWorld
let sys: RunningServices
let base: string
let workspaceId: string
let cookie: string
const REDIRECT = "http://127.0.0.1:9/callback"

beforeAll(async () => {
  world = await createWorld("oauthcode")
  sys = await startAtOwnAddress(world, ["gateway", "actors"])
  base = sys.url
  const ws = await sys.admin.createWorkspace("Agency")
  workspaceId = ws.workspaceId
  await sys.admin.createUser({ workspaceId, email: "ana@agency.test", password: "correct horse battery", role: "owner", timezone: null })
  cookie = await signIn(base, "ana@agency.test", "correct horse battery")
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const newApp = async (extra: Record<string, unknown> = {}) => {
  const app = await registerApp(base, { client_name: "Acme Agent", redirect_uris: [REDIRECT], ...extra })
  expect(app.status).toBe(201)
  return app.json as { client_id: string; client_secret?: string }
}

/** A code for a fresh app, as Allow gives it. */
const codeFor = async (app: { client_id: string }) => {
  const { verifier, challenge } = pkcePair()
  const back = await pressAllow(
    base,
    cookie,
    authorizeUrl(base, {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "xyz"
    })
  )
  return { code: back.searchParams.get("code") ?? "", verifier, back }
}

const exchangeFields = (app: { client_id: string }, code: string, verifier: string) => ({
  grant_type: "authorization_code",
  code,
  client_id: app.client_id,
  redirect_uri: REDIRECT,
  code_verifier: verifier
})

describe("discovery", () => {
  it("RFC 8414 metadata has exactly the spec's fields, issuer = PUBLIC_URL", async () => {
    const res = await client(base).get("/.well-known/oauth-authorization-server")
    expect(res.status).toBe(200)
    expect(res.json).toEqual({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      device_authorization_endpoint: `${base}/oauth/device/code`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "urn:ietf:params:oauth:grant-type:device_code"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_post"],
      scopes_supported: ["mcp"]
    })
  })

  it.each(["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"])(
    "RFC 9728 metadata at %s names the MCP server and this issuer",
    async (path) => {
      const res = await client(base).get(path)
      expect(res.status).toBe(200)
      expect(res.json).toEqual({ resource: `${base}/mcp`, authorization_servers: [base] })
    }
  )
})

describe("the code grant with a standard OAuth client (oauth4webapi)", () => {
  it("discovers, registers, runs PKCE S256 through Allow, and the token works on the public API as the person", async () => {
    const issuer = new URL(base)
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true })
    )
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: "Library App", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" },
        { [oauth.allowInsecureRequests]: true }
      )
    )
    const clientInfo: oauth.Client = { client_id: registered.client_id }
    const verifier = oauth.generateRandomCodeVerifier()
    const challenge = await oauth.calculatePKCECodeChallenge(verifier)
    const state = oauth.generateRandomState()
    const url = new URL(as.authorization_endpoint ?? "")
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientInfo.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
      scope: "mcp",
      resource: `${base}/mcp`
    }).toString()

    const allowScreen = await (await getPage(url.toString(), cookie)).text()
    expect(allowScreen).toContain("Library App")
    expect(allowScreen).toContain("Agency")

    const back = await pressAllow(base, cookie, url.toString())
    expect(back.origin + back.pathname).toBe(REDIRECT)
    expect(back.searchParams.get("state")).toBe(state)
    const params = oauth.validateAuthResponse(as, clientInfo, back, state)
    const response = await oauth.authorizationCodeGrantRequest(as, clientInfo, oauth.None(), params, REDIRECT, verifier, {
      [oauth.allowInsecureRequests]: true
    })
    expect(response.headers.get("cache-control")).toBe("no-store")
    const tokens = await oauth.processAuthorizationCodeResponse(as, clientInfo, response)
    expect(tokens.access_token.startsWith("svc_oat_")).toBe(true)
    expect(tokens.token_type.toLowerCase()).toBe("bearer")
    expect(tokens["scope"]).toBe("mcp")

    const api = client(`${base}/public/v1`, `Bearer ${tokens.access_token}`)
    expect((await api.get("/is-connected")).json).toEqual({ connected: true })
    expect((await api.get("/integrations")).status).toBe(200)

    // stored as a hash with the app's name, the person and the app
    const rows = await withDb(world, (c) =>
      c.query("SELECT kind, label, user_id IS NOT NULL AS has_user, oauth_client_id FROM api_tokens WHERE token_hash = $1", [
        tokenHash(tokens.access_token)
      ])
    )
    expect(rows.rows).toEqual([{ kind: "oat", label: "Library App", has_user: true, oauth_client_id: registered.client_id }])

    // RFC 7009 revocation through the library: the token stops at once
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, clientInfo, oauth.None(), tokens.access_token, { [oauth.allowInsecureRequests]: true })
    )
    expect((await api.get("/integrations")).json).toEqual({ error: "Invalid API key", msg: "Invalid API key" })
  })

  it("an app with a secret (client_secret_post) gets it once and must send it", async () => {
    const app = await newApp({ token_endpoint_auth_method: "client_secret_post" })
    expect(typeof app.client_secret).toBe("string")
    const stored = await withDb(world, (c) => c.query("SELECT secret_hash FROM oauth_clients WHERE id = $1", [app.client_id]))
    expect(Buffer.from(stored.rows[0].secret_hash)).toEqual(tokenHash(app.client_secret ?? ""))

    const first = await codeFor(app)
    const without = await tokenRequest(base, exchangeFields(app, first.code, first.verifier))
    expect(without.status).toBe(401)
    expect((await bodyOf(without, OAuthFailure)).error).toBe("invalid_client")

    const second = await codeFor(app)
    const as = { issuer: base, token_endpoint: `${base}/oauth/token` } satisfies oauth.AuthorizationServer
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      { client_id: app.client_id },
      oauth.ClientSecretPost(app.client_secret ?? ""),
      oauth.validateAuthResponse(as, { client_id: app.client_id }, second.back, "xyz"),
      REDIRECT,
      second.verifier,
      { [oauth.allowInsecureRequests]: true }
    )
    const tokens = await oauth.processAuthorizationCodeResponse(as, { client_id: app.client_id }, response)
    expect(tokens.access_token.startsWith("svc_oat_")).toBe(true)
  })

  it("the token endpoint takes JSON as well as a form", async () => {
    const app = await newApp()
    const { code, verifier } = await codeFor(app)
    const res = await tokenRequest(base, exchangeFields(app, code, verifier), uniqueIp(), true)
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const body = await bodyOf(res, TokenAnswer)
    expect(Object.keys(body).sort()).toEqual(["access_token", "scope", "token_type"])
    expect(body.token_type).toBe("Bearer")
  })
})

describe("the official MCP SDK client's OAuth (what an MCP client runs after the 401 of /mcp)", () => {
  it("discovers from the MCP server's address, registers, runs PKCE through Allow and gets a token", async () => {
    const provider = new (class implements OAuthClientProvider {
      info: OAuthClientInformationMixed | undefined
      saved: OAuthTokens | undefined
      verifier = ""
      authorizationUrl: URL | undefined
      get redirectUrl() {
        return REDIRECT
      }
      get clientMetadata() {
        return {
          client_name: "MCP SDK client",
          redirect_uris: [REDIRECT],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none"
        }
      }
      clientInformation() {
        return this.info
      }
      saveClientInformation(info: OAuthClientInformationMixed) {
        this.info = info
      }
      tokens() {
        return this.saved
      }
      saveTokens(tokens: OAuthTokens) {
        this.saved = tokens
      }
      redirectToAuthorization(url: URL) {
        this.authorizationUrl = url
      }
      saveCodeVerifier(verifier: string) {
        this.verifier = verifier
      }
      codeVerifier() {
        return this.verifier
      }
    })()
    const serverUrl = `${base}/mcp`
    expect(await mcpAuth(provider, { serverUrl })).toBe("REDIRECT")
    const authorizationUrl = provider.authorizationUrl
    if (authorizationUrl === undefined) throw new Error("the SDK did not send the person to authorize")
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")
    expect(authorizationUrl.searchParams.get("resource")).toBe(serverUrl)
    const back = await pressAllow(base, cookie, authorizationUrl.toString())
    expect(await mcpAuth(provider, { serverUrl, authorizationCode: back.searchParams.get("code") ?? "" })).toBe("AUTHORIZED")
    const token = provider.saved?.access_token ?? ""
    expect(token.startsWith("svc_oat_")).toBe(true)
    expect((await client(`${base}/public/v1`, token).get("/is-connected")).json).toEqual({ connected: true })
  })
})

describe("GET /oauth/authorize", () => {
  it("Cancel goes back to the app with error=access_denied and the state, and issues nothing", async () => {
    const app = await newApp()
    const { challenge } = pkcePair()
    const back = await pressAllow(
      base,
      cookie,
      authorizeUrl(base, {
        response_type: "code",
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state: "st8"
      }),
      "cancel"
    )
    expect(back.searchParams.get("error")).toBe("access_denied")
    expect(back.searchParams.get("state")).toBe("st8")
    expect(back.searchParams.get("code")).toBeNull()
  })

  it("without a session: sign in first, then back to the same authorize address", async () => {
    const app = await newApp()
    const url = authorizeUrl(base, {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256"
    })
    const res = await getPage(url, null)
    expect(res.status).toBe(303)
    const signInAt = new URL(res.headers.get("location") ?? "")
    expect(signInAt.pathname).toBe("/sign-in")
    expect(signInAt.searchParams.get("next")).toBe(url.slice(base.length))
  })

  it.each([
    ["an unknown client_id", (id: string) => ({ client_id: "7d1f0d9e-1111-4222-8333-944445555666", redirect_uri: REDIRECT, _: id })],
    ["a client_id that is no id", (id: string) => ({ client_id: "not-an-id", redirect_uri: REDIRECT, _: id })],
    ["a redirect_uri not registered", (id: string) => ({ client_id: id, redirect_uri: "http://127.0.0.1:9/other" })],
    ["a redirect_uri that only starts like the registered one", (id: string) => ({ client_id: id, redirect_uri: `${REDIRECT}/../evil` })],
    ["a redirect_uri with another case", (id: string) => ({ client_id: id, redirect_uri: REDIRECT.toUpperCase() })],
    ["no redirect_uri", (id: string) => ({ client_id: id })]
  ])("%s: an error page, never a redirect", async (_, params) => {
    const app = await newApp()
    const { _: _ignored, ...given } = { _: "", ...params(app.client_id) }
    const res = await getPage(
      authorizeUrl(base, { response_type: "code", code_challenge: pkcePair().challenge, code_challenge_method: "S256", state: "s", ...given }),
      cookie
    )
    expect(res.status).toBe(400)
    expect(res.headers.get("location")).toBeNull()
    expect(res.headers.get("content-type")).toContain("text/html")
  })

  it.each([
    ["code_challenge_method plain", { code_challenge_method: "plain" }, "invalid_request"],
    ["no code_challenge_method", { code_challenge_method: undefined }, "invalid_request"],
    ["no code_challenge", { code_challenge: undefined }, "invalid_request"],
    ["response_type token", { response_type: "token" }, "unsupported_response_type"]
  ])("%s: back to the app with the error and the state", async (_, change, error) => {
    const app = await newApp()
    const params: Record<string, string | undefined> = {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      state: "keep",
      ...change
    }
    const defined = Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined))
    const res = await getPage(authorizeUrl(base, defined), cookie)
    expect(res.status).toBe(302)
    const back = new URL(res.headers.get("location") ?? "")
    expect(back.origin + back.pathname).toBe(REDIRECT)
    expect(back.searchParams.get("error")).toBe(error)
    expect(back.searchParams.get("state")).toBe("keep")
  })

  it("a person in several workspaces picks one; the token acts there with their role there", async () => {
    const second = await sys.admin.createWorkspace("Side project")
    await sys.admin.createUser({ workspaceId: second.workspaceId, email: "ana@agency.test", password: "unused", role: "client", timezone: null })
    await sys.admin.createChannel({ workspaceId: second.workspaceId, network: "test", name: "Side channel", customerId: null, postingTimes: [] })
    const app = await newApp()
    const { verifier, challenge } = pkcePair()
    const url = authorizeUrl(base, {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256"
    })
    const screen = await (await getPage(url, cookie)).text()
    expect(screen).toContain('<select id="workspace" name="workspace" required>')
    expect(screen).toContain("Agency (owner)")
    expect(screen).toContain("Side project (client)")
    const back = await pressAllow(base, cookie, url, "allow", second.workspaceId)
    const res = await tokenRequest(base, exchangeFields(app, back.searchParams.get("code") ?? "", verifier))
    const token = (await bodyOf(res, TokenAnswer)).access_token
    const api = client(`${base}/public/v1`, token)
    expect(((await api.get("/integrations")).json as Array<{ name: string }>).map((c) => c.name)).toEqual(["Side channel"])
    expect((await api.get("/media")).json).toEqual([])
    const row = await withDb(world, (c) => c.query("SELECT workspace_id FROM api_tokens WHERE token_hash = $1", [tokenHash(token)]))
    expect(row.rows[0].workspace_id).toBe(second.workspaceId)
  })

  it("Allow for a workspace the person is not in: 403 page, no code", async () => {
    const stranger = await sys.admin.createWorkspace("Not mine")
    const app = await newApp()
    const url = authorizeUrl(base, {
      response_type: "code",
      client_id: app.client_id,
      redirect_uri: REDIRECT,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256"
    })
    const page = await getPage(url, cookie)
    const res = await postForm(`${base}/oauth/authorize`, cookie, {
      ...hiddenFields(await page.text()),
      decision: "allow",
      workspace: stranger.workspaceId
    })
    expect(res.status).toBe(403)
    expect(res.headers.get("location")).toBeNull()
  })

  it("Allow without the form's CSRF token does nothing (403)", async () => {
    const app = await newApp()
    const res = await fetch(`${base}/oauth/authorize`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        decision: "allow",
        response_type: "code",
        client_id: app.client_id,
        redirect_uri: REDIRECT,
        code_challenge: pkcePair().challenge,
        code_challenge_method: "S256",
        workspace: workspaceId
      }).toString()
    })
    expect(res.status).toBe(403)
    expect(res.headers.get("location")).toBeNull()
  })
})

describe("POST /oauth/token refuses, with the protocol's error and msg", () => {
  const expectError = async (res: Response, status: number, error: string, description?: string) => {
    expect(res.status).toBe(status)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const body = await bodyOf(res, OAuthFailure)
    expect(body.error).toBe(error)
    expect(typeof body.error_description).toBe("string")
    expect(body.msg).toBe(body.error_description)
    if (description !== undefined) expect(body.error_description).toBe(description)
  }

  const tokensIssued = () => withDb(world, async (c) => Number((await c.query("SELECT count(*) FROM api_tokens WHERE kind = 'oat'")).rows[0].count))

  it("a replayed code: invalid_grant, no second token", async () => {
    const app = await newApp()
    const { code, verifier } = await codeFor(app)
    expect((await tokenRequest(base, exchangeFields(app, code, verifier))).status).toBe(200)
    const before = await tokensIssued()
    await expectError(await tokenRequest(base, exchangeFields(app, code, verifier)), 400, "invalid_grant")
    expect(await tokensIssued()).toBe(before)
  })

  it("a wrong verifier: 400 invalid_grant `PKCE check failed`, and the code is used up", async () => {
    const app = await newApp()
    const { code, verifier } = await codeFor(app)
    await expectError(await tokenRequest(base, exchangeFields(app, code, pkcePair().verifier)), 400, "invalid_grant", "PKCE check failed")
    await expectError(await tokenRequest(base, exchangeFields(app, code, verifier)), 400, "invalid_grant")
  })

  it("another client's code: invalid_grant, and the code is used up", async () => {
    const app = await newApp()
    const other = await newApp()
    const { code, verifier } = await codeFor(app)
    await expectError(await tokenRequest(base, exchangeFields(other, code, verifier)), 400, "invalid_grant")
    await expectError(await tokenRequest(base, exchangeFields(app, code, verifier)), 400, "invalid_grant")
  })

  it("another redirect_uri than the code's: invalid_grant", async () => {
    const app = await newApp()
    const { code, verifier } = await codeFor(app)
    await expectError(
      await tokenRequest(base, { ...exchangeFields(app, code, verifier), redirect_uri: "http://127.0.0.1:9/other" }),
      400,
      "invalid_grant"
    )
  })

  it("an unknown client_id: invalid_client", async () => {
    const app = await newApp()
    const { code, verifier } = await codeFor(app)
    await expectError(
      await tokenRequest(base, { ...exchangeFields(app, code, verifier), client_id: "7d1f0d9e-1111-4222-8333-944445555666" }),
      401,
      "invalid_client"
    )
  })

  it("an expired code (its Redis key past its 5 minutes): invalid_grant", async () => {
    const app = await newApp()
    const { code, verifier } = await codeFor(app)
    const redis = new Redis(world.redisUrl)
    const key = `${world.namespace}:oauth:code:${createHash("sha256").update(code).digest("hex")}`
    try {
      const ttl = await redis.ttl(key)
      expect(ttl).toBeGreaterThan(290)
      expect(ttl).toBeLessThanOrEqual(300)
      await redis.pexpire(key, 1)
      await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      redis.disconnect()
    }
    await expectError(await tokenRequest(base, exchangeFields(app, code, verifier)), 400, "invalid_grant")
  })

  it.each(["grant_type", "code", "client_id", "redirect_uri", "code_verifier"])(
    "missing %s: invalid_request naming it, and the code still works",
    async (field) => {
      const app = await newApp()
      const { code, verifier } = await codeFor(app)
      const { [field]: _dropped, ...rest } = exchangeFields(app, code, verifier) as Record<string, string>
      await expectError(await tokenRequest(base, rest), 400, "invalid_request", `Missing field ${field}.`)
      expect((await tokenRequest(base, exchangeFields(app, code, verifier))).status).toBe(200)
    }
  )

  it("an unknown grant_type: unsupported_grant_type", async () => {
    await expectError(await tokenRequest(base, { grant_type: "password", username: "a", password: "b" }), 400, "unsupported_grant_type")
    await expectError(await tokenRequest(base, { grant_type: "refresh_token", refresh_token: "x" }), 400, "unsupported_grant_type")
  })

  it("a body that is not valid JSON, or a field that is not text: invalid_request", async () => {
    const res = await fetch(`${base}/oauth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" })
    await expectError(res, 400, "invalid_request", "The request body is not valid JSON.")
    await expectError(await tokenRequest(base, { grant_type: 1 } as unknown as Record<string, string>, uniqueIp(), true), 400, "invalid_request")
  })

  it("a parameter sent twice: invalid_request", async () => {
    const res = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "grant_type=authorization_code&code=a&code=b"
    })
    await expectError(res, 400, "invalid_request")
  })
})

describe("POST /oauth/revoke", () => {
  it("always 200 {}: unknown tokens, a workspace key (left working), empty bodies", async () => {
    const { apiKey } = await sys.admin.createWorkspace("Other")
    for (const body of [{ token: "svc_oat_unknown" }, { token: apiKey }, {}]) {
      const res = await client(base).post("/oauth/revoke", body)
      expect(res.status).toBe(200)
      expect(res.json).toEqual({})
    }
    expect((await client(`${base}/public/v1`, apiKey).get("/is-connected")).status).toBe(200)
    const form = await fetch(`${base}/oauth/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=nothing"
    })
    expect(form.status).toBe(200)
    expect(await bodyOf(form, Schema.Struct({}))).toEqual({})
  })
})
