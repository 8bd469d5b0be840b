import http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

/**
 * Inputs a fuzzer sends (issue "hostile inputs", items 3 and 5): every one is answered
 * 400 with a sentence naming the field and what is allowed, never 5xx. Texts are
 * written here as the client reads them.
 */

let world: TestWorld
let sys: RunningServices
let apiKey: string
let channelId: string

beforeAll(async () => {
  world = await createWorld("hostile")
  sys = await startServices(world, ["gateway", "actors"])
  const ws = await sys.admin.createWorkspace("Hostile workspace")
  apiKey = ws.apiKey
  channelId = (await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Test channel", customerId: null, postingTimes: [] }))
    .channelId
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const api = () => client(sys.url, apiKey)
const NUL = "\u0000"
const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString()
const entry = (content: string, extra: Record<string, unknown> = {}) => ({ integration: { id: channelId }, value: [{ content }], ...extra })

const expect400 = (res: { status: number; json: any }, error: string) => {
  expect(res.status).toBe(400)
  expect(res.json).toEqual({ error, msg: error })
}

/** A draft post of the workspace, for the endpoints that change one. */
const draft = async () => {
  const res = await api().post("/public/v1/posts", { type: "draft", date: inHours(2), posts: [entry("A draft")] })
  expect(res.status).toBe(200)
  return res.json[0].postId as string
}

describe("U+0000 in any string: 400 naming the field", () => {
  const nul = (field: string) => `${field} must not contain the character U+0000.`

  const postsBodies: ReadonlyArray<readonly [string, () => unknown]> = [
    ["posts[0].value[0].content", () => ({ type: "draft", posts: [entry(`a${NUL}b`)] })],
    ["posts[0].value[1].content", () => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "ok" }, { content: NUL }] }] })],
    ["tags[1]", () => ({ type: "draft", posts: [entry("ok")], tags: ["fine", `bad${NUL}`] })],
    ["tags[0].label", () => ({ type: "draft", posts: [entry("ok")], tags: [{ value: "v", label: `l${NUL}` }] })],
    ["posts[0].settings.title", () => ({ type: "draft", posts: [entry("ok", { settings: { title: `t${NUL}` } })] })],
    ["posts[0].settings.nested[0].name", () => ({ type: "draft", posts: [entry("ok", { settings: { nested: [{ name: NUL }] } })] })],
    ["posts[0].value[0].image[0].path", () => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "ok", image: [{ path: `https://x.example/${NUL}.png` }] }] }] })],
    ["content", () => ({ type: "draft", content: `c${NUL}`, channels: [channelId] })],
    ["thread[0].content", () => ({ type: "draft", content: "ok", channels: [channelId], thread: [{ content: NUL }] })],
    ["channels[0].content", () => ({ type: "draft", content: "ok", channels: [{ channelId, content: NUL }] })],
    ["date", () => ({ type: "draft", date: `2030-01-01T00:00:00Z${NUL}`, posts: [entry("ok")] })]
  ]

  it.each(postsBodies)("POST /posts: %s", async (field, body) => {
    expect400(await api().post("/public/v1/posts", body()), nul(field))
  })

  it("POST /posts: a key with U+0000 names the object that holds it", async () => {
    const body = { type: "draft", posts: [entry("ok", { settings: { [`k${NUL}`]: "v" } })] }
    expect400(await api().post("/public/v1/posts", body), "posts[0].settings must not have a key with the character U+0000.")
  })

  it("PUT /posts/{id}/settings: settings.title", async () => {
    const postId = await draft()
    expect400(await api().put(`/public/v1/posts/${postId}/settings`, { settings: { title: `x${NUL}` } }), nul("settings.title"))
  })

  it("PUT /posts/{id}/date: date", async () => {
    const postId = await draft()
    expect400(await api().put(`/public/v1/posts/${postId}/date`, { date: `${inHours(3)}${NUL}` }), nul("date"))
  })

  it("POST /integration-trigger/{id}: data.text", async () => {
    expect400(await api().post(`/public/v1/integration-trigger/${channelId}`, { methodName: "echo", data: { text: NUL } }), nul("data.text"))
  })

  it("POST /upload-from-url: url", async () => {
    expect400(await api().post("/public/v1/upload-from-url", { url: `https://example.com/a${NUL}.png` }), nul("url"))
  })

  it("GET /media?search=%00: the query parameter search", async () => {
    expect400(await api().get("/public/v1/media?search=a%00b"), nul("search"))
  })

  it("GET /posts?startDate=%00: the query parameter startDate", async () => {
    expect400(await api().get("/public/v1/posts?startDate=%00"), nul("startDate"))
  })

  it("GET /rules/%00: the path", async () => {
    expect400(await api().get("/public/v1/rules/x%00y"), "The path must not contain the character U+0000.")
  })

  it("a string without U+0000 but with the text \\u0000 escaped is fine", async () => {
    const res = await api().post("/public/v1/posts", { type: "draft", posts: [entry("the text \\u0000 is harmless")] })
    expect(res.status).toBe(200)
  })
})

describe("JSON nested deeper than 32 levels: 400 with the limit", () => {
  const deep = (levels: number, leaf = "1") => "[".repeat(levels) + leaf + "]".repeat(levels)
  const tooDeep = "The request body is nested more than 32 levels deep. Send at most 32 levels of arrays and objects."

  it("POST /posts with 20,000 levels", async () => {
    expect400(await api().post("/public/v1/posts", `{"type":"draft","posts":${deep(20_000)}}`), tooDeep)
  })

  it("POST /integration-trigger/{id} with 20,000 levels in data", async () => {
    expect400(await api().post(`/public/v1/integration-trigger/${channelId}`, `{"methodName":"echo","data":{"x":${deep(20_000)}}}`), tooDeep)
  })

  it("PUT /posts/{id}/settings with 20,000 levels of objects", async () => {
    const postId = await draft()
    const body = `{"settings":${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}}`
    expect400(await api().put(`/public/v1/posts/${postId}/settings`, body), tooDeep)
  })

  it("brackets inside strings do not count", async () => {
    const res = await api().post("/public/v1/posts", { type: "draft", posts: [entry("[".repeat(100) + "{".repeat(100))] })
    expect(res.status).toBe(200)
  })

  it("32 levels are read, 33 are not", async () => {
    // the body (1) → settings (2) → 30 arrays
    const body = (arrays: number) => `{"settings":{"deep":${deep(arrays, '"x"')}}}`
    const postId = await draft()
    expect((await api().put(`/public/v1/posts/${postId}/settings`, body(30))).status).toBe(200)
    expect400(await api().put(`/public/v1/posts/${postId}/settings`, body(31)), tooDeep)
  })
})

describe("Two Authorization headers: 400", () => {
  /** node:http sends an array header as one line per value. */
  const twice = (headers: Record<string, string | Array<string>>) =>
    new Promise<{ status: number; json: any }>((resolve, reject) => {
      const u = new URL(`${sys.url}/public/v1/is-connected`)
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "GET", headers }, (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }))
      })
      req.on("error", reject)
      req.end()
    })

  const message = "Send the key in one Authorization header; this request has 2."

  it("the same key twice", async () => {
    expect400(await twice({ authorization: [apiKey, apiKey] }), message)
  })

  it("a valid key and a wrong one", async () => {
    expect400(await twice({ authorization: ["svc_live_wrong", apiKey] }), message)
  })

  it("one header still works", async () => {
    const res = await twice({ authorization: apiKey })
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ connected: true })
  })
})
