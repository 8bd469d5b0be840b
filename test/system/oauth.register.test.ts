import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bodyOf, OAuthFailure, registerApp, startAtOwnAddress, tokenRequest, uniqueIp } from "../support/people.js"
import { acceptedRedirectUris, refusedRedirectUris } from "../support/redirectUris.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * Spec: POST /oauth/register (RFC 7591) and the per-IP windows of the OAuth endpoints
 * (Limits: register 30/h, token 300/h, device code 30/h), counted in Redis and so shared
 * by every gateway replica.
 */

let world: TestWorld
let sys: RunningServices
let base: string

beforeAll(async () => {
  world = await createWorld("oauthregister")
  sys = await startAtOwnAddress(world, ["gateway"])
  base = sys.url
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const clientCount = () => withDb(world, async (c) => Number((await c.query("SELECT count(*) FROM oauth_clients")).rows[0].count))

describe("POST /oauth/register", () => {
  it("201 with exactly the spec's fields (a public app: no secret)", async () => {
    const before = Math.floor(Date.now() / 1000)
    const res = await registerApp(base, { client_name: "Acme Agent", redirect_uris: ["https://acme.example/cb", "http://localhost:7777/cb"] })
    expect(res.status).toBe(201)
    expect(Object.keys(res.json).sort()).toEqual(
      ["client_id", "client_id_issued_at", "client_name", "grant_types", "redirect_uris", "response_types", "token_endpoint_auth_method"].sort()
    )
    expect(res.json).toMatchObject({
      client_name: "Acme Agent",
      redirect_uris: ["https://acme.example/cb", "http://localhost:7777/cb"],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    })
    expect(Number.isInteger(res.json["client_id_issued_at"])).toBe(true)
    expect(Number(res.json["client_id_issued_at"])).toBeGreaterThanOrEqual(before - 1)
  })

  it("client_secret_post: the secret once in the answer, only its hash stored", async () => {
    const res = await registerApp(base, {
      client_name: "Server App",
      redirect_uris: ["https://srv.example/cb"],
      token_endpoint_auth_method: "client_secret_post"
    })
    expect(res.status).toBe(201)
    const secret = String(res.json["client_secret"])
    expect(secret.length).toBeGreaterThanOrEqual(40)
    expect(res.json["token_endpoint_auth_method"]).toBe("client_secret_post")
    const row = await withDb(world, (c) => c.query("SELECT row_to_json(o)::text AS text FROM oauth_clients o WHERE id = $1", [res.json["client_id"]]))
    expect(row.rows[0].text).not.toContain(secret)
  })

  it("what MCP clients send (grant_types with refresh_token, scope, response_types) is taken; the answer says what is granted", async () => {
    const res = await registerApp(base, {
      client_name: "MCP client",
      redirect_uris: ["http://127.0.0.1:33418/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "mcp"
    })
    expect(res.status).toBe(201)
    expect(res.json["grant_types"]).toEqual(["authorization_code"])
  })

  it.each(acceptedRedirectUris)("accepts %s", async (uri) => {
    expect((await registerApp(base, { client_name: "A", redirect_uris: [uri] })).status).toBe(201)
  })

  it.each(refusedRedirectUris)("refuses %s (%s): 400 invalid_redirect_uri, nothing saved", async (_, uri) => {
    const before = await clientCount()
    const res = await registerApp(base, { client_name: "Bad", redirect_uris: ["https://good.example/cb", uri] })
    expect(res.status).toBe(400)
    expect(res.json["error"]).toBe("invalid_redirect_uri")
    expect(typeof res.json["error_description"]).toBe("string")
    expect(res.json["msg"]).toBe(res.json["error_description"])
    expect(await clientCount()).toBe(before)
  })

  it.each([
    ["no redirect_uris", { client_name: "X" }, "invalid_redirect_uri"],
    ["an empty list", { redirect_uris: [] }, "invalid_redirect_uri"],
    ["redirect_uris not a list", { redirect_uris: "https://a.example/cb" }, "invalid_redirect_uri"],
    ["a redirect address that is not text", { redirect_uris: [42] }, "invalid_redirect_uri"],
    ["more than 10 addresses", { redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) }, "invalid_redirect_uri"],
    ["client_name over 100 characters", { client_name: "n".repeat(101), redirect_uris: ["https://a.example/cb"] }, "invalid_client_metadata"],
    ["client_name not text", { client_name: 5, redirect_uris: ["https://a.example/cb"] }, "invalid_client_metadata"],
    [
      "token_endpoint_auth_method client_secret_basic",
      { redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "client_secret_basic" },
      "invalid_client_metadata"
    ],
    ["a list instead of an object", [], "invalid_client_metadata"]
  ])("%s: 400 %s, nothing saved", async (_, body, error) => {
    const before = await clientCount()
    const res = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": uniqueIp() },
      body: JSON.stringify(body)
    })
    expect(res.status).toBe(400)
    const json = await bodyOf(res, OAuthFailure)
    expect(json.error).toBe(error)
    expect(json.msg).toBe(json.error_description)
    expect(await clientCount()).toBe(before)
  })

  it("a body that is not JSON: 400 invalid_client_metadata", async () => {
    const res = await fetch(`${base}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": uniqueIp() },
      body: "{oops"
    })
    expect(res.status).toBe(400)
    expect((await bodyOf(res, OAuthFailure)).error).toBe("invalid_client_metadata")
  })

  it("client_name exactly 100 characters is taken; without a name the app is shown as Unnamed app", async () => {
    expect((await registerApp(base, { client_name: "n".repeat(100), redirect_uris: ["https://a.example/cb"] })).status).toBe(201)
    expect((await registerApp(base, { redirect_uris: ["https://a.example/cb"] })).json["client_name"]).toBe("Unnamed app")
  })
})

describe("per-IP windows (429 with Retry-After and the spec's message)", () => {
  const expect429 = async (res: Response) => {
    expect(res.status).toBe(429)
    const retryAfter = Number(res.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThan(3500)
    expect(retryAfter).toBeLessThanOrEqual(3600)
    const body = await bodyOf(res, OAuthFailure)
    expect(body.error_description).toBe("Too many requests. Try again in 60 minutes.")
    expect(body.msg).toBe(body.error_description)
  }

  it("POST /oauth/register: 30 an hour per address, counted across two gateway replicas", async () => {
    const second = await startServices(world, ["gateway"], { TRUST_PROXY: "1", PUBLIC_URL: base })
    try {
      const ip = uniqueIp()
      const body = { client_name: "Many", redirect_uris: ["https://many.example/cb"] }
      for (let i = 0; i < 30; i++) {
        const res = await fetch(`${i % 2 === 0 ? base : second.url}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify(body)
        })
        expect(res.status).toBe(201)
      }
      const before = await clientCount()
      await expect429(
        await fetch(`${second.url}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify(body)
        })
      )
      await expect429(
        await fetch(`${base}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": ip },
          body: JSON.stringify(body)
        })
      )
      expect(await clientCount()).toBe(before)
      // another address has its own window
      expect((await registerApp(base, body, uniqueIp())).status).toBe(201)
    } finally {
      await second.stop()
    }
  })

  it("POST /oauth/token: 300 an hour per address", async () => {
    const ip = uniqueIp()
    for (let i = 0; i < 300; i++) expect((await tokenRequest(base, { grant_type: "password" }, ip)).status).toBe(400)
    await expect429(await tokenRequest(base, { grant_type: "password" }, ip))
  })

  it("POST /oauth/device/code: 30 an hour per address", async () => {
    const ip = uniqueIp()
    for (let i = 0; i < 30; i++)
      expect((await fetch(`${base}/oauth/device/code`, { method: "POST", headers: { "x-forwarded-for": ip } })).status).toBe(200)
    await expect429(await fetch(`${base}/oauth/device/code`, { method: "POST", headers: { "x-forwarded-for": ip } }))
  })
})
