import Ajv2020 from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"
import { Redacted, Schema } from "effect"
import { sealCredentials } from "../../services/networks/credentials.js"
import { answerFrom, client, decoded, type Answer } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { answerOf, created, wholePost } from "../support/answers.js"

/**
 * The served OpenAPI document describes what is served: real answers of every served
 * endpoint (200 answers and error bodies) are validated against /public/v1/openapi.json
 * with an independent JSON Schema 2020-12 validator (ajv), its $refs resolved into the
 * document's components. An answer whose status the operation does not declare fails too.
 */

let world: TestWorld
let sys: RunningServices
let origin: LoopbackServer
let originUrl: string
let doc: OpenApiDoc

/** The parts of the OpenAPI document this test reads (JSON schemas stay as they are, for Ajv). */
const JsonSchema = Schema.Struct({ type: Schema.optional(Schema.String) }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const Content = Schema.Record({ key: Schema.String, value: Schema.Struct({ schema: Schema.optional(JsonSchema) }) })
const OpenApiResponse = Schema.Struct({
  content: Schema.optional(Content),
  headers: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Struct({ required: Schema.optional(Schema.Boolean), schema: Schema.optional(JsonSchema) }) })
  )
})
const OpenApiOperation = Schema.Struct({
  responses: Schema.optional(Schema.Record({ key: Schema.String, value: OpenApiResponse })),
  requestBody: Schema.optional(Schema.Struct({ content: Schema.optional(Content) })),
  parameters: Schema.optional(
    Schema.Array(
      Schema.Struct({
        in: Schema.String,
        name: Schema.String,
        required: Schema.optional(Schema.Boolean),
        schema: Schema.optional(Schema.Struct({ maxLength: Schema.optional(Schema.Number) }))
      })
    )
  )
})
const OpenApiDoc = Schema.Struct({
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: OpenApiOperation }) }),
  components: Schema.Unknown
})
type OpenApiDoc = typeof OpenApiDoc.Type

const DOC_ID = "https://openapi.test/openapi.json"
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

beforeAll(async () => {
  // a file server on loopback that only this test's outbound client may reach
  origin = await startLoopbackServer((_req, res) => {
    const body = png(20, 10)
    res.writeHead(200, { "content-type": "image/png", "content-length": body.length }).end(body)
  })
  const port = origin.origin.port
  originUrl = origin.url("")
  world = await createWorld("openapianswers")
  sys = await startServices(world, ["gateway", "actors"], {
    OUTBOUND_ALLOW: `127.0.0.1:${port}`,
    X_CLIENT_ID: "x-client",
    X_CLIENT_SECRET: "x-secret"
  })
  doc = Schema.decodeUnknownSync(OpenApiDoc)((await client(sys.url).get("/public/v1/openapi.json")).json)
  ajv.addSchema({ $id: DOC_ID, components: doc.components })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await origin?.close()
})

/** Every (method path status) validated, and every problem found. */
const validated = new Set<string>()
const problems: Array<string> = []

/** Validates one real answer against the operation's declared response for its status. */
const check = (method: string, template: string, res: Answer) => {
  const at = `${method.toUpperCase()} ${template} ${res.status}`
  const operation = doc.paths[`/public/v1${template}`]?.[method]
  if (operation === undefined) return void problems.push(`${at}: operation not documented`)
  const response = operation.responses?.[String(res.status)]
  if (response === undefined) return void problems.push(`${at}: status not declared (declared: ${Object.keys(operation.responses ?? {}).join(", ")})`)
  // an answer that is not JSON (GET /posts/export: CSV or JSON lines) is checked against its own content type
  const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? ""
  const own = type === "text/csv" || type === "application/x-ndjson" ? type : "application/json"
  const schema = response.content?.[own]?.schema
  if (schema === undefined) return void problems.push(`${at}: no ${own} schema`)
  const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`))
  const validate = ajv.compile(rooted)
  const values: ReadonlyArray<unknown> =
    own === "text/csv"
      ? [res.text]
      : own === "application/x-ndjson"
        ? res.text
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l))
        : [res.json]
  for (const value of values) {
    if (!validate(value)) problems.push(`${at}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(value).slice(0, 300)}`)
  }
  for (const name of Object.keys(response.headers ?? {})) {
    if (response.headers?.[name]?.required === true && res.headers.get(name) === null)
      problems.push(`${at}: header ${name} declared required, not sent`)
  }
  validated.add(at)
}

/** A new workspace with a test-network channel (under a customer when given). */
const workspace = async (customer: "none" | "with customer" = "none") => {
  const ws = await sys.admin.createWorkspace()
  const customerId =
    customer === "none" ? null : (await sys.admin.createCustomer({ workspaceId: ws.workspaceId, name: "Client A", approval: false })).customerId
  const newChannel = async (name: string, under: string | null) =>
    (await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name, customerId: under, postingTimes: [] })).channelId
  return { ws, api: client(sys.url, ws.apiKey), customerId, channel: await newChannel("T", customerId), newChannel }
}

/** Validates a request body a client sends against the operation's documented request body. */
const accepts = (method: string, template: string, body: unknown) => {
  const at = `${method.toUpperCase()} ${template} request`
  const schema = doc.paths[`/public/v1${template}`]?.[method]?.requestBody?.content?.["application/json"]?.schema
  if (schema === undefined) return void problems.push(`${at}: no documented JSON body`)
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)))
  if (!validate(body)) problems.push(`${at}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 300)}`)
}

const DAY = 86_400_000
const at = (ms: number) => new Date(Date.now() + ms).toISOString()
const NO_SUCH = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"

describe("real answers of every served endpoint validate against the served document (ajv, JSON Schema 2020-12)", () => {
  it("account, channels, networks, notifications", async () => {
    const { api, channel, customerId, newChannel, ws } = await workspace("with customer")
    const spare = await newChannel("Spare", null)

    check("get", "/is-connected", await api.get("/public/v1/is-connected"))
    check("get", "/is-connected", await client(sys.url).get("/public/v1/is-connected"))
    check("get", "/is-connected", await client(sys.url, "svc_live_wrong").get("/public/v1/is-connected"))
    check("get", "/integrations", await api.get("/public/v1/integrations"))
    check("get", "/integrations", await api.get(`/public/v1/integrations?group=${customerId}`))
    check("get", "/integrations", await api.get("/public/v1/integrations?group=nope"))
    check("get", "/groups", await api.get("/public/v1/groups"))
    check("get", "/integration-settings/{id}", await api.get(`/public/v1/integration-settings/${channel}`))
    check("get", "/integration-settings/{id}", await api.get(`/public/v1/integration-settings/${NO_SUCH}`))
    check("get", "/integration-settings/{id}", await api.get("/public/v1/integration-settings/nope"))
    check(
      "post",
      "/integration-trigger/{id}",
      await api.post(`/public/v1/integration-trigger/${channel}`, { methodName: "echo", data: { text: "hi" } })
    )
    check("post", "/integration-trigger/{id}", await api.post(`/public/v1/integration-trigger/${channel}`, { methodName: "nope" }))
    check("post", "/integration-trigger/{id}", await api.post(`/public/v1/integration-trigger/${NO_SUCH}`, { methodName: "echo" }))
    check("post", "/integration-trigger/{id}", await api.post(`/public/v1/integration-trigger/${channel}`, "{not json"))
    check("get", "/social/{integration}", await api.get("/public/v1/social/x"))
    check("get", "/social/{integration}", await api.get("/public/v1/social/bluesky"))
    check("get", "/social/{integration}", await api.get("/public/v1/social/nope"))
    check("get", "/integrations/{id}/health", await api.get(`/public/v1/integrations/${channel}/health`))
    // a channel whose token expires, with a refresh and a success recorded: every field filled but the quota
    await withDb(world, (c) =>
      c.query(
        "UPDATE channels SET credentials = $2, last_refresh_at = now(), last_refresh_result = 'refreshed', last_success_at = now() WHERE id = $1",
        [spare, sealCredentials(Redacted.make(world.env["SECRET_KEY"] ?? ""), { token: "t", expiresAt: at(2 * DAY) })]
      )
    )
    const health = await api.get(`/public/v1/integrations/${spare}/health`)
    expect(decoded(health, answerOf("account", "integrationHealth"))).toMatchObject({ lastRefreshResult: "refreshed", postsDueBeforeExpiry: 0 })
    check("get", "/integrations/{id}/health", health)
    check("get", "/integrations/{id}/health", await api.get(`/public/v1/integrations/${NO_SUCH}/health`))
    check("get", "/integrations/{id}/health", await api.get("/public/v1/integrations/nope/health"))
    check("delete", "/integrations/{id}", await api.del(`/public/v1/integrations/${spare}`))
    check("delete", "/integrations/{id}", await api.del(`/public/v1/integrations/${NO_SUCH}`))
    check("get", "/notifications", await api.get("/public/v1/notifications"))
    check("get", "/notifications", await api.get("/public/v1/notifications?page=0"))
    await sys.admin.setBilling({ workspaceId: ws.workspaceId, event: "renewed" })
    check("get", "/events", await api.get("/public/v1/events"))
    check("get", "/events", await api.get("/public/v1/events?after=soon"))
    check("get", "/networks", await api.get("/public/v1/networks"))
    check("get", "/rules/{identifier}", await api.get("/public/v1/rules/x"))
    check("get", "/rules/{identifier}", await api.get("/public/v1/rules/nope"))
    // a network without settings answers the text `No additional settings required`
    check("get", "/rules/{identifier}", await api.get("/public/v1/rules/threads"))
    const threads = (
      await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "threads", name: "Th", customerId: null, postingTimes: [] })
    ).channelId
    const bare = await api.get(`/public/v1/integration-settings/${threads}`)
    expect(decoded(bare, answerOf("account", "integrationSettings")).output.settings).toBe("No additional settings required")
    check("get", "/integration-settings/{id}", bare)
    expect(problems).toEqual([])
  })

  it("free slots and analytics", async () => {
    const { api, channel } = await workspace()
    check("get", "/find-slot", await api.get("/public/v1/find-slot"))
    check("get", "/find-slot", await api.get("/public/v1/find-slot?tzOffsetMinutes=330"))
    check("get", "/find-slot", await api.get("/public/v1/find-slot?tzOffsetMinutes=900"))
    check("get", "/find-slot/{id}", await api.get(`/public/v1/find-slot/${channel}`))
    check("get", "/find-slot/{id}", await api.get(`/public/v1/find-slot/${NO_SUCH}`))
    check("get", "/find-slot/{id}", await api.get("/public/v1/find-slot/nope"))
    check("get", "/analytics/{integration}", await api.get(`/public/v1/analytics/${channel}`))
    check("get", "/analytics/{integration}", await api.get(`/public/v1/analytics/${channel}?date=90`))
    check("get", "/analytics/{integration}", await api.get(`/public/v1/analytics/${channel}?date=14`))
    check("get", "/analytics/{integration}", await api.get(`/public/v1/analytics/${NO_SUCH}`))
    const draft = await api.post("/public/v1/posts", { type: "draft", content: "Statistics later", channels: [channel] })
    check("get", "/analytics/post/{postId}", await api.get(`/public/v1/analytics/post/${created(draft).postId}`))
    check("get", "/analytics/post/{postId}", await api.get(`/public/v1/analytics/post/${NO_SUCH}`))
    check("get", "/analytics/post/{postId}", await api.get("/public/v1/analytics/post/nope"))
    expect(problems).toEqual([])
  })

  it("media", async () => {
    const ws = await sys.admin.createWorkspace()
    const api = client(sys.url, ws.apiKey)
    const upload = async (bytes: Uint8Array, type: string) => {
      const form = new FormData()
      form.append("file", new Blob([bytes], { type }), "f.png")
      const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: ws.apiKey }, body: form })
      return answerFrom(res)
    }
    check("post", "/upload", await upload(png(10, 10), "image/png"))
    check("post", "/upload", await upload(new TextEncoder().encode("not an image"), "image/png"))
    check("post", "/upload-from-url", await api.post("/public/v1/upload-from-url", { url: `${originUrl}/photo.png` }))
    check("post", "/upload-from-url", await api.post("/public/v1/upload-from-url", { url: "http://10.0.0.1/a.png" }))
    check("get", "/media", await api.get("/public/v1/media"))
    check("get", "/media", await api.get("/public/v1/media?page=x"))
    expect(problems).toEqual([])
  })

  it("posts: every operation, its answers and its refusals", async () => {
    const { api, channel, newChannel } = await workspace()
    const other = await newChannel("U", null)
    const body = {
      type: "schedule",
      date: at(DAY),
      shortLink: false,
      tags: [{ value: "t", label: "Launch" }],
      posts: [
        {
          integration: { id: channel },
          value: [
            { content: "Hello", image: [{ id: "cli-made-up", path: `${originUrl}/photo.png` }] },
            { content: "More", delay: 5 }
          ],
          settings: { __type: "test", audience: "everyone" }
        },
        { integration: { id: other }, value: [{ content: "Hi" }] }
      ]
    }
    check("post", "/posts/preview", await api.post("/public/v1/posts/preview", body))
    check(
      "post",
      "/posts/preview",
      await api.post("/public/v1/posts/preview", { posts: [{ integration: { id: channel }, value: [{ content: "x".repeat(501) }] }] })
    )
    check(
      "post",
      "/posts/preview",
      await api.post("/public/v1/posts/preview", { posts: [{ integration: { id: NO_SUCH }, value: [{ content: "x" }] }] })
    )
    const first = await api.post("/public/v1/posts", body, { "idempotency-key": "k-1" })
    check("post", "/posts", first)
    const replayed = await api.post("/public/v1/posts", body, { "idempotency-key": "k-1" })
    expect(replayed.headers.get("idempotent-replayed")).toBe("true")
    check("post", "/posts", replayed)
    check("post", "/posts", await api.post("/public/v1/posts", { ...body, date: at(2 * DAY) }, { "idempotency-key": "k-1" }))
    check("post", "/posts", await api.post("/public/v1/posts", { posts: [{ integration: { id: channel }, value: [{ content: "x".repeat(501) }] }] }))
    check("post", "/posts", await api.post("/public/v1/posts", { posts: [{ integration: { id: NO_SUCH }, value: [{ content: "x" }] }] }))
    check("post", "/posts", await api.post("/public/v1/posts", { type: "schedule", date: "yesterday", content: "x", channels: [channel] }))
    check("post", "/posts", await api.post("/public/v1/posts", "{oops"))
    const { group, postId } = created(first)
    check("get", "/posts", await api.get(`/public/v1/posts?endDate=${encodeURIComponent(at(2 * DAY))}`))
    check("get", "/posts", await api.get("/public/v1/posts?startDate=never"))
    check("get", "/posts/{id}", await api.get(`/public/v1/posts/${group}`))
    check("get", "/posts/{id}", await api.get(`/public/v1/posts/${NO_SUCH}`))
    check("get", "/posts/{id}", await api.get("/public/v1/posts/nope"))
    check("put", "/posts/{id}/date", await api.put(`/public/v1/posts/${group}/date`, { date: at(3 * DAY) }))
    check("put", "/posts/{id}/date", await api.put(`/public/v1/posts/${group}/date`, { date: "soon" }))
    check("put", "/posts/{id}/status", await api.put(`/public/v1/posts/${group}/status`, { status: "draft" }))
    check("put", "/posts/{id}/status", await api.put(`/public/v1/posts/${group}/status`, { status: "later" }))
    check("put", "/posts/{id}/settings", await api.put(`/public/v1/posts/${postId}/settings`, { settings: { audience: "followers" } }))
    check("put", "/posts/{id}/settings", await api.put(`/public/v1/posts/${postId}/settings`, { settings: { audience: "nobody" } }))
    // a failed channel with a file: error objects and media items as the whole post and the rows show them
    const error = JSON.stringify({ message: "The network refused it.", fix: "Retry." })
    await withDb(world, async (c) => {
      await c.query("UPDATE posts SET status = 'error', error = $2 WHERE id = $1", [postId, error])
      await c.query("UPDATE post_items SET status = 'error', error = $2 WHERE post_id = $1 AND position = 0", [postId, error])
    })
    const failed = await api.get(`/public/v1/posts/${group}`)
    expect(wholePost(failed).status).toBe("error")
    expect(wholePost(failed).channels[0]?.root.media[0]).toMatchObject({ type: "image", mime: "image/png" })
    check("get", "/posts/{id}", failed)
    check("get", "/posts", await api.get(`/public/v1/posts?endDate=${encodeURIComponent(at(4 * DAY))}`))
    check("post", "/posts/{id}/retry", await api.post(`/public/v1/posts/${group}/retry`))
    check("post", "/posts/{id}/retry", await api.post(`/public/v1/posts/${NO_SUCH}/retry`))
    check("get", "/posts/{id}/missing", await api.get(`/public/v1/posts/${postId}/missing`))
    check("get", "/posts/{id}/missing", await api.get(`/public/v1/posts/${NO_SUCH}/missing`))
    // an attempt the network refused, with its call, as the publisher records it
    const call = { method: "POST", host: "api.network.test", path: "/v1/posts", status: 400, error: "bad", startedAt: at(0), durationMs: 5 }
    await withDb(world, (c) =>
      c.query(
        `INSERT INTO publish_attempts (id, item_id, workspace_id, attempt, finished_at, outcome, error, operation, calls)
         SELECT gen_random_uuid(), i.id, i.workspace_id, 1, now(), 'rejected', $2, 'publish', $3 FROM post_items i WHERE i.post_id = $1 AND i.position = 0`,
        [postId, error, JSON.stringify([call])]
      )
    )
    check("get", "/posts/{id}/attempts", await api.get(`/public/v1/posts/${group}/attempts`))
    check("get", "/posts/{id}/attempts", await api.get(`/public/v1/posts/${NO_SUCH}/attempts`))
    // import and export (docs/api.md, "Beyond the reference API")
    const file = `date,channels,content\n${at(DAY)},${channel},"Imported, once"\n${at(DAY)},${NO_SUCH},Nowhere\n`
    check("post", "/posts/import", await api.post("/public/v1/posts/import?dryRun=true", file, { "content-type": "text/csv" }))
    check("post", "/posts/import", await api.post("/public/v1/posts/import", file, { "content-type": "text/csv" }))
    check("post", "/posts/import", await api.post("/public/v1/posts/import", "date,content\n", { "content-type": "text/csv" }))
    check("get", "/posts/export", await api.get("/public/v1/posts/export"))
    check("get", "/posts/export", await api.get("/public/v1/posts/export?format=jsonl"))
    check("get", "/posts/export", await api.get("/public/v1/posts/export?format=xml"))
    check(
      "put",
      "/posts/{id}/release-id",
      await api.put(`/public/v1/posts/${postId}/release-id`, { releaseId: "live-1", releaseUrl: "https://t.example/1" })
    )
    check("put", "/posts/{id}/release-id", await api.put(`/public/v1/posts/${postId}/release-id`, {}))
    // an edit next to the live channel answers what each channel is
    const edited = await api.post("/public/v1/posts", { ...body, type: "draft", groupId: group })
    expect(
      decoded(edited, answerOf("posts", "createPosts"))
        .map((r) => r.status)
        .sort()
    ).toEqual(["draft", "published"])
    check("post", "/posts", edited)
    check("delete", "/posts/{id}", await api.del(`/public/v1/posts/${postId}`))
    check("delete", "/posts/{id}", await api.del(`/public/v1/posts/${postId}`))
    const second = await api.post("/public/v1/posts", { type: "draft", content: "Bye", channels: [channel] })
    check("delete", "/posts/group/{group}", await api.del(`/public/v1/posts/group/${created(second).group}`))
    check("delete", "/posts/group/{group}", await api.del(`/public/v1/posts/group/${NO_SUCH}`))
    expect(problems).toEqual([])
  })

  it("the limits: 413 over 5 MB, 429 over 90 posts an hour", async () => {
    const { api, channel } = await workspace()
    check("post", "/posts", await api.post("/public/v1/posts", { type: "draft", content: "x".repeat(5 * 1024 * 1024 + 10), channels: [channel] }))
    let last = await api.post("/public/v1/posts", { type: "draft", content: "0", channels: [channel] })
    for (let i = 1; i <= 90 && last.status === 200; i++)
      last = await api.post("/public/v1/posts", { type: "draft", content: `${i}`, channels: [channel] })
    expect(last.status).toBe(429)
    check("post", "/posts", last)
    expect(problems).toEqual([])
  })

  it("billing: 402 payment_failed after the grace, 401 no_subscription after the plan ended", async () => {
    for (const [event, status] of [
      ["grace_over", 402],
      ["ended", 401]
    ] as const) {
      const ws = await sys.admin.createWorkspace()
      if (event === "grace_over") await sys.admin.setBilling({ workspaceId: ws.workspaceId, event: "past_due" })
      await sys.admin.setBilling({ workspaceId: ws.workspaceId, event })
      const res = await client(sys.url, ws.apiKey).get("/public/v1/groups")
      expect(res.status).toBe(status)
      check("get", "/groups", res)
    }
    expect(problems).toEqual([])
  })

  it("the request bodies clients send (both POST /posts forms as the reference clients send them) fit the documented bodies", () => {
    const channel = NO_SUCH
    accepts("post", "/posts", {
      type: "schedule",
      date: "2024-12-31T12:00:00Z",
      shortLink: false,
      tags: [],
      posts: [
        {
          integration: { id: channel },
          value: [{ content: "<p>Hi</p>", image: [{ id: "x1", path: "https://a.example/a.jpg" }], delay: 0 }],
          settings: { __type: "x" }
        }
      ]
    })
    accepts("post", "/posts", {
      type: "update",
      groupId: channel,
      tags: ["launch", { value: "v", label: "L" }],
      posts: [{ channelId: channel, group: channel, value: [{ id: channel, content: "x", media: [channel] }] }]
    })
    accepts("post", "/posts", {
      type: "now",
      content: "Hello",
      channels: [channel, { channelId: channel, content: "Own", media: [channel], settings: {}, thread: [{ content: "t", delay: 5 }] }],
      thread: [{ content: "t" }],
      creationMethod: "agent",
      inter: 7
    })
    accepts("put", "/posts/{id}/date", { date: "2030-01-01T00:00:00Z" })
    accepts("put", "/posts/{id}/status", { status: "schedule" })
    accepts("put", "/posts/{id}/settings", { settings: { audience: "everyone" } })
    accepts("put", "/posts/{id}/release-id", { releaseId: "1", releaseUrl: "https://t.example/1" })
    accepts("post", "/integration-trigger/{id}", { methodName: "echo", data: { text: "hi" } })
    accepts("post", "/upload-from-url", { url: "https://a.example/a.png" })
    expect(problems).toEqual([])
  })

  it("every operation without a key: 401 with the spec's body", async () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item)) {
        const template = path.replace(/^\/public\/v1/, "")
        const concrete = template.replace(/\{(integration|identifier)\}/g, "x").replace(/\{[^}]+\}/g, NO_SUCH)
        const res = await client(sys.url).request(method.toUpperCase(), `/public/v1${concrete}`)
        expect(res.status).toBe(401)
        check(method, template, res)
      }
    }
    expect(problems).toEqual([])
  })

  it("every served operation had a 200 answer and an error answer validated", () => {
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/^\/public\/v1/, "")}`)
    )
    // the 28 endpoints of the spec and those beyond it (docs/api.md, "Beyond the reference API")
    expect(operations.length).toBe(28 + 6)
    const missing = operations.flatMap((op) => [
      ...([...validated].some((v) => v === `${op} 200`) ? [] : [`${op} 200`]),
      ...([...validated].some((v) => v.startsWith(`${op} 4`)) ? [] : [`${op} 4xx`])
    ])
    expect(missing).toEqual([])
  })
})

describe("the document declares the headers clients rely on", () => {
  it("Idempotency-Key: a request header of at most 255 characters", () => {
    const header = doc.paths["/public/v1/posts"]?.["post"]?.parameters?.find((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key")
    expect(header).toBeDefined()
    expect(header?.required ?? false).toBe(false)
    expect(header?.schema?.maxLength).toBe(255)
  })

  it("Idempotent-Replayed on the 200 of POST /posts", () => {
    const headers = doc.paths["/public/v1/posts"]?.["post"]?.responses?.["200"]?.headers ?? {}
    const name = Object.keys(headers).find((h) => h.toLowerCase() === "idempotent-replayed")
    expect(name).toBeDefined()
    expect(headers[name ?? ""]?.schema).toMatchObject({ type: "string", enum: ["true"] })
  })

  it("Retry-After on every 429", () => {
    const without: Array<string> = []
    let seen = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const tooMany = operation.responses?.["429"]
        if (tooMany === undefined) continue
        seen++
        const name = Object.keys(tooMany.headers ?? {}).find((h) => h.toLowerCase() === "retry-after")
        if (name === undefined || tooMany.headers?.[name]?.schema?.type !== "integer") without.push(`${method} ${path}`)
      }
    }
    expect(seen).toBeGreaterThan(0)
    expect(without).toEqual([])
  })
})
