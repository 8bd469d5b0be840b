import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, errorOf } from "../support/http.js"
import {
  bodyOf,
  DeviceCodeAnswer,
  TokenAnswer,
  getPage,
  hiddenFields,
  oauthToken,
  postForm,
  pressButton,
  sessionCookie,
  signIn,
  startAtOwnAddress
} from "../support/people.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * People in the app (sign in and out, Approved Apps, members) and roles everywhere: a
 * token of each role from the real OAuth and device flows against the public API, paused
 * members (403 member_paused) and an owner whose email is not confirmed (403
 * email_not_verified).
 */

let world: TestWorld
let sys: RunningServices
let base: string
let workspaceId: string
let channelId: string
const people = {
  owner: { email: "olga@shop.test", userId: "" },
  admin: { email: "adam@shop.test", userId: "" },
  editor: { email: "eve@shop.test", userId: "" },
  client: { email: "carl@shop.test", userId: "" }
} as const
const PASSWORD = "a very long password"
const cookies: Record<string, string> = {}

beforeAll(async () => {
  world = await createWorld("people")
  sys = await startAtOwnAddress(world, ["gateway", "actors"])
  base = sys.url
  const ws = await sys.admin.createWorkspace("Shop", "team")
  workspaceId = ws.workspaceId
  for (const [role, person] of Object.entries(people)) {
    const { userId } = await sys.admin.createUser({ workspaceId, email: person.email, password: PASSWORD, role: role as "owner", timezone: null })
    ;(person as { userId: string }).userId = userId
    cookies[role] = await signIn(base, person.email, PASSWORD)
  }
  channelId = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Shop channel", customerId: null, postingTimes: [] })).channelId
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const api = (token: string) => client(`${base}/public/v1`, token)
const cookieOf = (role: keyof typeof people) => cookies[role] ?? ""

/** A CLI token from the device flow, approved by the signed-in person. */
const cliToken = async (cookie: string) => {
  const device = await bodyOf(await fetch(`${base}/oauth/device/code`, { method: "POST" }), DeviceCodeAnswer)
  const approved = await pressButton(device.verification_uri_complete, `${base}/device`, cookie, { user_code: device.user_code, decision: "approve" })
  expect(approved.status).toBe(200)
  const res = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: device.device_code })
  })
  return (await bodyOf(res, TokenAnswer)).access_token
}

describe("sign in and out", () => {
  it("the session cookie is HttpOnly, SameSite=Lax, Path=/; not Secure on http; a new id after sign-in", async () => {
    const page = await getPage(`${base}/sign-in`, null)
    const visitorCookie = page.headers.getSetCookie()[0] ?? ""
    expect(visitorCookie).toMatch(/HttpOnly/)
    expect(visitorCookie).toMatch(/SameSite=Lax/)
    expect(visitorCookie).toMatch(/Path=\//)
    expect(visitorCookie).not.toMatch(/Secure/)
    const visitor = sessionCookie(page)
    const res = await postForm(`${base}/sign-in`, visitor, { ...hiddenFields(await page.text()), email: people.editor.email, password: PASSWORD })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`${base}/apps`)
    const signed = sessionCookie(res)
    expect(signed).not.toBeNull()
    expect(signed).not.toBe(visitor)
    // the id from before sign-in is worth nothing
    expect((await getPage(`${base}/apps`, visitor)).status).toBe(303)
    expect((await getPage(`${base}/apps`, signed)).status).toBe(200)
  })

  it("with PUBLIC_URL on https the cookie is Secure", async () => {
    const secure = await startServices(world, ["gateway"], { PUBLIC_URL: "https://app.example.test" })
    try {
      const page = await getPage(`${secure.url}/sign-in`, null)
      expect(page.headers.getSetCookie()[0]).toMatch(/; Secure/)
    } finally {
      await secure.stop()
    }
  })

  it("a wrong password, an unknown email or a suspended account: 400, not signed in", async () => {
    await withDb(world, (c) =>
      c.query(
        "INSERT INTO users (id, email, password_hash, suspended) SELECT gen_random_uuid(), 'sus@shop.test', password_hash, true FROM users WHERE email = $1",
        [people.client.email]
      )
    )
    for (const [email, password] of [
      [people.editor.email, "wrong password"],
      ["nobody@shop.test", PASSWORD],
      ["sus@shop.test", PASSWORD]
    ] as const) {
      const page = await getPage(`${base}/sign-in`, null)
      const visitor = sessionCookie(page)
      const res = await postForm(`${base}/sign-in`, visitor, { ...hiddenFields(await page.text()), email, password })
      expect(res.status).toBe(400)
      expect(await res.text()).toContain("The email or password is wrong.")
      expect((await getPage(`${base}/apps`, visitor)).status).toBe(303)
    }
  })

  it("30 sign-in attempts per 15 minutes per address: then 429 with Retry-After, even with the right password", async () => {
    const ip = "10.99.0.1"
    const page = await getPage(`${base}/sign-in`, null)
    const visitor = sessionCookie(page)
    const fields = hiddenFields(await page.text())
    for (let i = 0; i < 30; i++)
      expect((await postForm(`${base}/sign-in`, visitor, { ...fields, email: people.editor.email, password: `guess ${i}` }, ip)).status).toBe(400)
    const refused = await postForm(`${base}/sign-in`, visitor, { ...fields, email: people.editor.email, password: PASSWORD }, ip)
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800)
    expect(await refused.text()).toContain("Too many requests. Try again in 15 minutes.")
    expect(sessionCookie(refused)).toBeNull()
    expect((await postForm(`${base}/sign-in`, visitor, { ...fields, email: people.editor.email, password: PASSWORD })).status).toBe(303)
  })

  it("sign-in without the form's CSRF token: 403, not signed in", async () => {
    const page = await getPage(`${base}/sign-in`, null)
    const visitor = sessionCookie(page)
    const res = await postForm(`${base}/sign-in`, visitor, { email: people.editor.email, password: PASSWORD, csrf: "forged" })
    expect(res.status).toBe(403)
    expect(sessionCookie(res)).toBeNull()
  })

  it("after sign-in only a path of this app is followed (no open redirect)", async () => {
    for (const next of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const page = await getPage(`${base}/sign-in?next=${encodeURIComponent(next)}`, null)
      const res = await postForm(`${base}/sign-in`, sessionCookie(page), {
        ...hiddenFields(await page.text()),
        email: people.editor.email,
        password: PASSWORD
      })
      expect(res.headers.get("location")).toBe(`${base}/apps`)
    }
  })

  it("sign out ends the session on the server", async () => {
    const cookie = await signIn(base, people.editor.email, PASSWORD)
    const res = await pressButton(`${base}/apps`, `${base}/sign-out`, cookie, {})
    expect(res.status).toBe(303)
    expect(res.headers.getSetCookie()[0]).toMatch(/svc_session=;/)
    expect((await getPage(`${base}/apps`, cookie)).status).toBe(303)
  })
})

describe("Approved Apps", () => {
  it("lists the person's apps and the command line; Revoke stops a token at once", async () => {
    const cookie = cookieOf("editor")
    const appToken = await oauthToken(base, cookie, undefined, "Planner <Bot>")
    const cli = await cliToken(cookie)
    const page = await (await getPage(`${base}/apps`, cookie)).text()
    expect(page).toContain("Planner &lt;Bot&gt;")
    expect(page).toContain("Command line")
    expect(page).toContain("Shop")
    expect((await api(appToken).get("/integrations")).status).toBe(200)

    const ids = [...page.matchAll(/name="token" value="([^"]+)"/g)].map((m) => m[1] ?? "")
    const appId = await withDb(world, async (c) => (await c.query("SELECT id FROM api_tokens WHERE label = 'Planner <Bot>'")).rows[0].id)
    expect(ids).toContain(appId)
    const revoked = await postForm(`${base}/apps/revoke`, cookie, { csrf: hiddenFields(page)["csrf"] ?? "", token: appId })
    expect(revoked.status).toBe(303)
    expect((await api(appToken).get("/integrations")).json).toEqual({ error: "Invalid API key", msg: "Invalid API key" })
    expect((await api(cli).get("/integrations")).status).toBe(200)
    expect(await (await getPage(`${base}/apps`, cookie)).text()).not.toContain("Planner &lt;Bot&gt;")
  })

  it("a revoke or a pause on one gateway replica stops the token on another at once", async () => {
    const replica = await startServices(world, ["gateway"], { TRUST_PROXY: "1", PUBLIC_URL: base })
    try {
      const email = "rex@shop.test"
      const { userId } = await sys.admin.createUser({ workspaceId, email, password: PASSWORD, role: "editor", timezone: null })
      const cookie = await signIn(base, email, PASSWORD)
      const app = await oauthToken(base, cookie, undefined, "Replica app")
      const cli = await cliToken(cookie)
      const onReplica = (token: string) => client(`${replica.url}/public/v1`, token).get("/integrations")
      // used on the replica first, so anything it keeps about the tokens is warm
      for (const token of [app, cli]) for (let i = 0; i < 3; i++) expect((await onReplica(token)).status).toBe(200)

      const html = await (await getPage(`${base}/members?workspace=${workspaceId}`, cookieOf("owner"))).text()
      const paused = await postForm(`${base}/members/pause`, cookieOf("owner"), {
        csrf: hiddenFields(html)["csrf"] ?? "",
        workspace: workspaceId,
        user: userId,
        paused: "true"
      })
      expect(paused.status).toBe(303)
      expect(errorOf(await onReplica(cli)).code).toBe("member_paused")
      const resumed = await postForm(`${base}/members/pause`, cookieOf("owner"), {
        csrf: hiddenFields(html)["csrf"] ?? "",
        workspace: workspaceId,
        user: userId,
        paused: "false"
      })
      expect(resumed.status).toBe(303)
      expect((await onReplica(cli)).status).toBe(200)

      const apps = await (await getPage(`${base}/apps`, cookie)).text()
      const id = await withDb(world, async (c) => (await c.query("SELECT id FROM api_tokens WHERE label = 'Replica app'")).rows[0].id)
      expect((await postForm(`${base}/apps/revoke`, cookie, { csrf: hiddenFields(apps)["csrf"] ?? "", token: id })).status).toBe(303)
      expect((await onReplica(app)).json).toEqual({ error: "Invalid API key", msg: "Invalid API key" })
      expect((await onReplica(cli)).status).toBe(200)
    } finally {
      await replica.stop()
    }
  })

  it("another person's token cannot be revoked (404), nor without the CSRF token (403)", async () => {
    const token = await oauthToken(base, cookieOf("admin"), undefined, "Admin tool")
    const id = await withDb(world, async (c) => (await c.query("SELECT id FROM api_tokens WHERE label = 'Admin tool'")).rows[0].id)
    const editorPage = await (await getPage(`${base}/apps`, cookieOf("editor"))).text()
    expect((await postForm(`${base}/apps/revoke`, cookieOf("editor"), { csrf: hiddenFields(editorPage)["csrf"] ?? "", token: id })).status).toBe(404)
    expect((await postForm(`${base}/apps/revoke`, cookieOf("admin"), { csrf: "wrong", token: id })).status).toBe(403)
    expect((await api(token).get("/integrations")).status).toBe(200)
  })
})

describe("roles everywhere: a token of each role on the public API", () => {
  it("editor: cannot delete a channel (403); client: an empty media list and no posts written; admin: deletes", async () => {
    const editor = await oauthToken(base, cookieOf("editor"))
    const clientToken = await oauthToken(base, cookieOf("client"))
    const admin = await oauthToken(base, cookieOf("admin"))
    const owner = await cliToken(cookieOf("owner"))

    expect((await api(editor).del(`/integrations/${channelId}`)).status).toBe(403)
    expect((await api(clientToken).del(`/integrations/${channelId}`)).status).toBe(403)
    expect((await api(clientToken).get("/media")).json).toEqual([])
    const write = await api(clientToken).post("/posts", { type: "draft", content: "Hi", channels: [channelId] })
    expect(write.status).toBe(403)
    expect((await api(editor).post("/posts", { type: "draft", content: "Hi", channels: [channelId] })).status).toBe(200)
    for (const token of [editor, clientToken, admin, owner]) expect((await api(token).get("/integrations")).status).toBe(200)

    const extra = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Spare", customerId: null, postingTimes: [] })).channelId
    expect((await api(admin).del(`/integrations/${extra}`)).json).toEqual({ success: true })
    const another = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Spare 2", customerId: null, postingTimes: [] })).channelId
    expect((await api(owner).del(`/integrations/${another}`)).json).toEqual({ success: true })
  })
})

describe("the members page (owners and admins)", () => {
  const membersPage = (role: keyof typeof people) => getPage(`${base}/members?workspace=${workspaceId}`, cookieOf(role))

  /** Presses a member's button on the page: the role form or the pause form of that person. */
  const change = async (by: keyof typeof people, action: "role" | "pause", user: string, extra: Record<string, string>) => {
    const html = await (await membersPage(by)).text()
    const csrf = hiddenFields(html)["csrf"] ?? ""
    return postForm(`${base}/members/${action}`, cookieOf(by), { csrf, workspace: workspaceId, user, ...extra })
  }

  it("an editor or client cannot open it", async () => {
    expect((await membersPage("editor")).status).toBe(403)
    expect((await membersPage("client")).status).toBe(403)
  })

  it("an admin changes a role: the member's token acts with the new role at once", async () => {
    const email = "rita@shop.test"
    const { userId } = await sys.admin.createUser({ workspaceId, email, password: PASSWORD, role: "editor", timezone: null })
    const token = await oauthToken(base, await signIn(base, email, PASSWORD))
    expect((await api(token).post("/posts", { type: "draft", content: "Mine", channels: [channelId] })).status).toBe(200)
    const page = await (await membersPage("admin")).text()
    expect(page).toContain(email)
    expect((await change("admin", "role", userId, { role: "client" })).status).toBe(303)
    expect((await api(token).post("/posts", { type: "draft", content: "Mine", channels: [channelId] })).status).toBe(403)
    expect((await api(token).get("/media")).json).toEqual([])
  })

  it("pausing a member: their OAuth and CLI tokens answer 403 member_paused at once; resuming lets them in again", async () => {
    const email = "paul@shop.test"
    const { userId } = await sys.admin.createUser({ workspaceId, email, password: PASSWORD, role: "editor", timezone: null })
    const cookie = await signIn(base, email, PASSWORD)
    const app = await oauthToken(base, cookie)
    const cli = await cliToken(cookie)
    expect((await change("owner", "pause", userId, { paused: "true" })).status).toBe(303)
    for (const token of [app, cli]) {
      const res = await api(token).get("/integrations")
      expect(res.status).toBe(403)
      expect(errorOf(res).code).toBe("member_paused")
    }
    expect((await change("owner", "pause", userId, { paused: "false" })).status).toBe(303)
    expect((await api(app).get("/integrations")).status).toBe(200)
  })

  it("nobody changes the owner or themselves, and a form without its CSRF token changes nothing", async () => {
    expect((await change("admin", "role", people.owner.userId, { role: "client" })).status).toBe(403)
    expect((await change("admin", "pause", people.owner.userId, { paused: "true" })).status).toBe(403)
    expect((await change("admin", "role", people.admin.userId, { role: "editor" })).status).toBe(403)
    expect((await change("admin", "role", people.editor.userId, { role: "owner" })).status).toBe(400)
    const forged = await postForm(`${base}/members/role`, cookieOf("admin"), {
      csrf: "x",
      workspace: workspaceId,
      user: people.editor.userId,
      role: "client"
    })
    expect(forged.status).toBe(403)
    const roles = await withDb(
      world,
      async (c) =>
        (
          await c.query(
            "SELECT u.email, m.role, m.paused FROM memberships m JOIN users u ON u.id = m.user_id WHERE u.email = ANY($1) ORDER BY u.email",
            [[people.owner.email, people.admin.email, people.editor.email]]
          )
        ).rows
    )
    expect(roles).toEqual([
      { email: people.admin.email, role: "admin", paused: false },
      { email: people.editor.email, role: "editor", paused: false },
      { email: people.owner.email, role: "owner", paused: false }
    ])
  })
})

describe("an owner whose email is not confirmed", () => {
  it("makes the workspace's OAuth and CLI tokens answer 403 email_not_verified", async () => {
    const app = await oauthToken(base, cookieOf("editor"))
    const cli = await cliToken(cookieOf("editor"))
    await withDb(world, (c) => c.query("UPDATE users SET email_verified = false WHERE id = $1", [people.owner.userId]))
    try {
      for (const token of [app, cli]) {
        const res = await api(token).get("/integrations")
        expect(res.status).toBe(403)
        expect(errorOf(res).code).toBe("email_not_verified")
      }
    } finally {
      await withDb(world, (c) => c.query("UPDATE users SET email_verified = true WHERE id = $1", [people.owner.userId]))
    }
  })
})
