import fs from "node:fs/promises"
import os from "node:os"
import path from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { formatSize } from "../../domain/media/messages.js"
import { makeMediaRepo } from "../../services/media/mediaRepo.js"
import { answerOf } from "../support/answers.js"
import { answerFrom, client, decoded, errorOf } from "../support/http.js"
import { OpenApiDocument } from "../support/openApiDocument.js"
import { gif, jpeg, mp4, png, truncated, webm, webpExtended, webpLossless } from "../support/mediaFiles.js"
import { realMov, realMp4, realWebm } from "../support/realMedia.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"

const MAX_UPLOAD = 300 * 1024
const MAX_IMAGE = 100 * 1024

let world: TestWorld
let sys: RunningServices
/** A second gateway on the same world with small limits (413 and the image limit). */
let small: RunningServices
let dataDir: string
let apiKey: string
let workspaceId: string

beforeAll(async () => {
  world = await createWorld("media")
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "media-test-"))
  sys = await startServices(world, ["gateway"], { DATA_DIR: dataDir })
  small = await startServices(world, ["gateway"], {
    DATA_DIR: dataDir,
    MAX_UPLOAD_BYTES: String(MAX_UPLOAD),
    MAX_IMAGE_BYTES: String(MAX_IMAGE)
  })
  ;({ apiKey, workspaceId } = await sys.admin.createWorkspace())
})
afterAll(async () => {
  await small?.stop()
  await sys?.stop()
  await world?.drop()
  await fs.rm(dataDir, { recursive: true, force: true })
})

const Uploaded = answerOf("media", "upload")
const Listed = answerOf("media", "listMedia")

/** POST /upload as a script would: fetch with FormData and a Blob. */
const upload = async (baseUrl: string, key: string, bytes: Uint8Array, name: string, declaredType = "application/octet-stream", field = "file") => {
  const form = new FormData()
  form.append(field, new Blob([bytes], { type: declaredType }), name)
  const res = await fetch(`${baseUrl}/public/v1/upload`, { method: "POST", headers: { authorization: key }, body: form })
  return answerFrom(res)
}

/** The gateway serves `path` at /media/…; tests reach it on its real port. */
const fetchPath = (mediaPath: string, init?: RequestInit) => fetch(`${sys.url}${new URL(mediaPath).pathname}`, init)

const realFiles = [
  ["JPG", jpeg(64, 48), "photo.jpg", "image/jpeg", "image"],
  ["PNG", png(32, 20), "graph.png", "image/png", "image"],
  ["GIF", gif(10, 6), "anim.gif", "image/gif", "image"],
  ["WEBP (lossless)", webpLossless(20, 10), "pic.webp", "image/webp", "image"],
  ["WEBP (extended)", webpExtended(40, 30), "pic2.webp", "image/webp", "image"],
  ["MP4", realMp4({ padBytes: 20_000 }), "clip.mp4", "video/mp4", "video"],
  ["MOV", realMov({ padBytes: 20_000 }), "clip.mov", "video/quicktime", "video"],
  ["WEBM", realWebm(), "clip.webm", "video/webm", "video"]
] as const

describe("POST /upload", () => {
  it.each(realFiles)("a %s file is stored and answered as a Media item", async (_, bytes, name, mime, kind) => {
    const res = await upload(sys.url, apiKey, bytes, name, mime)
    expect(res.status).toBe(200)
    const item = decoded(res, Uploaded)
    expect(Object.keys(item).sort()).toEqual(["alt", "facts", "id", "name", "originalName", "path", "status", "thumbnail", "type"])
    expect(item).toMatchObject({ name, originalName: name, alt: "", type: kind, status: "ready" })
    expect(item.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(item.path).toMatch(new RegExp(`^http://127\\.0\\.0\\.1/media/${workspaceId}/${item.id}\\.\\w+$`))
    expect(item.thumbnail).toBe(kind === "image" ? item.path : null)

    const served = await fetchPath(item.path)
    expect(served.status).toBe(200)
    expect(served.headers.get("content-type")).toBe(mime)
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
  })

  it("the type comes from the content: a PNG named x.mp4 and declared video/mp4 is a PNG image", async () => {
    const res = await upload(sys.url, apiKey, png(), "x.mp4", "video/mp4")
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ type: "image", name: "x.mp4" })
    expect(decoded(res, Uploaded).path).toMatch(/\.png$/)
    expect((await fetchPath(decoded(res, Uploaded).path)).headers.get("content-type")).toBe("image/png")
  })

  it("an MP4 named photo.jpg is a video", async () => {
    const res = await upload(sys.url, apiKey, realMp4(), "photo.jpg", "image/jpeg")
    expect(res.json).toMatchObject({ type: "video", thumbnail: null })
    expect(decoded(res, Uploaded).path).toMatch(/\.mp4$/)
  })

  it.each(realFiles)("a truncated %s gets 400 saying it is incomplete", async (_, bytes, name, mime) => {
    const res = await upload(sys.url, apiKey, truncated(bytes, 0.6), name, mime)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/incomplete or damaged/)
    expect(errorOf(res).msg).toBe(errorOf(res).error)
    expect(errorOf(res).fix).toBeTypeOf("string")
  })

  it.each([
    ["a text file named .png", Buffer.from("not an image at all"), "fake.png", "image/png"],
    ["a PDF", Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"), "doc.pdf", "application/pdf"],
    ["a Matroska video", webm({ docType: "matroska" }), "film.mkv", "video/x-matroska"],
    ["an SVG", Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), "logo.svg", "image/svg+xml"]
  ])("%s gets 400 naming the accepted types", async (_, bytes, name, mime) => {
    const res = await upload(sys.url, apiKey, bytes, name, mime)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("This file type is not accepted. Upload a JPG, PNG, GIF, WEBP, MP4, MOV or WEBM file.")
  })

  it("an empty file gets 400", async () => {
    const res = await upload(sys.url, apiKey, new Uint8Array(), "empty.png")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("The file is empty.")
  })

  it("no field `file` gets 400", async () => {
    const res = await upload(sys.url, apiKey, png(), "x.png", "image/png", "picture")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/file/)
  })

  it("a JSON body instead of a file gets 400", async () => {
    const res = await client(sys.url, apiKey).post("/public/v1/upload", { file: "abc" })
    expect(res.status).toBe(400)
  })

  it("many extra parts, or a large text field, get 400", async () => {
    const post = (form: FormData) => fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
    const many = new FormData()
    for (let i = 0; i < 40; i++) many.append(`f${i}`, "x")
    many.append("file", new Blob([png()]), "x.png")
    expect((await post(many)).status).toBe(400)
    const large = new FormData()
    large.append("note", "y".repeat(100_000))
    large.append("file", new Blob([png()]), "x.png")
    expect((await post(large)).status).toBe(400)
  })

  it("a JSON body over 5 MB to /upload keeps the JSON limit (413)", async () => {
    const res = await client(sys.url, apiKey).post("/public/v1/upload", JSON.stringify({ file: "x".repeat(6 * 1024 * 1024) }))
    expect(res.status).toBe(413)
  })

  it("without a key: 401 and nothing is read", async () => {
    const res = await upload(sys.url, "", png(), "x.png")
    expect(res.status).toBe(401)
    expect(errorOf(res).error).toBe("No API Key found")
  })

  it("a file over the 5 MB JSON limit is taken (uploads have their own limit)", async () => {
    const res = await upload(sys.url, apiKey, realMp4({ padBytes: 6 * 1024 * 1024 }), "six-mb.mp4", "video/mp4")
    expect(res.status).toBe(200)
    expect(decoded(res, Uploaded).type).toBe("video")
  })

  it("an image over the image limit gets 400 with the limit in the message", async () => {
    const big = png(8, 8, MAX_IMAGE + 10_000)
    const res = await upload(small.url, apiKey, big, "huge.png", "image/png")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toContain(formatSize(MAX_IMAGE))
    expect(errorOf(res).error).toMatch(/^Images can be at most/)
  })

  it("a video over the image limit is fine", async () => {
    const res = await upload(small.url, apiKey, realMp4({ padBytes: MAX_IMAGE + 10_000 }), "v.mp4", "video/mp4")
    expect(res.status).toBe(200)
  })

  it("a file over the largest upload size gets 413 with the limit (refused from its declared length)", async () => {
    const res = await upload(small.url, apiKey, mp4({ frames: MAX_UPLOAD * 2 }), "big.mp4", "video/mp4")
    expect(res.status).toBe(413)
    expect(errorOf(res).error).toContain(formatSize(MAX_UPLOAD))
  })

  it("a file over the largest upload size gets 413 while it streams", async () => {
    // within the multipart allowance of the declared length, so the parser's file limit stops it
    const res = await upload(small.url, apiKey, mp4({ frames: MAX_UPLOAD + 30_000 }), "big.mp4", "video/mp4")
    expect(res.status).toBe(413)
    expect(errorOf(res).error).toContain(formatSize(MAX_UPLOAD))
  })

  it("a file one byte over the largest upload size gets 413", async () => {
    const base = mp4({ frames: 0 }).length
    const res = await upload(small.url, apiKey, mp4({ frames: MAX_UPLOAD - base + 1 }), "big.mp4", "video/mp4")
    expect(res.status).toBe(413)
    expect(errorOf(res).error).toContain(formatSize(MAX_UPLOAD))
  })

  it("a file of exactly the largest upload size is taken", async () => {
    const base = realMp4().length
    const res = await upload(small.url, apiKey, realMp4({ padBytes: MAX_UPLOAD - base }), "exact.mp4", "video/mp4")
    expect(res.status).toBe(200)
  })
})

describe("GET /media/<key> (the stored files)", () => {
  it("answers ranges, HEAD, and 404 for unknown or malformed keys", async () => {
    const bytes = realMp4({ padBytes: 5000 })
    const item = decoded(await upload(sys.url, apiKey, bytes, "range.mp4"), Uploaded)
    const part = await fetchPath(item.path, { headers: { range: "bytes=100-199" } })
    expect(part.status).toBe(206)
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${bytes.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(bytes.subarray(100, 200)))).toBe(true)
    const head = await fetchPath(item.path, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("content-length")).toBe(String(bytes.length))
    const beyond = await fetchPath(item.path, { headers: { range: `bytes=${bytes.length}-` } })
    expect(beyond.status).toBe(416)
    const missing = await fetch(`${sys.url}/media/${workspaceId}/${crypto.randomUUID()}.mp4`)
    expect(missing.status).toBe(404)
    expect(errorOf(await answerFrom(missing)).error).toBe("Not found")
    for (const bad of ["../../etc/passwd", `${workspaceId}/..%2f..%2fx.png`, "x.png"]) {
      expect((await fetch(`${sys.url}/media/${bad}`)).status).toBe(404)
    }
  })
})

describe("GET /media", () => {
  let key: string
  let ws: string
  const names: Array<string> = []

  beforeAll(async () => {
    ;({ apiKey: key, workspaceId: ws } = await sys.admin.createWorkspace("Library"))
    for (let i = 1; i <= 41; i++) {
      const name = `item-${String(i).padStart(2, "0")}.png`
      const res = await upload(sys.url, key, png(4, 4), name, "image/png")
      expect(res.status).toBe(200)
      names.push(name)
    }
    await withDb(world, (c) => c.query("UPDATE media SET alt = 'A red Barn at dawn' WHERE workspace_id = $1 AND name = 'item-07.png'", [ws]))
  })

  it("answers 40 per page, newest first; the 41st is alone on page 2", async () => {
    const first = await client(sys.url, key).get("/public/v1/media")
    expect(first.status).toBe(200)
    expect(first.json).toHaveLength(40)
    expect(decoded(first, Listed)[0]?.name).toBe("item-41.png")
    expect(decoded(first, Listed)[39]?.name).toBe("item-02.png")
    const pageOne = await client(sys.url, key).get("/public/v1/media?page=1")
    expect(decoded(pageOne, Listed).map((m) => m.id)).toEqual(decoded(first, Listed).map((m) => m.id))
    const second = await client(sys.url, key).get("/public/v1/media?page=2")
    expect(decoded(second, Listed).map((m) => m.name)).toEqual(["item-01.png"])
    const third = await client(sys.url, key).get("/public/v1/media?page=3")
    expect(third.json).toEqual([])
  })

  it("items have the Media item fields", async () => {
    const res = await client(sys.url, key).get("/public/v1/media?search=item-03")
    expect(res.json).toEqual([expect.objectContaining({ name: "item-03.png", originalName: "item-03.png", alt: "", type: "image", status: "ready" })])
    expect(decoded(res, Listed)[0]?.thumbnail).toBe(decoded(res, Listed)[0]?.path)
  })

  it("search matches the name or the alt text, ignoring case", async () => {
    const byName = await client(sys.url, key).get("/public/v1/media?search=ITEM-1")
    expect(
      decoded(byName, Listed)
        .map((m) => m.name)
        .sort()
    ).toEqual([
      "item-10.png",
      "item-11.png",
      "item-12.png",
      "item-13.png",
      "item-14.png",
      "item-15.png",
      "item-16.png",
      "item-17.png",
      "item-18.png",
      "item-19.png"
    ])
    const byAlt = await client(sys.url, key).get(`/public/v1/media?search=${encodeURIComponent("red barn")}`)
    expect(decoded(byAlt, Listed).map((m) => m.name)).toEqual(["item-07.png"])
    expect(decoded(byAlt, Listed)[0]?.alt).toBe("A red Barn at dawn")
  })

  it("search characters are literal (% and _ match only themselves)", async () => {
    expect((await client(sys.url, key).get("/public/v1/media?search=%25")).json).toEqual([])
    expect((await client(sys.url, key).get("/public/v1/media?search=item_0")).json).toEqual([])
  })

  it.each(["0", "-1", "abc", "1.5"])("page=%s gets 400", async (page) => {
    const res = await client(sys.url, key).get(`/public/v1/media?page=${page}`)
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/page/)
  })

  it("another workspace's media is invisible", async () => {
    const other = await sys.admin.createWorkspace("Other")
    expect((await client(sys.url, other.apiKey).get("/public/v1/media")).json).toEqual([])
    const mine = await client(sys.url, key).get("/public/v1/media?search=item")
    expect(mine.json).toHaveLength(40)
  })

  it("client members get an empty list; editors see the library", async () => {
    const { userId: clientId } = await sys.admin.createUser({
      workspaceId: ws,
      email: `client-${ws}@example.com`,
      password: "password1",
      role: "client",
      timezone: null
    })
    const { userId: editorId } = await sys.admin.createUser({
      workspaceId: ws,
      email: `editor-${ws}@example.com`,
      password: "password1",
      role: "editor",
      timezone: null
    })
    const clientToken = await issueUserToken(world, ws, clientId)
    const editorToken = await issueUserToken(world, ws, editorId)
    const asClient = await client(sys.url, clientToken).get("/public/v1/media")
    expect(asClient.status).toBe(200)
    expect(asClient.json).toEqual([])
    expect((await client(sys.url, editorToken).get("/public/v1/media")).json).toHaveLength(40)
  })
})

describe("media ids used in posts (mediaRepo.findMany)", () => {
  it("resolves the workspace's own ids with path, alt, mime, size, width and height; others are not found", async () => {
    const image = decoded(await upload(sys.url, apiKey, png(30, 20), "for-post.png"), Uploaded)
    const video = decoded(await upload(sys.url, apiKey, realMp4({ width: 1280, height: 720 }), "for-post.mp4"), Uploaded)
    const other = await sys.admin.createWorkspace("Elsewhere")
    const foreign = decoded(await upload(sys.url, other.apiKey, png(), "foreign.png"), Uploaded)
    const found = await sys.runtime.runPromise(
      Effect.flatMap(makeMediaRepo, (repo) => repo.findMany(workspaceId, [image.id, video.id, foreign.id, "not-a-uuid", image.id]))
    )
    const byId = new Map<string, (typeof found)[number]>(found.map((m) => [m.id, m]))
    expect(found).toHaveLength(2)
    expect(byId.get(image.id)).toEqual({
      id: image.id,
      name: "for-post.png",
      path: image.path,
      alt: "",
      mime: "image/png",
      type: "image",
      size: png(30, 20).length,
      width: 30,
      height: 20,
      facts: expect.objectContaining({ kind: "image", format: "png", width: 30, height: 20 })
    })
    expect(byId.get(video.id)).toMatchObject({ mime: "video/mp4", type: "video", width: 1280, height: 720 })
    expect(await sys.runtime.runPromise(Effect.flatMap(makeMediaRepo, (repo) => repo.findMany(workspaceId, [])))).toEqual([])
  })
})

describe("the OpenAPI document", () => {
  it("lists the three media operations; the file route stays out", async () => {
    const doc = decoded(await client(sys.url).get("/public/v1/openapi.json"), OpenApiDocument, { exact: false })
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/public/v1/upload", "/public/v1/upload-from-url", "/public/v1/media"]))
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/media"))).toBe(false)
    expect(Object.keys(doc.paths["/public/v1/upload"]?.post?.requestBody?.content ?? {})).toEqual(["multipart/form-data"])
  })
})
