import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { HttpServer } from "@effect/platform"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Role } from "../../domain/roles.js"
import { GatewayLive } from "../../services/gateway/server.js"
import { systemResolver } from "../../services/platform/outbound/resolver.js"
import { OutboundHttpTest, startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"
import { answerFrom, client, decode, decoded, errorOf } from "../support/http.js"
import { OpenApiDocument } from "../support/openApiDocument.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, infrastructure, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"
import { wholePost } from "../support/answers.js"

/**
 * The MCP server at /mcp (spec: Other endpoints, Limits, Errors; issue 13 item 6), driven
 * by the official SDK client over Streamable HTTP. Each tool answers what the REST API
 * answers for the same request, because both call the same feature service.
 */

let world: TestWorld
let sys: RunningServices
let dataDir: string
let files: LoopbackServer
/** A second gateway replica of the same world, whose outbound client may reach the local file server. */
let replica: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
let replicaUrl: string

const image = png(20, 10)

beforeAll(async () => {
  files = await startLoopbackServer(
    (_req, res) => void res.writeHead(200, { "content-type": "image/png", "content-length": image.length }).end(image)
  )
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "mcp-test-"))
  world = await createWorld("mcp")
  sys = await startServices(world, ["gateway", "actors"], { DATA_DIR: dataDir })
  const outbound = OutboundHttpTest({ resolver: systemResolver, allow: [files.origin] })
  replica = ManagedRuntime.make(GatewayLive.pipe(Layer.provideMerge(Layer.merge(infrastructure(world, { DATA_DIR: dataDir }), outbound))))
  const address = await replica.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  replicaUrl = `http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}`
})
afterAll(async () => {
  await replica?.dispose()
  await sys?.stop()
  await world?.drop()
  await files?.close()
  if (dataDir !== undefined) await fs.rm(dataDir, { recursive: true, force: true })
})

const connect = async (token: string, baseUrl = sys.url) => {
  const mcp = new Client({ name: "mcp-test", version: "1.0.0" })
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return mcp
}

/** A tools/call result (MCP 2025-06-18, CallToolResult). */
const ToolResult = Schema.Struct({
  content: Schema.Array(Schema.Unknown),
  structuredContent: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  isError: Schema.optional(Schema.Boolean)
})

/** A JSON-RPC 2.0 response: a result or an error, for the request's id (null when it could not be read). */
const JsonRpcResponse = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.NullOr(Schema.Union(Schema.Number, Schema.String)),
  result: Schema.optional(Schema.Unknown),
  error: Schema.optional(Schema.Struct({ code: Schema.Number, message: Schema.String, data: Schema.optional(Schema.Unknown) }))
})

/** A tool's structured answer (the SDK client has already checked it against the tool's output schema). */
const call = async (mcp: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = decode(ToolResult, await mcp.callTool({ name, arguments: args }), `the result of ${name}`)
  return { isError: result.isError === true, body: result.structuredContent ?? {} }
}

/** The SDK client throws a JSON-RPC error as an McpError with its code and data. */
const rpcError = async (mcp: Client, name: string, args: unknown) => {
  try {
    await mcp.callTool({ name, arguments: args as Record<string, unknown> })
  } catch (e) {
    if (e instanceof McpError) return e
    throw e
  }
  throw new Error("expected a JSON-RPC error")
}

/** Raw JSON-RPC over HTTP, for what a well-behaved client never sends. */
const rpc = async (token: string | null, body: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${sys.url}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...headers
    },
    body
  })
  return answerFrom(res)
}
const ping = (token: string, id = 1) => rpc(token, JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }))

const newWorkspace = async () => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Rehearsal", customerId: null, postingTimes: [] })
  return { apiKey, workspaceId, channelId, api: client(sys.url, apiKey) }
}

const postCount = (workspaceId: string) =>
  withDb(
    world,
    async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1", [workspaceId])).rows[0]!.n
  )

const inAnHour = () => new Date(Date.now() + 3600_000).toISOString()

const allTools = [
  "find_free_slot",
  "get_channel_analytics",
  "get_post_analytics",
  "list_channels",
  "list_customers",
  "list_networks",
  "get_network_rules",
  "get_channel_rules",
  "run_channel_tool",
  "list_posts",
  "get_post",
  "create_post",
  "import_posts",
  "edit_post",
  "move_post",
  "set_post_status",
  "set_post_settings",
  "delete_post",
  "retry_post",
  "find_missing_post",
  "set_release_id",
  "upload_media_from_url",
  "list_media",
  "list_notifications",
  "list_events",
  "get_post_attempts",
  "preview_post",
  "get_channel_health"
]

describe("tools/list", () => {
  it("lists every tool with a description, JSON Schema input, output schema and the three MCP hints", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const { tools } = await mcp.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([...allTools].sort())
    for (const tool of tools) {
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40)
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type).toBe("object")
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe("boolean")
      expect(typeof tool.annotations?.destructiveHint, tool.name).toBe("boolean")
      expect(typeof tool.annotations?.idempotentHint, tool.name).toBe("boolean")
    }
    const hints = Object.fromEntries(tools.map((t) => [t.name, t.annotations]))
    expect(hints["delete_post"]?.destructiveHint).toBe(true)
    expect(hints["list_posts"]?.readOnlyHint).toBe(true)
    expect(hints["create_post"]?.readOnlyHint).toBe(false)
    await mcp.close()
  })
})

describe("resources: each network's rules", () => {
  it("lists one resource per network; reading one gives GET /rules/{identifier}; an unknown one is -32002", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const { resources } = await mcp.listResources()
    expect(resources.map((r) => r.name).sort()).toEqual(
      ((await w.api.get("/public/v1/networks")).json as Array<{ identifier: string }>).map((n) => n.identifier).sort()
    )
    const read = await mcp.readResource({ uri: "rules://networks/test" })
    expect(read.contents).toHaveLength(1)
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual((await w.api.get("/public/v1/rules/test")).json)
    await expect(mcp.readResource({ uri: "rules://networks/myspace" })).rejects.toMatchObject({ code: -32002 })
    await mcp.close()
  })
})

describe("every tool answers what the REST API answers", () => {
  it("find_free_slot and the analytics tools: the answers of GET /find-slot and GET /analytics for the same input", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    for (const offset of [undefined, 0, 330, -600, 840]) {
      const q = offset === undefined ? "" : `?tzOffsetMinutes=${offset}`
      const args = offset === undefined ? {} : { tzOffsetMinutes: offset }
      expect((await call(mcp, "find_free_slot", args)).body).toEqual((await w.api.get(`/public/v1/find-slot${q}`)).json)
      expect((await call(mcp, "find_free_slot", { ...args, channelId: w.channelId })).body).toEqual(
        (await w.api.get(`/public/v1/find-slot/${w.channelId}${q}`)).json
      )
    }
    const outOfRange = await call(mcp, "find_free_slot", { tzOffsetMinutes: 841 })
    expect(outOfRange).toEqual({ isError: true, body: (await w.api.get("/public/v1/find-slot?tzOffsetMinutes=841")).json })

    for (const days of [7, 30, 90]) {
      const rest = (await w.api.get(`/public/v1/analytics/${w.channelId}?date=${days}`)).json
      expect((await call(mcp, "get_channel_analytics", { channelId: w.channelId, days })).body).toEqual({ metrics: rest })
    }
    const badRange = await call(mcp, "get_channel_analytics", { channelId: w.channelId, days: 14 })
    expect(badRange).toEqual({ isError: true, body: (await w.api.get(`/public/v1/analytics/${w.channelId}?date=14`)).json })

    const draft = await call(mcp, "create_post", { type: "draft", content: "Not out yet", channels: [w.channelId] })
    const group = (draft.body["posts"] as ReadonlyArray<{ group: string }>)[0]!.group
    const notPublished = await call(mcp, "get_post_analytics", { postId: group })
    expect(notPublished.body).toEqual((await w.api.get(`/public/v1/analytics/post/${group}`)).json)
    expect(notPublished.body).toMatchObject({ missing: true })
    await mcp.close()
  })

  it("reads: channels, customers, networks, rules, channel health, posts, media, notifications", async () => {
    const w = await newWorkspace()
    const customer = await sys.admin.createCustomer({ workspaceId: w.workspaceId, name: "Acme", approval: false })
    expect(customer).toBeDefined()
    const mcp = await connect(w.apiKey)
    expect((await call(mcp, "list_channels")).body).toEqual({ channels: (await w.api.get("/public/v1/integrations")).json })
    expect((await call(mcp, "list_customers")).body).toEqual({ customers: (await w.api.get("/public/v1/groups")).json })
    expect((await call(mcp, "list_networks")).body).toEqual({ networks: (await w.api.get("/public/v1/networks")).json })
    expect((await call(mcp, "get_network_rules", { network: "test" })).body).toEqual((await w.api.get("/public/v1/rules/test")).json)
    expect((await call(mcp, "get_channel_rules", { channelId: w.channelId })).body).toEqual(
      (await w.api.get(`/public/v1/integration-settings/${w.channelId}`)).json
    )
    expect((await call(mcp, "run_channel_tool", { channelId: w.channelId, methodName: "echo", data: { text: "hi" } })).body).toEqual(
      (await w.api.post(`/public/v1/integration-trigger/${w.channelId}`, { methodName: "echo", data: { text: "hi" } })).json
    )
    expect((await call(mcp, "list_notifications")).body).toEqual((await w.api.get("/public/v1/notifications")).json)
    expect((await call(mcp, "get_channel_health", { channelId: w.channelId })).body).toEqual(
      (await w.api.get(`/public/v1/integrations/${w.channelId}/health`)).json
    )

    // any gateway replica answers (stateless): the one whose outbound client may reach the file server
    const onReplica = await connect(w.apiKey, replicaUrl)
    const media = await call(onReplica, "upload_media_from_url", { url: files.url("/files/photo.png") })
    expect(media.isError, JSON.stringify(media.body)).toBe(false)
    expect(media.body).toMatchObject({ name: "photo.png", type: "image", status: "ready" })
    const listed = (await w.api.get("/public/v1/media")).json
    expect(listed).toEqual([media.body])
    expect((await call(mcp, "list_media")).body).toEqual({ media: listed })
    expect((await call(mcp, "list_media", { search: "photo" })).body).toEqual({ media: (await w.api.get("/public/v1/media?search=photo")).json })
    const refused = await call(mcp, "upload_media_from_url", { url: "http://169.254.169.254/latest/meta-data" })
    expect(refused).toEqual({
      isError: true,
      body: (await w.api.post("/public/v1/upload-from-url", { url: "http://169.254.169.254/latest/meta-data" })).json
    })
    await onReplica.close()

    const unknown = await call(mcp, "get_network_rules", { network: "myspace" })
    expect(unknown).toEqual({ isError: true, body: (await w.api.get("/public/v1/rules/myspace")).json })
    await mcp.close()
  })

  it("import_posts: the answer of POST /posts/import for the same text, a dry run saving nothing", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const file = `date,channels,content\n${inAnHour()},${w.channelId},"From a file, by an agent"\n${inAnHour()},6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f,Nowhere\n`
    const dry = await call(mcp, "import_posts", { file, dryRun: true })
    expect(dry.body).toEqual((await w.api.post("/public/v1/posts/import?dryRun=true", file, { "content-type": "text/csv" })).json)
    expect(await postCount(w.workspaceId)).toBe(0)
    const saved = await call(mcp, "import_posts", { file, idempotencyKey: "agent-file" })
    expect(saved.body).toMatchObject({
      dryRun: false,
      saved: 1,
      refused: 1,
      rows: [
        { row: 1, status: "saved" },
        { row: 2, status: "refused", error: "Channel not found" }
      ]
    })
    expect((await call(mcp, "import_posts", { file, idempotencyKey: "agent-file" })).body).toEqual(saved.body)
    expect(await postCount(w.workspaceId)).toBe(1)
    await mcp.close()
  })

  it("writes: create, get, list, edit, move, status, settings, missing, release-id, retry, delete; creationMethod mcp", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const created = await call(mcp, "create_post", { type: "draft", date: inAnHour(), content: "Hello from an agent", channels: [w.channelId] })
    expect(created.isError).toBe(false)
    const rows = created.body["posts"] as Array<{ postId: string; group: string; integration: string; status: string }>
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ integration: w.channelId, status: "draft" })
    expect(created.body["replayed"]).toBe(false)
    const { group, postId } = rows[0]!

    const post = await call(mcp, "get_post", { postId: group })
    expect(post.body).toEqual(wholePost(await w.api.get(`/public/v1/posts/${group}`)))
    expect(post.body["creationMethod"]).toBe("mcp")
    expect((await call(mcp, "get_post", { postId })).body).toEqual(post.body)
    expect((await call(mcp, "list_posts")).body).toEqual((await w.api.get("/public/v1/posts")).json)

    const edited = await call(mcp, "edit_post", {
      groupId: group,
      type: "draft",
      date: inAnHour(),
      content: "Edited by an agent",
      channels: [w.channelId]
    })
    expect(edited.isError).toBe(false)
    expect(wholePost(await w.api.get(`/public/v1/posts/${group}`)).channels[0]?.root.content).toBe("Edited by an agent")

    const later = new Date(Date.now() + 2 * 3600_000).toISOString()
    const moved = await call(mcp, "move_post", { postId: group, date: later })
    expect(moved.body).toEqual(wholePost(await w.api.get(`/public/v1/posts/${group}`)))
    expect(moved.body["publishAt"]).toBe(later)

    const scheduled = await call(mcp, "set_post_status", { postId: group, status: "schedule" })
    expect(scheduled.body).toEqual(wholePost(await w.api.get(`/public/v1/posts/${group}`)))
    expect(scheduled.body["status"]).toBe("scheduled")
    expect((await call(mcp, "set_post_status", { postId: group, status: "draft" })).body["status"]).toBe("draft")

    const settings = await call(mcp, "set_post_settings", { postId, settings: { outcome: "reject" } })
    expect(settings.body).toEqual(wholePost(await w.api.get(`/public/v1/posts/${group}`)))

    expect((await call(mcp, "find_missing_post", { postId })).body).toEqual({ matches: (await w.api.get(`/public/v1/posts/${postId}/missing`)).json })

    const retried = await call(mcp, "retry_post", { postId: group })
    expect(retried.body).toEqual(wholePost(await w.api.get(`/public/v1/posts/${group}`)))

    const linked = await call(mcp, "set_release_id", { postId, releaseId: "live-1", releaseUrl: "https://example.com/live-1" })
    expect(linked.body).toEqual(wholePost(await w.api.get(`/public/v1/posts/${group}`)))
    const channels = linked.body["channels"] as Array<{ root: { state: string; releaseId: string } }>
    expect(channels[0]?.root).toMatchObject({ state: "published", releaseId: "live-1" })

    expect((await call(mcp, "delete_post", { postId: group })).body).toEqual({ error: false, success: true })
    const gone = await call(mcp, "get_post", { postId: group })
    expect(gone).toEqual({ isError: true, body: errorOf(await w.api.get(`/public/v1/posts/${group}`)) })
    expect(gone.body).toEqual({ error: "Post not found", msg: "Post not found" })
    await mcp.close()
  })

  it("a post that breaks a network rule is a tool error with the REST body (errors per channel); nothing is saved", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const args = { type: "draft", content: "x".repeat(501), channels: [w.channelId] }
    const refused = await call(mcp, "create_post", args)
    expect(refused.isError).toBe(true)
    expect(refused.body).toEqual((await w.api.post("/public/v1/posts", args)).json)
    expect(refused.body["error"]).toBe("Please fix these before saving.")
    expect(await postCount(w.workspaceId)).toBe(0)
    await mcp.close()
  })
})

describe("create_post idempotencyKey (the REST Idempotency-Key)", () => {
  it("the same key and arguments replay the first answer and make one post; other arguments get 409 idempotency_key_reused", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const args = { type: "draft", content: "Once only", channels: [w.channelId] }
    const first = await call(mcp, "create_post", { ...args, idempotencyKey: "agent-1" })
    const again = await call(mcp, "create_post", { channels: [w.channelId], idempotencyKey: "agent-1", content: "Once only", type: "draft" })
    expect(again.body).toEqual({ posts: first.body["posts"], replayed: true })
    expect(await postCount(w.workspaceId)).toBe(1)

    const reused = await call(mcp, "create_post", { ...args, content: "Another text", idempotencyKey: "agent-1" })
    expect(reused.isError).toBe(true)
    expect(reused.body).toMatchObject({
      code: "idempotency_key_reused",
      error: "This Idempotency-Key was already used with a different request body."
    })
    expect(await postCount(w.workspaceId)).toBe(1)

    // the same key through REST with the same body: the same kept answer
    const rest = await w.api.post("/public/v1/posts", args, { "idempotency-key": "agent-1" })
    expect(rest.headers.get("idempotent-replayed")).toBe("true")
    expect(rest.json).toEqual(first.body["posts"])
    expect(await postCount(w.workspaceId)).toBe(1)

    const tooLong = await call(mcp, "create_post", { ...args, idempotencyKey: "k".repeat(256) })
    expect(tooLong.isError).toBe(true)
    expect(tooLong.body).toMatchObject({ error: expect.stringContaining("idempotencyKey") })
    await mcp.close()
  })

  it("creationMethod given in the arguments is kept", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const created = await call(mcp, "create_post", { type: "draft", content: "By an agent", channels: [w.channelId], creationMethod: "agent" })
    const group = (created.body["posts"] as Array<{ group: string }>)[0]!.group
    expect(wholePost(await w.api.get(`/public/v1/posts/${group}`)).creationMethod).toBe("agent")
    await mcp.close()
  })
})

describe("authentication and billing", () => {
  it("without a token: 401 with WWW-Authenticate naming the protected resource metadata", async () => {
    const res = await ping("")
    expect(res.status).toBe(401)
    expect(res.headers.get("www-authenticate")).toBe('Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"')
    expect(res.json).toEqual({ error: "No API Key found", msg: "No API Key found" })
    const none = await rpc(null, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }))
    expect(none.status).toBe(401)
    await expect(connect("")).rejects.toThrow()
  })

  it("a wrong token: 401 Invalid API key, invalid_token in WWW-Authenticate", async () => {
    const res = await ping("svc_live_wrong")
    expect(res.status).toBe(401)
    expect(res.headers.get("www-authenticate")).toBe(
      'Bearer error="invalid_token", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"'
    )
    expect(res.json).toEqual({ error: "Invalid API key", msg: "Invalid API key" })
  })

  it("OAuth and CLI tokens work as their person; a token revoked mid-session stops on the next request", async () => {
    const w = await newWorkspace()
    const { userId } = await sys.admin.createUser({
      workspaceId: w.workspaceId,
      email: "agent@example.com",
      password: "password1",
      role: "editor",
      timezone: null
    })
    const cli = await issueUserToken(world, w.workspaceId, userId, "cli")
    const viaCli = await connect(cli)
    expect((await call(viaCli, "list_channels")).isError).toBe(false)
    await viaCli.close()

    const token = await issueUserToken(world, w.workspaceId, userId, "oat")
    const mcp = await connect(token)
    const created = await call(mcp, "create_post", { type: "draft", content: "Before revoking", channels: [w.channelId] })
    expect(created.isError).toBe(false)
    await withDb(world, (c) => c.query("UPDATE api_tokens SET revoked_at = now() WHERE token_hash IS NOT NULL AND user_id = $1", [userId]))
    await expect(call(mcp, "create_post", { type: "draft", content: "After revoking", channels: [w.channelId] })).rejects.toThrow(/Invalid API key/)
    expect(await postCount(w.workspaceId)).toBe(1)
    const res = await ping(token)
    expect(res.status).toBe(401)
    expect(errorOf(res).error).toBe("Invalid API key")
  })

  it("no plan: 401 no_subscription; grace over: 402 payment_failed; the REST bodies", async () => {
    const w = await newWorkspace()
    await sys.admin.setBilling({ workspaceId: w.workspaceId, event: "ended" })
    const ended = await ping(w.apiKey)
    expect(ended.status).toBe(401)
    expect(ended.json).toEqual((await w.api.get("/public/v1/integrations")).json)
    expect(errorOf(ended).code).toBe("no_subscription")
    expect(ended.headers.get("www-authenticate")).toBeNull()

    await sys.admin.setBilling({ workspaceId: w.workspaceId, event: "activated" })
    await sys.admin.setBilling({ workspaceId: w.workspaceId, event: "past_due" })
    await sys.admin.setBilling({ workspaceId: w.workspaceId, event: "grace_over" })
    const paused = await ping(w.apiKey)
    expect(paused.status).toBe(402)
    expect(paused.json).toEqual((await w.api.get("/public/v1/integrations")).json)
    expect(errorOf(paused).code).toBe("payment_failed")

    await sys.admin.setBilling({ workspaceId: w.workspaceId, event: "renewed" })
    expect((await ping(w.apiKey)).status).toBe(200)
  })

  it("an owner who has not confirmed their email: 403 email_not_verified, the REST body", async () => {
    const w = await newWorkspace()
    const { userId } = await sys.admin.createUser({
      workspaceId: w.workspaceId,
      email: "new-owner@example.com",
      password: "password1",
      role: "owner",
      timezone: null
    })
    await withDb(world, (c) => c.query("UPDATE users SET email_verified = false WHERE id = $1", [userId]))
    const res = await ping(w.apiKey)
    expect(res.status).toBe(403)
    expect(res.json).toEqual((await w.api.get("/public/v1/integrations")).json)
    expect(errorOf(res).code).toBe("email_not_verified")
  })
})

describe("600 requests a minute per workspace", () => {
  it("the 601st request of a minute gets 429 with Retry-After; another workspace is not affected", async () => {
    const w = await newWorkspace()
    const other = await newWorkspace()
    const statuses: Array<number> = []
    for (let batch = 0; batch < 30; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => ping(w.apiKey, batch * 20 + i)))
      statuses.push(...answers.map((a) => a.status))
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(600)
    const over = await ping(w.apiKey)
    expect(over.status).toBe(429)
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(Number(over.headers.get("retry-after"))).toBeLessThanOrEqual(60)
    expect(over.json).toEqual({ error: "Too many requests. Try again in 1 minutes.", msg: "Too many requests. Try again in 1 minutes." })
    expect((await ping(other.apiKey)).status).toBe(200)
  })
})

describe("600 requests a minute: a batch counts each of its messages", () => {
  it("six batches of 100 pings fill the window; the next request gets 429", async () => {
    const w = await newWorkspace()
    const batch = (from: number) => JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: "2.0", id: from + i, method: "ping" })))
    for (let b = 0; b < 6; b++) {
      const res = await rpc(w.apiKey, batch(b * 100))
      expect(res.status).toBe(200)
      expect(res.json).toHaveLength(100)
    }
    const over = await ping(w.apiKey)
    expect(over.status).toBe(429)
    expect(over.headers.get("retry-after")).not.toBeNull()
  })
})

describe("roles: the policy of the REST API", () => {
  const writes = (channelId: string, group: string) =>
    [
      ["create_post", { type: "draft", content: "By a member", channels: [channelId] }],
      ["move_post", { postId: group, date: new Date(Date.now() + 7200_000).toISOString() }],
      ["set_post_status", { postId: group, status: "draft" }],
      ["set_post_settings", { postId: group, settings: { outcome: "accept" } }],
      ["retry_post", { postId: group }],
      ["set_release_id", { postId: group, releaseId: "r1" }],
      ["run_channel_tool", { channelId, methodName: "stats" }],
      ["upload_media_from_url", { url: "http://169.254.169.254/latest/meta-data" }],
      ["delete_post", { postId: group }]
    ] as const

  it.each<[Role, boolean]>([
    ["owner", true],
    ["admin", true],
    ["editor", true],
    ["client", false]
  ])("%s: write tools allowed = %s, exactly as REST answers", async (role, allowed) => {
    const w = await newWorkspace()
    const { userId } = await sys.admin.createUser({
      workspaceId: w.workspaceId,
      email: `${role}@example.com`,
      password: "password1",
      role,
      timezone: null
    })
    const token = await issueUserToken(world, w.workspaceId, userId)
    const mcp = await connect(token)
    for (const [name, args] of writes(w.channelId, "00000000-0000-4000-8000-000000000000")) {
      const answer = await call(mcp, name, args)
      if (allowed) expect(answer.body["error"], name).not.toBe("Your role cannot do this.")
      else
        expect(answer, name).toEqual({
          isError: true,
          body: {
            error: "Your role cannot do this.",
            msg: "Your role cannot do this.",
            fix: "Ask an owner or admin of the workspace, or use the workspace API key."
          }
        })
    }
    const rest = await client(sys.url, token).post("/public/v1/posts", { type: "draft", content: "By REST", channels: [w.channelId] })
    expect(rest.status).toBe(allowed ? 200 : 403)
    expect((await call(mcp, "list_posts")).isError).toBe(false)
    const media = await call(mcp, "list_media")
    expect(media.body).toEqual({ media: (await client(sys.url, token).get("/public/v1/media")).json })
    if (!allowed) expect(media.body).toEqual({ media: [] })
    await mcp.close()
  })
})

describe("bad input gets the protocol's own error and changes nothing", () => {
  it("malformed JSON: 400 JSON-RPC parse error", async () => {
    const w = await newWorkspace()
    const res = await rpc(w.apiKey, '{"jsonrpc": "2.0", "id": 1, "method": ')
    expect(res.status).toBe(400)
    expect(res.json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
    const notRpc = await rpc(w.apiKey, JSON.stringify({ hello: "world" }))
    expect(notRpc.status).toBe(400)
    expect(decoded(notRpc, JsonRpcResponse).error?.code).toBe(-32700)
  })

  it("a body over 5 MB: 413 like every JSON body", async () => {
    const w = await newWorkspace()
    const res = await rpc(w.apiKey, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(5 * 1024 * 1024) } }))
    expect(res.status).toBe(413)
    expect(errorOf(res).error).toBe("The request body is larger than 5 MB.")
  })

  it("a body sent in chunks (no Content-Length) is read whole", async () => {
    const w = await newWorkspace()
    const text = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "list_networks", arguments: {} } })
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const bytes = new TextEncoder().encode(text)
        controller.enqueue(bytes.slice(0, 20))
        controller.enqueue(bytes.slice(20))
        controller.close()
      }
    })
    const res = await fetch(`${sys.url}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${w.apiKey}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body,
      duplex: "half"
    } as RequestInit)
    expect(res.status).toBe(200)
    const answer = decoded(await answerFrom(res), JsonRpcResponse)
    expect(answer.id).toBe(9)
    expect(decode(ToolResult, answer.result, "the tool's result").structuredContent).toEqual({
      networks: (await w.api.get("/public/v1/networks")).json
    })
  })

  it("an unknown method: -32601; an unknown tool: -32602 Unknown tool", async () => {
    const w = await newWorkspace()
    const unknownMethod = await rpc(w.apiKey, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "posts/explode" }))
    expect(unknownMethod.json).toMatchObject({ id: 7, error: { code: -32601 } })
    const mcp = await connect(w.apiKey)
    const unknownTool = await rpcError(mcp, "find_free_lunch", {})
    expect(unknownTool.code).toBe(-32602)
    expect(unknownTool.message).toContain("Unknown tool: find_free_lunch")
    await mcp.close()
  })

  it("arguments of the wrong type: a tool error carrying the REST body naming the field (MCP 2025-11-25); nothing is saved", async () => {
    const w = await newWorkspace()
    const mcp = await connect(w.apiKey)
    const wrongType = await call(mcp, "get_post", { postId: 5 })
    expect(wrongType.isError).toBe(true)
    expect(wrongType.body).toMatchObject({ error: expect.stringContaining("postId") })
    const notAnId = await call(mcp, "get_post", { postId: "not-a-uuid" })
    expect(notAnId).toEqual({ isError: true, body: (await w.api.get("/public/v1/posts/not-a-uuid")).json })
    const missing = await call(mcp, "move_post", { postId: "00000000-0000-4000-8000-000000000000" })
    expect(missing.body).toMatchObject({ error: "date is required." })
    const badPost = await call(mcp, "create_post", { type: "draft", content: 5, channels: [w.channelId] })
    expect(badPost).toEqual({
      isError: true,
      body: (await w.api.post("/public/v1/posts", { type: "draft", content: 5, channels: [w.channelId] })).json
    })
    expect(badPost.body).toMatchObject({ error: "content must be a string." })
    const fullBody = { posts: [{ integration: { id: w.channelId }, value: "hello" }] }
    const badFull = await call(mcp, "create_post", fullBody)
    expect(badFull).toEqual({ isError: true, body: (await w.api.post("/public/v1/posts", fullBody)).json })
    expect(badFull.body).toMatchObject({ error: "posts[0].value must be an array of at most 100 items." })
    const badStatus = await call(mcp, "set_post_status", { postId: "00000000-0000-4000-8000-000000000000", status: "published" })
    expect(badStatus.isError).toBe(true)
    const nul = await rpc(
      w.apiKey,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "create_post", arguments: { type: "draft", content: "a\u0000b", channels: [w.channelId] } }
      })
    )
    expect(nul.status).toBe(400)
    expect(nul.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32602 } })
    expect(await postCount(w.workspaceId)).toBe(0)
    await mcp.close()
  })

  it("a token of another workspace: its posts answer like missing ones, and nothing changes", async () => {
    const a = await newWorkspace()
    const b = await newWorkspace()
    const mcpA = await connect(a.apiKey)
    const created = await call(mcpA, "create_post", { type: "draft", content: "A's post", channels: [a.channelId] })
    const group = (created.body["posts"] as Array<{ group: string }>)[0]!.group
    const mcpB = await connect(b.apiKey)
    const missing = await call(mcpB, "get_post", { postId: "00000000-0000-4000-8000-000000000000" })
    expect(await call(mcpB, "get_post", { postId: group })).toEqual(missing)
    expect(await call(mcpB, "delete_post", { postId: group })).toEqual(missing)
    expect((await call(mcpB, "get_channel_rules", { channelId: a.channelId })).body).toEqual(
      (await b.api.get(`/public/v1/integration-settings/${a.channelId}`)).json
    )
    const edit = await call(mcpB, "edit_post", { groupId: group, type: "draft", content: "Hijacked", channels: [b.channelId] })
    expect(edit.isError).toBe(true)
    expect((await call(mcpA, "get_post", { postId: group })).body["channels"]).toMatchObject([{ root: { content: "A's post" } }])
    await mcpA.close()
    await mcpB.close()
  })

  it("a request from a page of another origin (DNS rebinding) is refused with 403; the service's own origin is not", async () => {
    const w = await newWorkspace()
    const foreign = await rpc(w.apiKey, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), { origin: "http://evil.example.com" })
    expect(foreign.status).toBe(403)
    expect(foreign.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } })
    const own = await rpc(w.apiKey, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }), { origin: "http://127.0.0.1" })
    expect(own.status).toBe(200)
  })

  it("GET and DELETE: 405 (stateless: no stream, no session)", async () => {
    const w = await newWorkspace()
    const get = await fetch(`${sys.url}/mcp`, { headers: { authorization: w.apiKey, accept: "text/event-stream" } })
    expect(get.status).toBe(405)
    expect(get.headers.get("allow")).toBe("POST")
    const del = await fetch(`${sys.url}/mcp`, { method: "DELETE", headers: { authorization: w.apiKey } })
    expect(del.status).toBe(405)
  })

  it("/mcp is not in the public OpenAPI document", async () => {
    const doc = decoded(await client(sys.url).get("/public/v1/openapi.json"), OpenApiDocument, { exact: false })
    expect(Object.keys(doc.paths).some((p) => p.includes("mcp"))).toBe(false)
  })
})
