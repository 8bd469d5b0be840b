import Ajv2020 from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseCsv } from "../../domain/posts/importFile.js"
import { MediaItem } from "../../protocol/http/media.js"
import { ExportLine, ImportAnswer } from "../../protocol/http/postsBulk.js"
import { wholePost } from "../support/answers.js"
import { answerFrom, client, decode, decoded, errorOf, type Answer } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * POST /public/v1/posts/import and GET /public/v1/posts/export (docs/api.md, "Beyond the
 * reference API"): a file of a few thousand rows with bad rows mixed in is checked row by
 * row with the messages of POST /posts, saved once under its Idempotency-Key (a replay saves
 * nothing), counted in the 90-an-hour window one request per 100 rows (over it 429, nothing
 * saved), and exported again as CSV and JSON lines. Every answer is checked against the
 * served OpenAPI document.
 */

let world: TestWorld
let sys: RunningServices
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
const DOC_ID = "https://openapi.test/bulk.json"
let paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>

beforeAll(async () => {
  world = await createWorld("postsbulk")
  sys = await startServices(world, ["gateway", "actors"])
  const doc = (await client(sys.url).get("/public/v1/openapi.json")).json as { paths: typeof paths; components: unknown }
  paths = doc.paths
  ajv.addSchema({ $id: DOC_ID, components: doc.components })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

/** The answer (or each JSON line of it) validates against the document's schema for its status and content type. */
const documented = (method: string, path: string, res: Answer) => {
  const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? ""
  const response = paths[`/public/v1${path}`]?.[method]?.responses[String(res.status)]
  expect(response, `${method} ${path} ${res.status} declared`).toBeDefined()
  const schema = response?.content?.[type]?.schema
  expect(schema, `${method} ${path} ${res.status} ${type} documented`).toBeDefined()
  const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${DOC_ID}#/components/`)))
  const values =
    type === "application/x-ndjson"
      ? res.text
          .split("\n")
          .filter((l) => l !== "")
          .map((l) => JSON.parse(l))
      : [type === "text/csv" ? res.text : res.json]
  for (const value of values) expect(validate(value), ajv.errorsText(validate.errors)).toBe(true)
}

const workspace = async () => {
  const ws = await sys.admin.createWorkspace()
  const channel = async (name: string) =>
    (await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name, customerId: null, postingTimes: [] })).channelId
  return { ...ws, api: client(sys.url, ws.apiKey), a: await channel("Alpha"), b: await channel("Beta") }
}
type Ws = Awaited<ReturnType<typeof workspace>>

const groups = (workspaceId: string) =>
  withDb(world, async (c) => (await c.query("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1", [workspaceId])).rows[0].n as number)

const csvField = (s: string) => (/[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s)
const HOUR = 3600_000
const base = Date.now() + 48 * HOUR
const dateOf = (i: number) => new Date(base + i * 60_000).toISOString()
const NO_SUCH = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"

/** Row i of the big file: every 25th is bad, in turn one of five ways; the others valid (some on two channels, some with tags). */
const rowOf = (w: Ws, i: number) => {
  const kind = i % 25 === 7 ? Math.floor(i / 25) % 5 : -1
  const content = i % 10 === 0 ? `Post ${i}, with a comma, "quotes"\nand a second line` : `Post ${i}`
  const base = {
    date: dateOf(i),
    channels: i % 3 === 0 ? `${w.a};${w.b}` : w.a,
    content,
    media: "",
    settings: "",
    tags: i % 4 === 0 ? "bulk;launch" : ""
  }
  switch (kind) {
    case 0:
      return { ...base, channels: NO_SUCH, bad: "Channel not found" }
    case 1:
      return { ...base, content: "x".repeat(600), bad: "Please fix these before saving." }
    case 2:
      return { ...base, date: "next tuesday", bad: "date" }
    case 3:
      return { ...base, settings: "{not json", bad: "The settings of this row are not a JSON object." }
    case 4:
      return { ...base, settings: '{"audience":"nobody"}', bad: "Please fix these before saving." }
    default:
      return { ...base, bad: null }
  }
}
type Row = ReturnType<typeof rowOf>

const csvOf = (rows: ReadonlyArray<Row>) =>
  `date,channels,content,media,settings,tags\n${rows.map((r) => [r.date, r.channels, r.content, r.media, r.settings, r.tags].map(csvField).join(",")).join("\n")}\n`

const jsonlOf = (rows: ReadonlyArray<Row>) =>
  rows
    .map((r) => JSON.stringify({ date: r.date, channels: r.channels.split(";"), content: r.content, settings: r.settings, tags: r.tags }))
    .join("\n")

const importFile = (w: Ws, body: string, type: string, query = "", headers: Record<string, string> = {}) =>
  w.api.post(`/public/v1/posts/import${query}`, body, { "content-type": type, ...headers })

/** Rows of the file checked (dry run); the first SAVED of them are saved, replayed and exported. */
const ROWS = 3000
const SAVED = 1000

describe("POST /public/v1/posts/import", () => {
  it("checks every row with POST /posts' messages, saves the valid ones once under the key, and exports them again", async () => {
    const w = await workspace()
    const rows = Array.from({ length: ROWS }, (_, i) => rowOf(w, i))
    const bad = rows.filter((r) => r.bad !== null).length
    expect(bad).toBe(ROWS / 25)
    const file = csvOf(rows)

    // a dry run answers every row and saves nothing
    const dry = await importFile(w, file, "text/csv", "?dryRun=true")
    expect(dry.status).toBe(200)
    documented("post", "/posts/import", dry)
    const checked = decoded(dry, ImportAnswer)
    expect(checked).toMatchObject({ dryRun: true, saved: 0, refused: bad })
    expect(checked.rows.map((r) => r.row)).toEqual(rows.map((_, i) => i + 1))
    for (const [i, r] of rows.entries()) {
      const answer = checked.rows[i]
      if (r.bad === null) expect(answer?.status).toBe("valid")
      else {
        expect(answer?.status).toBe("refused")
        if (r.bad === "date") expect(answer?.error).toMatch(/date/i)
        else expect(answer?.error).toBe(r.bad)
        expect(answer?.msg).toBe(answer?.error)
      }
    }
    // the rule problems name the channel and the rule, like POST /posts
    expect(checked.rows[32]?.errors?.[0]?.channelName).toBe("Alpha")
    expect(await groups(w.workspaceId)).toBe(0)

    // the same row sent to POST /posts answers the same message
    const tooLong = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date: dateOf(1),
      posts: [{ integration: { id: w.a }, value: [{ content: "x".repeat(600) }] }]
    })
    expect(tooLong.status).toBe(400)
    expect(
      checked.rows.find((r) => r.error === errorOf(tooLong).error && r.errors?.[0]?.message === errorOf(tooLong).errors?.[0]?.message)
    ).toBeDefined()

    // saved: every valid row, once
    const part = rows.slice(0, SAVED)
    const partBad = part.filter((r) => r.bad !== null).length
    const partFile = csvOf(part)
    const started = Date.now()
    const saved = await importFile(w, partFile, "text/csv", "", { "idempotency-key": "file-1" })
    const took = Date.now() - started
    expect(saved.status).toBe(200)
    documented("post", "/posts/import", saved)
    const first = decoded(saved, ImportAnswer)
    expect(first).toMatchObject({ dryRun: false, saved: SAVED - partBad, refused: partBad })
    expect(await groups(w.workspaceId)).toBe(SAVED - partBad)
    const twoChannels = first.rows[3]
    expect(twoChannels?.postIds).toHaveLength(2)
    console.log(`${SAVED} rows imported in ${took} ms`)

    // the file again under its key: every row replays, nothing is saved twice
    const again = decoded(await importFile(w, partFile, "text/csv", "", { "idempotency-key": "file-1" }), ImportAnswer)
    expect(again.saved).toBe(SAVED - partBad)
    expect(again.rows.map((r) => r.group)).toEqual(first.rows.map((r) => r.group))
    expect(await groups(w.workspaceId)).toBe(SAVED - partBad)
    // one row changed under the same key: that row answers POST /posts' 409 body, the others their kept answers
    const changed = part.map((r, i) => (i === 1 ? { ...r, content: "Changed" } : r))
    const mixed = decoded(await importFile(w, csvOf(changed), "text/csv", "", { "idempotency-key": "file-1" }), ImportAnswer)
    expect(mixed.rows[1]).toMatchObject({ status: "refused", code: "idempotency_key_reused" })
    expect(mixed.saved).toBe(SAVED - partBad - 1)
    expect(await groups(w.workspaceId)).toBe(SAVED - partBad)

    // exported: one line per channel post of the range, oldest first, content and tags as imported
    const range = `startDate=${new Date(base - HOUR).toISOString()}&endDate=${new Date(base + SAVED * 60_000 + HOUR).toISOString()}`
    const channelPosts = part.filter((r) => r.bad === null).reduce((n, r) => n + r.channels.split(";").length, 0)
    const csv = await w.api.get(`/public/v1/posts/export?${range}&format=csv`)
    expect(csv.status).toBe(200)
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/)
    documented("get", "/posts/export", csv)
    const records = Either.getOrThrow(parseCsv(csv.text))
    expect(records[0]).toEqual(["date", "group", "postId", "channels", "channelName", "network", "status", "content", "releaseUrl", "error", "tags"])
    expect(records.length - 1).toBe(channelPosts)
    const row10 = records.find((r) => r[7]?.startsWith("Post 10,"))
    expect(row10?.[7]).toBe(rows[10]?.content)
    expect(records.find((r) => r[7] === "Post 4")?.[10]).toBe("bulk;launch")
    const jsonl = await w.api.get(`/public/v1/posts/export?${range}&format=jsonl`)
    expect(jsonl.status).toBe(200)
    expect(jsonl.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
    documented("get", "/posts/export", jsonl)
    const lines = jsonl.text
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => decode(ExportLine, JSON.parse(l)))
    expect(lines).toHaveLength(channelPosts)
    expect(lines.map((l) => l.date)).toEqual([...lines.map((l) => l.date)].sort())
    expect(lines.every((l) => l.status === "queued")).toBe(true)
    // an exported file is read by the import (its columns keep the import's names)
    const reread = decoded(await importFile(w, csv.text, "text/csv", "?dryRun=true"), ImportAnswer)
    expect(reread.rows).toHaveLength(channelPosts)
  }, 120_000)

  it("reads JSON lines and a multipart file the same way", async () => {
    const w = await workspace()
    const rows = Array.from({ length: 60 }, (_, i) => rowOf(w, i))
    const bad = rows.filter((r) => r.bad !== null).length
    const fromLines = decoded(await importFile(w, jsonlOf(rows), "application/x-ndjson"), ImportAnswer)
    expect(fromLines).toMatchObject({ saved: 60 - bad, refused: bad })
    expect(fromLines.rows[7]?.error).toBe("Channel not found")

    const form = new FormData()
    form.append("file", new Blob([csvOf(rows)], { type: "text/csv" }), "posts.csv")
    const multipart = await answerFrom(
      await fetch(`${sys.url}/public/v1/posts/import?dryRun=true`, { method: "POST", headers: { authorization: w.apiKey }, body: form })
    )
    expect(multipart.status).toBe(200)
    documented("post", "/posts/import", multipart)
    expect(decoded(multipart, ImportAnswer)).toMatchObject({ dryRun: true, refused: bad })
    expect(await groups(w.workspaceId)).toBe(60 - bad)
  })

  it("media: a library path is that upload; a path that is no web address is refused as POST /posts refuses it", async () => {
    const w = await workspace()
    const form = new FormData()
    form.append("file", new Blob([png(20, 10)], { type: "image/png" }), "photo.png")
    const upload = await answerFrom(await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: w.apiKey }, body: form }))
    const item = decoded(upload, MediaItem)
    const file = csvOf([
      { ...rowOf(w, 1), media: item.path },
      { ...rowOf(w, 2), media: "local/photo.png" }
    ])
    const answer = decoded(await importFile(w, file, "text/csv"), ImportAnswer)
    expect(answer.rows[0]?.status).toBe("saved")
    const post = wholePost(await w.api.get(`/public/v1/posts/${answer.rows[0]?.group}`))
    expect(post.channels[0]?.root.media[0]).toMatchObject({ id: item.id, type: "image" })
    const one = {
      type: "schedule",
      date: dateOf(2),
      posts: [{ integration: { id: w.a }, value: [{ content: "Post 2", image: [{ path: "local/photo.png" }] }] }]
    }
    const refused = errorOf(await w.api.post("/public/v1/posts", one))
    expect(answer.rows[1]).toMatchObject({ status: "refused", error: refused.error, errors: refused.errors })
  })

  it("refuses a file it cannot read as a whole, with the spec's body", async () => {
    const w = await workspace()
    for (const [body, message] of [
      ["date,content\n2030-01-01T00:00:00Z,hi\n", "The CSV header has no column channels."],
      ['date,channels,content\n2030-01-01T00:00:00Z,x,"never closed\n', "The CSV has a quote opened on line 2 that is never closed."],
      ["date,channels,content\n", "The file has no rows."],
      [`date,channels,content\n${"2030-01-01T00:00:00Z,x,y\n".repeat(5001)}`, "The file has more than 5000 rows."]
    ] as const) {
      const res = await importFile(w, body, "text/csv")
      expect(res.status).toBe(400)
      expect(errorOf(res).error).toBe(message)
      documented("post", "/posts/import", res)
    }
    const range = await w.api.get("/public/v1/posts/export?startDate=soon")
    expect(range.status).toBe(400)
    documented("get", "/posts/export", range)
    const format = await w.api.get("/public/v1/posts/export?format=xml")
    expect(errorOf(format).error).toBe("The format must be csv or jsonl.")
    documented("get", "/posts/export", format)
  })

  it("counts one request per 100 rows in POST /posts' 90 an hour: over it 429 with Retry-After, nothing saved", async () => {
    const w = await workspace()
    // 5000 rows on a missing channel: 50 requests each, nothing to save
    const refusedRows = csvOf(Array.from({ length: 5000 }, (_, i) => ({ ...rowOf(w, i), channels: NO_SUCH })))
    const first = decoded(await importFile(w, refusedRows, "text/csv"), ImportAnswer)
    expect(first.refused).toBe(5000)
    // 40 more requests of POST /posts' 90: the window is full
    const fill = await importFile(w, csvOf(Array.from({ length: 4000 }, (_, i) => ({ ...rowOf(w, i), channels: NO_SUCH }))), "text/csv")
    expect(fill.status).toBe(200)
    const over = await importFile(w, csvOf([rowOf(w, 1)]), "text/csv")
    expect(over.status).toBe(429)
    documented("post", "/posts/import", over)
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(3000)
    expect(errorOf(over).error).toMatch(/^Too many requests\. Try again in \d+ minutes\.$/)
    // POST /posts shares the window
    expect((await w.api.post("/public/v1/posts", { type: "draft", posts: [{ integration: { id: w.a }, value: [{ content: "hi" }] }] })).status).toBe(
      429
    )
    // a dry run counts nothing and still answers
    expect((await importFile(w, csvOf([rowOf(w, 1)]), "text/csv", "?dryRun=true")).status).toBe(200)
    expect(await groups(w.workspaceId)).toBe(0)
  })
})
