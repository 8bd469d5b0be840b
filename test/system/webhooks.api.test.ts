import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Schema } from "effect"
import { Webhook, WebhookDelivery } from "../../protocol/http/webhooks.js"
import { client, decoded, errorOf, type Answer } from "../support/http.js"

const webhooksOf = (answer: Answer) => decoded(answer, Schema.Array(Webhook))
/** A webhook as its owner or an admin sees it: with its secret. */
const WebhookWithSecret = Schema.Struct({ ...Webhook.fields, secret: Schema.String })
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"
import { startReceiver, verifies, type Receiver } from "../support/webhookReceiver.js"
import { present } from "../support/answers.js"

/**
 * Webhook management at /api/webhooks (spec: Webhook management, Configuring a webhook,
 * Limits 12): who may do what, what is refused with which body, the plan limit, the
 * secret's rotation and Send Test.
 */

let world: TestWorld
let sys: RunningServices
let receiver: Receiver

beforeAll(async () => {
  receiver = await startReceiver()
  world = await createWorld("webhooksapi")
  sys = await startServices(world, ["gateway"], { OUTBOUND_ALLOW: receiver.origin })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await receiver?.close()
})

const newWorkspace = async (plan: "standard" | "team" = "standard") => {
  const ws = await sys.admin.createWorkspace("Hooks", plan)
  const { channelId } = await sys.admin.createChannel({
    workspaceId: ws.workspaceId,
    network: "test",
    name: "Main",
    customerId: null,
    postingTimes: []
  })
  return { ...ws, channelId, api: client(sys.url, ws.apiKey) }
}

const asRole = async (workspaceId: string, role: "owner" | "admin" | "editor" | "client") => {
  const { userId } = await sys.admin.createUser({
    workspaceId,
    email: `${role}-${crypto.randomUUID()}@example.com`,
    password: "long enough password",
    role,
    timezone: null
  })
  return client(sys.url, await issueUserToken(world, workspaceId, userId))
}

describe("POST /api/webhooks", () => {
  it("creates a webhook: 201, the Webhook with a whsec_ secret; no events means the defaults at delivery", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/api/webhooks", { name: "Zapier", url: receiver.url("/a") })
    expect(res.status).toBe(201)
    expect(res.json).toEqual({
      id: expect.any(String),
      name: "Zapier",
      url: receiver.url("/a"),
      events: [],
      channelIds: [],
      active: true,
      pausedReason: null,
      secret: expect.stringMatching(/^whsec_/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    })
  })

  it.each([
    ["a private address", "http://10.0.0.1/hook"],
    ["loopback not in OUTBOUND_ALLOW", "http://127.0.0.1:1/hook"],
    ["localhost", "http://localhost/hook"],
    ["the metadata address", "http://169.254.169.254/latest"],
    ["another scheme", "ftp://example.com/hook"],
    ["not a URL", "not a url"],
    ["userinfo", "http://user@example.com/hook"]
  ])("refuses %s with 400 and a fix", async (_case, url) => {
    const w = await newWorkspace()
    const res = await w.api.post("/api/webhooks", { name: "Bad", url })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/^url must be a public http or https address/)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
    expect(errorOf(res).fix).toMatch(/Localhost and private addresses are refused/)
  })

  it("refuses an unknown event and `test` as an event (400), and an unknown channel", async () => {
    const w = await newWorkspace()
    const unknown = await w.api.post("/api/webhooks", { name: "x", url: receiver.url("/a"), events: ["post.deleted"] })
    expect(unknown.status).toBe(400)
    expect(errorOf(unknown).error).toBe('Unknown event "post.deleted".')
    const test = await w.api.post("/api/webhooks", { name: "x", url: receiver.url("/a"), events: ["test"] })
    expect(test.status).toBe(400)
    expect(errorOf(test).error).toBe("`test` cannot be chosen as an event.")
    const channel = await w.api.post("/api/webhooks", { name: "x", url: receiver.url("/a"), channelIds: [crypto.randomUUID()] })
    expect(channel.status).toBe(400)
    const missing = await w.api.post("/api/webhooks", { url: receiver.url("/a") })
    expect(missing.status).toBe(400)
    expect(errorOf(missing).error).toBe("name is required.")
    const notJson = await w.api.post("/api/webhooks", "{nope")
    expect(notJson.status).toBe(400)
    expect(errorOf(notJson).error).toBe("The request body is not valid JSON.")
    expect((await w.api.get("/api/webhooks")).json).toEqual([])
  })

  it("Standard allows 2 webhooks: the third gets 402 with a fix; Team allows more", async () => {
    const w = await newWorkspace("standard")
    for (const n of [1, 2]) expect((await w.api.post("/api/webhooks", { name: `h${n}`, url: receiver.url("/a") })).status).toBe(201)
    const third = await w.api.post("/api/webhooks", { name: "h3", url: receiver.url("/a") })
    expect(third.status).toBe(402)
    expect(third.json).toEqual({
      error: "The Standard plan allows 2 webhooks.",
      msg: "The Standard plan allows 2 webhooks.",
      fix: expect.stringMatching(/upgrade to the Team plan/)
    })
    const team = await newWorkspace("team")
    for (const n of [1, 2, 3]) expect((await team.api.post("/api/webhooks", { name: `h${n}`, url: receiver.url("/a") })).status).toBe(201)
  })
})

describe("Webhooks over the plan limit after a plan change", () => {
  it("are paused (pausedReason) after a downgrade and resume on their own after an upgrade", async () => {
    const w = await newWorkspace("team")
    for (const n of [1, 2, 3]) await w.api.post("/api/webhooks", { name: `h${n}`, url: receiver.url("/a") })
    const setPlan = (plan: string) => withDb(world, (c) => c.query("UPDATE workspaces SET plan = $1 WHERE id = $2", [plan, w.workspaceId]))
    await setPlan("standard")
    const paused = webhooksOf(await w.api.get("/api/webhooks"))
    expect(paused.map((h) => [h.name, h.pausedReason !== null])).toEqual([
      ["h1", false],
      ["h2", false],
      ["h3", true]
    ])
    expect(paused[2]?.pausedReason).toMatch(/Standard plan allows 2 webhooks/)
    await setPlan("team")
    expect(webhooksOf(await w.api.get("/api/webhooks")).every((h) => h.pausedReason === null)).toBe(true)
  })
})

describe("GET /api/webhooks and roles", () => {
  it("owners and admins get each secret; editors get the list without it; clients an empty list; other routes 403", async () => {
    const w = await newWorkspace()
    await w.api.post("/api/webhooks", { name: "h", url: receiver.url("/a") })
    const owner = await asRole(w.workspaceId, "owner")
    const admin = await asRole(w.workspaceId, "admin")
    const editor = await asRole(w.workspaceId, "editor")
    const customer = await asRole(w.workspaceId, "client")
    expect(webhooksOf(await owner.get("/api/webhooks"))[0]?.secret).toMatch(/^whsec_/)
    expect(webhooksOf(await admin.get("/api/webhooks"))[0]?.secret).toMatch(/^whsec_/)
    const editorList = await editor.get("/api/webhooks")
    expect(editorList.status).toBe(200)
    expect(editorList.json).toHaveLength(1)
    expect(webhooksOf(editorList)[0]).not.toHaveProperty("secret")
    expect((await customer.get("/api/webhooks")).json).toEqual([])
    const id = present(webhooksOf(editorList)[0], "the webhook").id
    for (const api of [editor, customer]) {
      expect((await api.post("/api/webhooks", { name: "x", url: receiver.url("/a") })).status).toBe(403)
      expect((await api.post(`/api/webhooks/${id}/rotate-secret`)).status).toBe(403)
      expect((await api.get(`/api/webhooks/${id}/deliveries`)).status).toBe(403)
      expect((await api.del(`/api/webhooks/${id}`)).status).toBe(403)
    }
    const refused = await editor.post(`/api/webhooks/${id}/rotate-secret`)
    expect(refused.json).toMatchObject({ error: "Your role cannot do this.", msg: "Your role cannot do this." })
    expect((await admin.post("/api/webhooks", { name: "by admin", url: receiver.url("/a") })).status).toBe(201)
  })

  it("the same authentication as the public API: no header 401, a wrong key 401; ids: not a UUID 400, another workspace's 404", async () => {
    const w = await newWorkspace()
    const other = await newWorkspace()
    const theirs = decoded(await other.api.post("/api/webhooks", { name: "theirs", url: receiver.url("/a") }), Webhook).id
    expect((await client(sys.url).get("/api/webhooks")).json).toEqual({ error: "No API Key found", msg: "No API Key found" })
    expect((await client(sys.url, "svc_live_wrong").get("/api/webhooks")).status).toBe(401)
    const bad = await w.api.get("/api/webhooks/nope/deliveries")
    expect(bad.status).toBe(400)
    expect(errorOf(bad).error).toBe("One of the ids is not valid.")
    const notOurs = await w.api.post(`/api/webhooks/${theirs}/rotate-secret`)
    expect(notOurs.status).toBe(404)
    expect(errorOf(notOurs).error).toBe("Webhook not found")
    expect((await w.api.del(`/api/webhooks/${theirs}`)).status).toBe(404)
  })
})

describe("PUT, DELETE, rotate-secret, Send Test", () => {
  it("update changes what is given; rotate gives a new secret; Send Test delivers `test` signed with it, attempt 1 in the log; delete removes it", async () => {
    const w = await newWorkspace()
    const created = decoded(await w.api.post("/api/webhooks", { name: "h", url: receiver.url("/before") }), WebhookWithSecret)
    const updated = await w.api.put(`/api/webhooks/${created.id}`, {
      url: receiver.url("/send-test"),
      events: ["post.failed", "billing.changed"],
      channelIds: [w.channelId]
    })
    expect(updated.status).toBe(200)
    expect(updated.json).toMatchObject({
      name: "h",
      url: receiver.url("/send-test"),
      events: ["post.failed", "billing.changed"],
      channelIds: [w.channelId],
      secret: created.secret
    })
    expect((await w.api.put(`/api/webhooks/${created.id}`, { events: ["test"] })).status).toBe(400)

    const rotated = await w.api.post(`/api/webhooks/${created.id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    const { secret } = decoded(rotated, WebhookWithSecret)
    expect(secret).toMatch(/^whsec_/)
    expect(secret).not.toBe(created.secret)

    const sent = await w.api.post(`/api/webhooks/${created.id}/test`)
    expect(sent.status).toBe(200)
    expect(sent.json).toEqual({
      id: expect.any(String),
      deliveryId: expect.any(String),
      createdAt: expect.any(String),
      event: "test",
      status: 200,
      error: null,
      attempt: 1,
      ok: true
    })
    const [got] = receiver.at("/send-test")
    expect(got).toBeDefined()
    // a Send Test is not an event of the log: no sequence number
    expect(got!.headers["x-service-sequence"]).toBeUndefined()
    expect(await verifies(secret, got!)).toBe(true)
    expect(await verifies(created.secret, got!)).toBe(false)
    expect(JSON.parse(got!.body)).toEqual({
      event: "test",
      createdAt: decoded(sent, WebhookDelivery).createdAt,
      data: { message: expect.any(String) }
    })
    expect(got!.headers["x-service-event"]).toBe("test")

    const log = await w.api.get(`/api/webhooks/${created.id}/deliveries`)
    expect(log.json).toEqual([sent.json])

    expect((await w.api.del(`/api/webhooks/${created.id}`)).json).toEqual({ success: true })
    expect((await w.api.get("/api/webhooks")).json).toEqual([])
    expect((await w.api.get(`/api/webhooks/${created.id}/deliveries`)).status).toBe(404)
  })

  it("the app API is not part of the public OpenAPI document", async () => {
    const doc = decoded(
      await client(sys.url).get("/public/v1/openapi.json"),
      Schema.Struct({ paths: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
      { exact: false }
    )
    expect(Object.keys(doc.paths).some((p) => p.includes("webhooks"))).toBe(false)
  })
})

describe("admin CLI: webhook create and webhook test refuse clearly (exit 2)", () => {
  const cli = async (...args: ReadonlyArray<string>) => {
    try {
      await promisify(execFile)("npx", ["tsx", "services/cli.ts", ...args], {
        cwd: process.cwd(),
        env: { ...process.env, ...world.env },
        timeout: 60_000
      })
      return { code: 0, stderr: "" }
    } catch (e) {
      const failed = e as { code?: number; stderr?: string }
      return { code: failed.code ?? -1, stderr: failed.stderr ?? "" }
    }
  }
  it("a private URL and an unknown webhook", async () => {
    const w = await newWorkspace()
    const privateUrl = await cli("webhook", "create", "--workspace", w.workspaceId, "--name", "n", "--url", "http://192.168.0.1/in")
    expect(privateUrl.code).toBe(2)
    expect(privateUrl.stderr).toMatch(/^url must be a public http or https address \(private IPv4 address\)\. Use the address/m)
    const unknown = await cli("webhook", "test", "--webhook", crypto.randomUUID())
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/^No webhook /m)
    expect((await w.api.get("/api/webhooks")).json).toEqual([])
  }, 120_000)
})
