import net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Schema } from "effect"
import { client, decoded, errorOf, type Answer } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * Spec: Errors → "Exact messages" and "Status codes". Every text is written here as
 * the spec has it, character for character, not read from the service's catalog.
 */
const spec = {
  noApiKey: "No API Key found",
  invalidApiKey: "Invalid API key",
  invalidJson: "The request body is not valid JSON.",
  invalidId: "One of the ids is not valid.",
  invalidIdFix: "Check the id. Copy it again from the list it came from.",
  notFound: "Not found",
  notFoundFix: "Check the method and the path. The API reference lists every path.",
  unknownNetwork: "Unknown network",
  serverError: "Something went wrong on our side. Try again. If it keeps happening, contact support.",
  serverErrorFix: "Try again in a minute. If it keeps happening, email support@example.com with the time of the request."
} as const

const notFoundBody = { error: spec.notFound, msg: spec.notFound, fix: spec.notFoundFix }
const invalidIdBody = { error: spec.invalidId, msg: spec.invalidId, fix: spec.invalidIdFix }

const SIX_MB = 6 * 1024 * 1024

/**
 * POSTs `megabytes` MB of JSON with Transfer-Encoding: chunked (no Content-Length) over
 * a raw socket and returns the bytes the server answered, even if it then resets.
 */
const sendChunked = (path: string, key: string, megabytes: number) =>
  new Promise<string>((resolve) => {
    const u = new URL(sys.url)
    const socket = net.connect(Number(u.port), u.hostname)
    let answer = ""
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`
    socket.on("data", (d) => (answer += d.toString("utf8")))
    socket.on("error", () => undefined)
    socket.on("close", () => resolve(answer))
    socket.setTimeout(10_000, () => socket.destroy())
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${u.host}\r\nAuthorization: ${key}\r\nContent-Type: application/json\r\n` +
        "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" +
        chunk('{"methodName":"echo","data":{"text":"')
    )
    const piece = chunk("x".repeat(1024 * 1024))
    let sent = 0
    const next = () => {
      if (socket.destroyed) return
      if (sent++ < megabytes) socket.write(piece, () => setImmediate(next))
      else socket.write(chunk('"}}') + "0\r\n\r\n")
    }
    next()
  })

let world: TestWorld
let sys: RunningServices
let apiKey: string
let channelId: string

beforeAll(async () => {
  world = await createWorld("errors")
  sys = await startServices(world, ["gateway", "actors"])
  const ws = await sys.admin.createWorkspace("Errors workspace")
  apiKey = ws.apiKey
  channelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Test channel", customerId: null, postingTimes: [] })
  ).channelId
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("404 Path does not exist: `Not found` with its fix", () => {
  const unknownPaths: ReadonlyArray<readonly [string, string]> = [
    ["GET", "/public/v1/does-not-exist"],
    ["GET", "/public/v1/integrations/extra/segments"],
    ["POST", "/public/v1/nothing-here"],
    ["GET", "/public/v2/is-connected"],
    ["GET", "/nothing"]
  ]

  it.each(unknownPaths)("%s %s with a valid key", async (method, path) => {
    const res = await client(sys.url, apiKey).request(method, path)
    expect(res.status).toBe(404)
    expect(res.json).toEqual(notFoundBody)
  })

  it.each(unknownPaths)("%s %s without a key", async (method, path) => {
    const res = await client(sys.url).request(method, path)
    expect(res.status).toBe(404)
    expect(res.json).toEqual(notFoundBody)
  })

  // a known path with a method it does not have is a path that does not exist
  const unknownMethods: ReadonlyArray<readonly [string, string]> = [
    ["PUT", "/public/v1/is-connected"],
    ["DELETE", "/public/v1/groups"],
    ["POST", "/public/v1/networks"],
    ["PATCH", "/public/v1/integrations"],
    ["GET", "/public/v1/integration-trigger/00000000-0000-4000-8000-000000000000"]
  ]

  it.each(unknownMethods)("unknown method %s on known path %s, with a valid key", async (method, path) => {
    const res = await client(sys.url, apiKey).request(method, path)
    expect(res.status).toBe(404)
    expect(res.json).toEqual(notFoundBody)
  })

  it.each(unknownMethods)("unknown method %s on known path %s, without a key", async (method, path) => {
    const res = await client(sys.url).request(method, path)
    expect(res.status).toBe(404)
    expect(res.json).toEqual(notFoundBody)
  })
})

describe("401 exact messages", () => {
  it("no Authorization header: `No API Key found`", async () => {
    const res = await client(sys.url).get("/public/v1/integrations")
    expect(res.status).toBe(401)
    expect(res.json).toEqual({ error: spec.noApiKey, msg: spec.noApiKey })
  })

  it("a wrong key: `Invalid API key`", async () => {
    const res = await client(sys.url, "svc_live_not-a-real-key").get("/public/v1/groups")
    expect(res.status).toBe(401)
    expect(res.json).toEqual({ error: spec.invalidApiKey, msg: spec.invalidApiKey })
  })
})

describe("400 Body not valid JSON", () => {
  it.each(["{", "{methodName: echo}", "not json at all", '{"methodName": "echo",}'])("body %j", async (body) => {
    const res = await client(sys.url, apiKey).post(`/public/v1/integration-trigger/${channelId}`, body)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({ error: spec.invalidJson, msg: spec.invalidJson })
  })
})

describe("400 Id not a UUID: `One of the ids is not valid.` with its fix", () => {
  const badIds = ["abc", "123", "00000000-0000-0000-0000-00000000000g", `${"a".repeat(8)}-${"a".repeat(4)}`]

  it.each(badIds)("GET /integration-settings/%s", async (id) => {
    const res = await client(sys.url, apiKey).get(`/public/v1/integration-settings/${id}`)
    expect(res.status).toBe(400)
    expect(res.json).toEqual(invalidIdBody)
  })

  it.each(badIds)("POST /integration-trigger/%s (with a valid body)", async (id) => {
    const body = { methodName: "echo", data: { text: "hi" } }
    const res = await client(sys.url, apiKey).post(`/public/v1/integration-trigger/${id}`, body)
    expect(res.status).toBe(400)
    expect(res.json).toEqual(invalidIdBody)
  })

  it.each(badIds)("DELETE /integrations/%s", async (id) => {
    const res = await client(sys.url, apiKey).del(`/public/v1/integrations/${id}`)
    expect(res.status).toBe(400)
    expect(res.json).toEqual(invalidIdBody)
  })
})

describe("400 Missing or wrong field", () => {
  it("a missing methodName answers 400 with error === msg", async () => {
    const res = await client(sys.url, apiKey).post(`/public/v1/integration-trigger/${channelId}`, { data: {} })
    expect(res.status).toBe(400)
    expect(typeof errorOf(res).error).toBe("string")
    expect(errorOf(res).error.length).toBeGreaterThan(0)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("a methodName of the wrong type answers 400 with error === msg", async () => {
    const res = await client(sys.url, apiKey).post(`/public/v1/integration-trigger/${channelId}`, { methodName: 5 })
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })
})

describe("413 JSON body over 5 MB", () => {
  it("a body over 5 MB sent with Content-Length answers 413", async () => {
    const body = JSON.stringify({ methodName: "echo", data: { text: "x".repeat(SIX_MB) } })
    const res = await client(sys.url, apiKey).post(`/public/v1/integration-trigger/${channelId}`, body)
    expect(res.status).toBe(413)
    expect(errorOf(res).error.length).toBeGreaterThan(0)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })

  it("a body over 5 MB sent without Content-Length (chunked) answers 413", async () => {
    // a raw socket: whatever the server answers before it closes the connection is kept
    const answer = await sendChunked(`/public/v1/integration-trigger/${channelId}`, apiKey, 7)
    const [head = "", body = ""] = answer.split("\r\n\r\n", 2)
    expect(head).toMatch(/^HTTP\/1\.1 413 /)
    expect(head.toLowerCase()).toContain("content-type: application/json")
    const json = JSON.parse(body)
    expect(json.msg).toBe(json.error)
  })

  it("POST /upload-from-url is a JSON endpoint: a chunked body over 5 MB answers 413 too", async () => {
    // only POST /upload (multipart) has the larger upload limit, not every path that starts like it
    const answer = await sendChunked("/public/v1/upload-from-url", apiKey, 7)
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
  })

  it("a small body sent chunked is read (the raw-socket client above works)", async () => {
    const answer = await sendChunked(`/public/v1/integration-trigger/${channelId}`, apiKey, 1)
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
  })

  it("a body just under 5 MB is read (the limit is 5 MB, not less)", async () => {
    // 4.9 MB: under the limit whether a MB is 10^6 or 2^20 bytes
    const text = "y".repeat(4_900_000)
    const res = await client(sys.url, apiKey).post(`/public/v1/integration-trigger/${channelId}`, { methodName: "echo", data: { text } })
    expect(res.status).toBe(200)
    expect(decoded(res, Schema.Struct({ output: Schema.Struct({ text: Schema.String }) })).output.text.length).toBe(text.length)
  })
})

describe("404 Unknown network (GET /rules)", () => {
  it("answers exactly `Unknown network`", async () => {
    const res = await client(sys.url, apiKey).get("/public/v1/rules/no-such-network")
    expect(res.status).toBe(404)
    expect(res.json).toEqual({ error: spec.unknownNetwork, msg: spec.unknownNetwork })
  })
})

describe("Every error body", () => {
  const uuid = "00000000-0000-4000-8000-000000000000"
  const cases: ReadonlyArray<readonly [string, number, (key: string) => Promise<Answer>]> = [
    ["no key", 401, () => client(sys.url).get("/public/v1/is-connected")],
    ["invalid key", 401, () => client(sys.url, "svc_live_nope").get("/public/v1/is-connected")],
    ["unknown path", 404, (k) => client(sys.url, k).get("/public/v1/nope")],
    ["unknown method", 404, (k) => client(sys.url, k).request("PUT", "/public/v1/groups")],
    ["invalid JSON", 400, (k) => client(sys.url, k).post(`/public/v1/integration-trigger/${channelId}`, "{")],
    ["invalid id", 400, (k) => client(sys.url, k).get("/public/v1/integration-settings/nope")],
    ["missing field", 400, (k) => client(sys.url, k).post(`/public/v1/integration-trigger/${channelId}`, {})],
    ["unknown tool", 400, (k) => client(sys.url, k).post(`/public/v1/integration-trigger/${channelId}`, { methodName: "nope" })],
    ["unknown channel (settings)", 404, (k) => client(sys.url, k).get(`/public/v1/integration-settings/${uuid}`)],
    ["unknown channel (trigger)", 404, (k) => client(sys.url, k).post(`/public/v1/integration-trigger/${uuid}`, { methodName: "echo" })],
    ["unknown channel (delete)", 404, (k) => client(sys.url, k).del(`/public/v1/integrations/${uuid}`)],
    ["unknown network", 404, (k) => client(sys.url, k).get("/public/v1/rules/nope")],
    [
      "body too large",
      413,
      (k) => client(sys.url, k).post(`/public/v1/integration-trigger/${channelId}`, JSON.stringify({ methodName: "x".repeat(SIX_MB) }))
    ]
  ]

  it.each(cases)("%s (%i): error === msg, JSON content type, only the spec's fields", async (_what, status, send) => {
    const res = await send(apiKey)
    expect(res.status).toBe(status)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    // errorOf refuses a body with any other field than the spec's
    const body = errorOf(res)
    expect(body.error.length).toBeGreaterThan(0)
    expect(body.msg).toBe(body.error)
  })
})

describe("500 Server failure", () => {
  let broken: TestWorld
  let brokenSys: RunningServices
  let brokenKey: string

  beforeAll(async () => {
    // its own world: the table is dropped there, not in the world the other tests use
    broken = await createWorld("errors500")
    brokenSys = await startServices(broken, ["gateway"])
    brokenKey = (await brokenSys.admin.createWorkspace("Broken workspace")).apiKey
    expect((await client(brokenSys.url, brokenKey).get("/public/v1/groups")).status).toBe(200)
    await withDb(broken, (c) => c.query("DROP TABLE customers CASCADE"))
  })
  afterAll(async () => {
    await brokenSys.stop()
    await broken.drop()
  })

  it("answers exactly error, msg and fix, with JSON content type", async () => {
    const res = await client(brokenSys.url, brokenKey).get("/public/v1/groups")
    expect(res.status).toBe(500)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(res.json).toEqual({ error: spec.serverError, msg: spec.serverError, fix: spec.serverErrorFix })
  })

  it("leaks no stack, SQL or table name", async () => {
    const res = await client(brokenSys.url, brokenKey).get("/public/v1/groups")
    expect(res.status).toBe(500)
    for (const leak of ["customers", "relation", "SELECT", "stack", "    at ", "SqlError", "does not exist", ".ts:"]) {
      expect(res.text).not.toContain(leak)
    }
  })

  it("a query that joins the dropped table (GET /integrations) answers the same 500", async () => {
    const res = await client(brokenSys.url, brokenKey).get("/public/v1/integrations")
    expect(res.status).toBe(500)
    expect(res.json).toEqual({ error: spec.serverError, msg: spec.serverError, fix: spec.serverErrorFix })
  })
})
