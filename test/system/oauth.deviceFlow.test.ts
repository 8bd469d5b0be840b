import { createHash } from "node:crypto"
import { Redis } from "ioredis"
import * as oauth from "oauth4webapi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { bodyOf, DeviceCodeAnswer, OAuthFailure, getPage, hiddenFields, postForm, signIn, startAtOwnAddress } from "../support/people.js"
import { createWorld, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * Spec: Device flow and Device authorization. A command line tool (oauth4webapi's device
 * grant) asks for a code, the person approves or denies it on the verification page, and
 * polling answers exactly as the spec's table, `slow_down` for polling faster than 3 s.
 */

let world: TestWorld
let sys: RunningServices
let base: string
let as: oauth.AuthorizationServer
let cookie: string
let workspaceId: string
const cli: oauth.Client = { client_id: "command-line" }
const insecure = { [oauth.allowInsecureRequests]: true }

beforeAll(async () => {
  world = await createWorld("oauthdevice")
  sys = await startAtOwnAddress(world, ["gateway", "actors"])
  base = sys.url
  const ws = await sys.admin.createWorkspace("Studio")
  workspaceId = ws.workspaceId
  await sys.admin.createUser({ workspaceId, email: "bo@studio.test", password: "a long password", role: "editor", timezone: null })
  cookie = await signIn(base, "bo@studio.test", "a long password")
  const issuer = new URL(base)
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...insecure }))
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const start = async () =>
  oauth.processDeviceAuthorizationResponse(as, cli, await oauth.deviceAuthorizationRequest(as, cli, oauth.None(), {}, insecure))

/** One poll: the token, or the error code the token endpoint answered. */
const poll = async (deviceCode: string): Promise<{ token: string } | { error: string; status: number; msg: unknown }> => {
  const response = await oauth.deviceCodeGrantRequest(as, cli, oauth.None(), deviceCode, insecure)
  try {
    const result = await oauth.processDeviceCodeResponse(as, cli, response)
    return { token: result.access_token }
  } catch (e) {
    if (e instanceof oauth.ResponseBodyError) return { error: e.error, status: e.status, msg: e.cause["msg"] }
    throw e
  }
}

/** The person presses Approve or Deny on the page verification_uri_complete opens. */
const decide = async (completeUri: string, decision: "approve" | "deny") => {
  const page = await getPage(completeUri, cookie)
  expect(page.status).toBe(200)
  const html = await page.text()
  const typed = /name="user_code"[^>]*value="([^"]*)"/.exec(html)?.[1] ?? ""
  return postForm(`${base}/device`, cookie, { ...hiddenFields(html), user_code: typed, decision })
}

describe("POST /oauth/device/code", () => {
  it("answers the spec's fields: 600 seconds, interval 3, a verification page at the app address", async () => {
    const res = await fetch(`${base}/oauth/device/code`, { method: "POST" })
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const body = await bodyOf(res, DeviceCodeAnswer)
    expect(Object.keys(body).sort()).toEqual(["device_code", "expires_in", "interval", "user_code", "verification_uri", "verification_uri_complete"])
    expect(body.expires_in).toBe(600)
    expect(body.interval).toBe(3)
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(body.verification_uri).toBe(`${base}/device`)
    expect(body.verification_uri_complete).toBe(`${base}/device?user_code=${body.user_code}`)
    // kept in Redis under the code's hash, with its 10 minutes as TTL
    const redis = new Redis(world.redisUrl)
    try {
      const key = `${world.namespace}:oauth:device:${createHash("sha256").update(body.device_code).digest("hex")}`
      expect(await redis.hget(key, "status")).toBe("pending")
      expect(await redis.ttl(key)).toBeGreaterThan(590)
      expect(JSON.stringify(await redis.keys(`${world.namespace}:oauth:*`))).not.toContain(body.device_code)
    } finally {
      redis.disconnect()
    }
  })
})

describe("polling POST /oauth/token (oauth4webapi's device grant)", () => {
  it("authorization_pending, slow_down when faster than the interval, then the CLI token once, then invalid_grant", async () => {
    const device = await start()
    expect(device.interval).toBe(3)
    expect(await poll(device.device_code)).toMatchObject({ error: "authorization_pending", status: 400 })
    expect(await poll(device.device_code)).toMatchObject({ error: "slow_down", status: 400 })

    const approved = await decide(device.verification_uri_complete ?? "", "approve")
    expect(approved.status).toBe(200)
    expect(await approved.text()).toContain("Command line connected")

    const first = await poll(device.device_code)
    if (!("token" in first)) throw new Error(`expected a token, got ${JSON.stringify(first)}`)
    expect(first.token.startsWith("svc_cli_")).toBe(true)
    expect(await poll(device.device_code)).toMatchObject({ error: "invalid_grant" })

    // the person with their role (editor) in the workspace picked on the page
    const api = client(`${base}/public/v1`, first.token)
    expect((await api.get("/is-connected")).json).toEqual({ connected: true })
    const rows = await withDb(world, (c) => c.query("SELECT kind, label, workspace_id FROM api_tokens WHERE kind = 'cli'"))
    expect(rows.rows).toEqual([{ kind: "cli", label: "Command line", workspace_id: workspaceId }])
    const apps = await (await getPage(`${base}/apps`, cookie)).text()
    expect(apps).toContain("Command line")
  })

  it("Deny: access_denied", async () => {
    const device = await start()
    expect((await decide(device.verification_uri_complete ?? "", "deny")).status).toBe(200)
    expect(await poll(device.device_code)).toMatchObject({ error: "access_denied", status: 400 })
  })

  it("after the 10 minutes (the Redis key's TTL run out): expired_token, and the page no longer takes the code", async () => {
    const device = await start()
    const redis = new Redis(world.redisUrl)
    try {
      await redis.pexpire(`${world.namespace}:oauth:device:${createHash("sha256").update(device.device_code).digest("hex")}`, 1)
      await new Promise((resolve) => setTimeout(resolve, 5))
    } finally {
      redis.disconnect()
    }
    expect(await poll(device.device_code)).toMatchObject({ error: "expired_token", status: 400 })
    const page = await getPage(device.verification_uri_complete ?? "", cookie)
    expect(page.status).toBe(400)
    expect(await page.text()).toContain("unknown or has expired")
  })

  it("an unknown device code: invalid_grant; a missing one: invalid_request", async () => {
    expect(await poll("no-such-code")).toMatchObject({ error: "invalid_grant", status: 400 })
    const res = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "urn:ietf:params:oauth:grant-type:device_code" })
    })
    const body = await bodyOf(res, OAuthFailure)
    expect([res.status, body.error, body.msg]).toEqual([400, "invalid_request", "Missing field device_code."])
  })

  it("JSON polling as the spec writes it works too", async () => {
    const device = await start()
    const res = await fetch(`${base}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: device.device_code })
    })
    const body = await bodyOf(res, OAuthFailure)
    expect([res.status, body.error]).toEqual([400, "authorization_pending"])
    expect(body.msg).toBe(body.error_description)
  })
})

describe("the verification page", () => {
  it("needs a signed-in person: without a session, sign in first and come back", async () => {
    const device = await start()
    const res = await getPage(device.verification_uri_complete ?? "", null)
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toContain(`/sign-in?next=${encodeURIComponent(`/device?user_code=${device.user_code}`)}`)
  })

  it("a code typed in lower case without the dash is the same code; a code approved once cannot be decided again", async () => {
    const device = await start()
    const page = await (await getPage(`${base}/device`, cookie)).text()
    const typed = device.user_code.replace("-", "").toLowerCase()
    const first = await postForm(`${base}/device`, cookie, { ...hiddenFields(page), user_code: typed, decision: "approve" })
    expect(first.status).toBe(200)
    const again = await postForm(`${base}/device`, cookie, { ...hiddenFields(page), user_code: typed, decision: "deny" })
    expect(again.status).toBe(400)
    expect(await again.text()).toContain("already approved or denied")
    expect(await poll(device.device_code)).toHaveProperty("token")
  })

  it("a wrong code or a form without its CSRF token changes nothing", async () => {
    const device = await start()
    const page = await (await getPage(`${base}/device`, cookie)).text()
    expect((await postForm(`${base}/device`, cookie, { ...hiddenFields(page), user_code: "BBBB-BBBB", decision: "approve" })).status).toBe(400)
    expect((await postForm(`${base}/device`, cookie, { ...hiddenFields(page), user_code: "not a code", decision: "approve" })).status).toBe(400)
    expect((await postForm(`${base}/device`, cookie, { workspace: workspaceId, user_code: device.user_code, decision: "approve" })).status).toBe(403)
    expect(await poll(device.device_code)).toMatchObject({ error: "authorization_pending" })
  })
})
