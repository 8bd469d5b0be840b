import fs from "node:fs/promises"
import http from "node:http"
import os from "node:os"
import path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerFrom, client, decoded, errorOf } from "../support/http.js"
import { OpenApiDocument } from "../support/openApiDocument.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { answerOf, created, present, wholePost } from "../support/answers.js"

/**
 * Inputs a fuzzer sends (issue "hostile inputs", items 3 and 5): every one is answered
 * 400 with a sentence naming the field and what is allowed, never 5xx. Texts are
 * written here as the client reads them.
 */

let world: TestWorld
let sys: RunningServices
let apiKey: string
let channelId: string
let dataDir: string

beforeAll(async () => {
  world = await createWorld("hostile")
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "hostile-test-"))
  sys = await startServices(world, ["gateway", "actors"], { DATA_DIR: dataDir })
  const ws = await sys.admin.createWorkspace("Hostile workspace")
  apiKey = ws.apiKey
  channelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Test channel", customerId: null, postingTimes: [] })
  ).channelId
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  if (dataDir !== undefined) await fs.rm(dataDir, { recursive: true, force: true })
})

const api = () => client(sys.url, apiKey)
const NUL = "\u0000"
const inHours = (h: number) => new Date(Date.now() + h * 3_600_000).toISOString()
const entry = (content: string, extra: Record<string, unknown> = {}) => ({ integration: { id: channelId }, value: [{ content }], ...extra })

const expect400 = (res: { status: number; json: unknown }, error: string) => {
  expect(res.status).toBe(400)
  expect(res.json).toEqual({ error, msg: error })
}

/** A draft post of the workspace, for the endpoints that change one. */
const draft = async () => {
  const res = await api().post("/public/v1/posts", { type: "draft", date: inHours(2), posts: [entry("A draft")] })
  expect(res.status).toBe(200)
  return created(res).postId as string
}

describe("U+0000 in any string: 400 naming the field", () => {
  const nul = (field: string) => `${field} must not contain the character U+0000.`

  const postsBodies: ReadonlyArray<readonly [string, () => unknown]> = [
    ["posts[0].value[0].content", () => ({ type: "draft", posts: [entry(`a${NUL}b`)] })],
    [
      "posts[0].value[1].content",
      () => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "ok" }, { content: NUL }] }] })
    ],
    ["tags[1]", () => ({ type: "draft", posts: [entry("ok")], tags: ["fine", `bad${NUL}`] })],
    ["tags[0].label", () => ({ type: "draft", posts: [entry("ok")], tags: [{ value: "v", label: `l${NUL}` }] })],
    ["posts[0].settings.title", () => ({ type: "draft", posts: [entry("ok", { settings: { title: `t${NUL}` } })] })],
    ["posts[0].settings.nested[0].name", () => ({ type: "draft", posts: [entry("ok", { settings: { nested: [{ name: NUL }] } })] })],
    [
      "posts[0].value[0].image[0].path",
      () => ({
        type: "draft",
        posts: [{ integration: { id: channelId }, value: [{ content: "ok", image: [{ path: `https://x.example/${NUL}.png` }] }] }]
      })
    ],
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

  /** POST /upload with the file name written in the part's header as given. */
  const upload = async (disposition: string) => {
    const boundary = "hostile-boundary"
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\nContent-Type: image/png\r\n\r\n`),
      png(),
      Buffer.from(`\r\n--${boundary}--\r\n`)
    ])
    const res = await fetch(`${sys.url}/public/v1/upload`, {
      method: "POST",
      headers: { authorization: apiKey, "content-type": `multipart/form-data; boundary=${boundary}` },
      body
    })
    return answerFrom(res)
  }

  it("POST /upload: a file name with U+0000 (filename*)", async () => {
    expect400(await upload("filename*=UTF-8''a%00b.png"), nul("The file name"))
  })

  it.each(['filename="."', 'filename=".."', 'filename="/"'])("POST /upload: %s cannot be used as a file name", async (disposition) => {
    const error = "The file name cannot be used. Send the file with a plain name, for example photo.jpg."
    expect400(await upload(disposition), error)
  })

  it("POST /upload: a plain name is taken", async () => {
    const res = await upload('filename="photo.png"')
    expect(res.status).toBe(200)
    expect(decoded(res, answerOf("media", "upload")).name).toBe("photo.png")
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
    // read through: the answer is about the setting itself (not one of the network's keys), not the depth
    const read = await api().put(`/public/v1/posts/${postId}/settings`, body(30))
    expect(read.status).toBe(400)
    expect(errorOf(read).errors?.[0]?.message).toMatch(/deep is not a setting of/)
    expect400(await api().put(`/public/v1/posts/${postId}/settings`, body(31)), tooDeep)
  })
})

describe("Dates outside years 1970 to 9999: 400 with the allowed range", () => {
  const range = (field: string) => `${field} must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.`
  const invalidDate = /^The date is not valid\. Use ISO 8601, for example /

  it.each(["0000-06-01T00:00:00Z", "1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z"])("POST /posts draft date %s", async (date) => {
    expect400(await api().post("/public/v1/posts", { type: "draft", date, posts: [entry("ok")] }), range("date"))
  })

  it.each(["+275760-09-13T00:00:00.000Z", "-000001-01-01T00:00:00Z", "2026-02-30T10:00:00Z", "+010000-01-01T00:00:00Z"])(
    "POST /posts date %s cannot be read",
    async (date) => {
      const res = await api().post("/public/v1/posts", { type: "draft", date, posts: [entry("ok")] })
      expect(res.status).toBe(400)
      expect(errorOf(res).error).toMatch(invalidDate)
    }
  )

  it.each(["0000-06-01T00:00:00Z", "1900-01-01T00:00:00+01:00"])("PUT /posts/{id}/date %s", async (date) => {
    const postId = await draft()
    expect400(await api().put(`/public/v1/posts/${postId}/date`, { date }), range("date"))
  })

  it.each([
    ["startDate", "+275760-09-13T00:00:00.000Z"],
    ["startDate", "-271821-04-20T00:00:00.000Z"],
    ["endDate", "+100000-01-01"],
    ["endDate", "0000-01-01"],
    ["startDate", "-000001-06-01T00:00:00Z"]
  ])("GET /posts %s=%s", async (field, value) => {
    expect400(await api().get(`/public/v1/posts?${field}=${encodeURIComponent(value)}`), range(field))
  })

  it.each(["2026-02-30", "2026-02-30T10:00:00Z", "2026-13-01"])("GET /posts startDate=%s cannot be read", async (value) => {
    const res = await api().get(`/public/v1/posts?startDate=${value}`)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(invalidDate)
  })

  it("the last allowed date is read, with 99 follow-ups a year apart after it", async () => {
    const value = [{ content: "first" }, ...Array.from({ length: 99 }, () => ({ content: "later", delay: 525_600 }))]
    const res = await api().post("/public/v1/posts", {
      type: "draft",
      date: "9999-12-31T23:59:59Z",
      posts: [{ integration: { id: channelId }, value }]
    })
    expect(res.status).toBe(200)
    expect((await api().get(`/public/v1/posts/${created(res).group}`)).status).toBe(200)
  })
})

describe("delay: a whole number of minutes from 0 to 525600", () => {
  const tooLong = (field: string) => `${field} must be a whole number of minutes from 0 to 525600 (a year).`

  it.each([1e15, 525_601, Number.MAX_SAFE_INTEGER])("POST /posts delay %d", async (delay) => {
    const body = { type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "a" }, { content: "b", delay }] }] }
    expect400(await api().post("/public/v1/posts", body), tooLong("posts[0].value[1].delay"))
  })

  it("POST /posts thread delay 10^15 (simpler form)", async () => {
    const body = { type: "draft", content: "a", channels: [channelId], thread: [{ content: "b", delay: 1e15 }] }
    expect400(await api().post("/public/v1/posts", body), tooLong("thread[0].delay"))
  })

  it("a year is allowed", async () => {
    const body = { type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "a" }, { content: "b", delay: 525_600 }] }] }
    expect((await api().post("/public/v1/posts", body)).status).toBe(200)
  })

  it.each([0, 366, 1e15])("inter %d is refused with its range", async (inter) => {
    expect400(
      await api().post("/public/v1/posts", { type: "draft", posts: [entry("ok")], inter }),
      "inter must be a whole number of days from 1 to 365."
    )
  })

  it.each(["0", "-1", "1e15", "1000000000000000"])("GET /media?page=%s is refused", async (page) => {
    const res = await api().get(`/public/v1/media?page=${page}`)
    expect(res.status).toBe(400)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
  })
})

describe("Two Authorization headers: 400", () => {
  /** node:http sends an array header as one line per value. */
  const twice = (headers: Record<string, string | Array<string>>) =>
    new Promise<{ status: number; json: unknown }>((resolve, reject) => {
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

describe("Bounded lists: 400 with the limit, stated in the OpenAPI document", () => {
  const uuid = () => crypto.randomUUID()
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ content: `item ${i}` }))

  const cases: ReadonlyArray<readonly [string, () => unknown, string]> = [
    [
      "101 tags",
      () => ({ type: "draft", posts: [entry("ok")], tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }),
      "tags must be an array of at most 100 tags."
    ],
    [
      "20,000 tags",
      () => ({ type: "draft", posts: [entry("ok")], tags: Array.from({ length: 20_000 }, (_, i) => `t${i}`) }),
      "tags must be an array of at most 100 tags."
    ],
    [
      "101 entries",
      () => ({ type: "draft", posts: Array.from({ length: 101 }, () => ({ integration: { id: uuid() }, value: [{ content: "x" }] })) }),
      "posts must be an array of at most 100 entries, one per channel."
    ],
    [
      "101 channels",
      () => ({ type: "draft", content: "x", channels: Array.from({ length: 101 }, uuid) }),
      "channels must be an array of at most 100 channels."
    ],
    [
      "101 items",
      () => ({ type: "draft", posts: [{ integration: { id: channelId }, value: items(101) }] }),
      "posts[0].value must be an array of at most 100 items."
    ],
    [
      "100 follow-ups",
      () => ({ type: "draft", content: "x", channels: [channelId], thread: items(100) }),
      "thread must be an array of at most 99 follow-up items."
    ],
    [
      "100 follow-ups of one channel",
      () => ({ type: "draft", content: "x", channels: [{ channelId, thread: items(100) }] }),
      "channels[0].thread must be an array of at most 99 follow-up items."
    ],
    [
      "21 images",
      () => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "x", image: Array.from({ length: 21 }, uuid) }] }] }),
      "posts[0].value[0].image must be an array of at most 20 media."
    ],
    [
      "21 media",
      () => ({ type: "draft", content: "x", channels: [channelId], media: Array.from({ length: 21 }, uuid) }),
      "media must be an array of at most 20 media."
    ],
    [
      "101 settings",
      () => ({ type: "draft", posts: [entry("ok", { settings: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) })] }),
      "posts[0].settings must be an object with at most 100 keys."
    ]
  ]

  it.each(cases)("POST /posts with %s", async (_what, body, error) => {
    expect400(await api().post("/public/v1/posts", body()), error)
  })

  it("100 tags, 100 items and 20 media per item are read", async () => {
    const res = await api().post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: channelId }, value: items(100) }],
      tags: Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? `tag ${i}` : { value: `tag ${i}`, label: `Tag ${i}` }))
    })
    expect(res.status).toBe(200)
    const whole = await api().get(`/public/v1/posts/${created(res).group}`)
    expect(wholePost(whole).tags).toHaveLength(100)
    expect(wholePost(whole).channels[0]?.thread).toHaveLength(99)
  })

  it("tags are matched by id or name, case aside, and repeated ones count once", async () => {
    const first = await api().post("/public/v1/posts", { type: "draft", posts: [entry("ok")], tags: ["Alpha", { value: "beta", label: "Beta" }] })
    expect(first.status).toBe(200)
    const tags = wholePost(await api().get(`/public/v1/posts/${created(first).group}`)).tags
    const alpha = tags.find((t) => t.name === "Alpha")!
    const second = await api().post("/public/v1/posts", {
      type: "draft",
      posts: [entry("ok")],
      tags: [alpha.id, "ALPHA", "Beta", { value: "gamma", label: "Gamma" }, "gamma"]
    })
    expect(second.status).toBe(200)
    const again = wholePost(await api().get(`/public/v1/posts/${created(second).group}`)).tags
    expect(again.map((t) => t.name).sort()).toEqual(["Alpha", "Beta", "Gamma"])
    expect(again.find((t) => t.name === "Alpha")!.id).toBe(alpha.id)
  })

  it("PUT /posts/{id}/settings with 101 keys", async () => {
    const postId = await draft()
    const settings = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))
    const res = await api().put(`/public/v1/posts/${postId}/settings`, { settings })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toContain("100")
  })

  it("POST /integration-trigger/{id} with 101 keys in data", async () => {
    const data = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]))
    const res = await api().post(`/public/v1/integration-trigger/${channelId}`, { methodName: "echo", data })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toContain("100")
  })

  it("POST /upload-from-url with a url over 2048 characters", async () => {
    const res = await api().post("/public/v1/upload-from-url", { url: `https://example.com/${"a".repeat(2100)}.png` })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toContain("2048")
  })

  it("the OpenAPI document states the limits", async () => {
    const answer = await client(sys.url).get("/public/v1/openapi.json")
    const text = answer.text
    const doc = decoded(answer, OpenApiDocument, { exact: false })
    const body = present(doc.paths["/public/v1/posts"]?.post?.requestBody?.content["application/json"]?.schema, "POST /posts's body")
    const named = body.$ref === undefined ? body : doc.components?.schemas?.[body.$ref.split("/").pop() ?? ""]
    const [full, simple] = present(named?.anyOf, "the body's alternatives")
    expect(full?.properties?.posts?.maxItems).toBe(100)
    const tags = full?.properties?.tags
    expect(tags?.maxItems ?? tags?.anyOf?.find((s) => s.maxItems)?.maxItems).toBe(100)
    expect(simple?.properties?.channels?.maxItems).toBe(100)
    expect(text).toContain('"maxItems":20')
    expect(text).toContain('"maximum":525600')
    expect(text).toContain('"maxLength":2048')
  })
})

describe("No 5xx for any value in any field", () => {
  const hostile: ReadonlyArray<unknown> = [
    NUL,
    `x${NUL}`,
    "",
    " ",
    1e15,
    -1e15,
    Number.MAX_SAFE_INTEGER,
    1.5,
    -1,
    0,
    true,
    null,
    [],
    {},
    [NUL],
    { [NUL]: NUL },
    "+275760-09-13T00:00:00.000Z",
    "-271821-04-20T00:00:00.000Z",
    "0000-01-01T00:00:00Z",
    "2026-02-30T10:00:00Z",
    "00000000-0000-0000-0000-000000000000",
    "x".repeat(10_000)
  ]

  /** Every field of both POST /posts forms, set in turn to each value. */
  const fields: ReadonlyArray<readonly [string, (value: unknown) => unknown]> = [
    ["type", (v) => ({ type: v, posts: [entry("ok")] })],
    ["date", (v) => ({ type: "draft", date: v, posts: [entry("ok")] })],
    ["posts", (v) => ({ type: "draft", posts: v })],
    ["posts[0]", (v) => ({ type: "draft", posts: [v] })],
    ["posts[0].integration.id", (v) => ({ type: "draft", posts: [{ integration: { id: v }, value: [{ content: "ok" }] }] })],
    ["posts[0].value[0].content", (v) => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: v }] }] })],
    [
      "posts[0].value[1].delay",
      (v) => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "a" }, { content: "b", delay: v }] }] })
    ],
    ["posts[0].value[0].image[0]", (v) => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: "a", image: [v] }] }] })],
    ["posts[0].settings.x", (v) => ({ type: "draft", posts: [entry("ok", { settings: { x: v } })] })],
    ["posts[0].group", (v) => ({ type: "draft", posts: [entry("ok", { group: v })] })],
    ["tags[0]", (v) => ({ type: "draft", posts: [entry("ok")], tags: [v] })],
    ["inter", (v) => ({ type: "draft", posts: [entry("ok")], inter: v })],
    ["groupId", (v) => ({ type: "draft", posts: [entry("ok")], groupId: v })],
    ["creationMethod", (v) => ({ type: "draft", posts: [entry("ok")], creationMethod: v })],
    ["channels[0]", (v) => ({ type: "draft", content: "ok", channels: [v] })],
    ["thread[0].delay", (v) => ({ type: "draft", content: "ok", channels: [channelId], thread: [{ content: "b", delay: v }] })]
  ]

  /** A fresh workspace every 80 requests: POST /posts counts 90 an hour per workspace. */
  let sent = 0
  let key = ""
  const workspaceKey = async () => {
    if (sent++ % 80 === 0) {
      const ws = await sys.admin.createWorkspace("Fuzz workspace")
      await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Test channel", customerId: null, postingTimes: [] })
      key = ws.apiKey
    }
    return key
  }

  it.each(fields)("POST /posts %s", async (_field, body) => {
    for (const value of hostile) {
      const res = await client(sys.url, await workspaceKey()).post("/public/v1/posts", body(value))
      if (res.status >= 500) throw new Error(`${res.status} for ${JSON.stringify(value)?.slice(0, 60)}: ${res.text}`)
      expect(errorOf(res).msg ?? "").toBe(errorOf(res).error ?? "")
    }
  })

  it("PUT /posts/{id}/date, /settings and /status, GET /posts and /media", async () => {
    const postId = await draft()
    for (const value of hostile) {
      const query = encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value))
      for (const send of [
        () => api().put(`/public/v1/posts/${postId}/date`, { date: value }),
        () => api().put(`/public/v1/posts/${postId}/settings`, { settings: { x: value } }),
        () => api().put(`/public/v1/posts/${postId}/settings`, { settings: value }),
        () => api().put(`/public/v1/posts/${postId}/status`, { status: value }),
        () => api().get(`/public/v1/posts?startDate=${query}`),
        () => api().get(`/public/v1/posts?endDate=${query}&customer=${query}`),
        () => api().get(`/public/v1/media?page=${query}&search=${query}`),
        () => api().post(`/public/v1/integration-trigger/${channelId}`, { methodName: value, data: { text: value } })
      ]) {
        const res = await send()
        if (res.status >= 500) throw new Error(`${res.status} for ${JSON.stringify(value)?.slice(0, 60)}: ${res.text}`)
      }
    }
  })
})
