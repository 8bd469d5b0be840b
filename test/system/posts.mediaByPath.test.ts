import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"
import { answerOf, created, wholePost } from "../support/answers.js"
import { answerFrom, client, decoded, errorOf } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { realMp4 } from "../support/realMedia.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

/**
 * POST /posts `image[]` given by `path` (what the reference CLI sends: a made-up id next
 * to a public address): the path is read as the file it names. An upload's own path is
 * that library item; another address is imported through the SSRF-safe client and kept
 * with its real id, mime, size and kind, and the network rules check what the file is.
 */

let world: TestWorld
let sys: RunningServices
let origin: LoopbackServer
let originUrl: string

const image = png(30, 20)
const video = realMp4({ padBytes: 20 })

beforeAll(async () => {
  origin = await startLoopbackServer((req, res) => {
    const send = (type: string, body: Uint8Array) => res.writeHead(200, { "content-type": type, "content-length": body.length }).end(body)
    // names that lie about what the file is: the content decides
    if (req.url === "/clip.mp4") return send("video/mp4", image)
    if (req.url === "/still.png") return send("image/png", video)
    if (req.url === "/page.png") return send("text/html", new TextEncoder().encode("<html><body>not a file</body></html>"))
    res.writeHead(404).end()
  })
  originUrl = origin.url("")
  world = await createWorld("postsmediapath")
  sys = await startServices(world, ["gateway", "actors"], { OUTBOUND_ALLOW: `127.0.0.1:${origin.origin.port}` })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await origin?.close()
})

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const api = client(sys.url, apiKey)
  const channel = async (network: string, name: string) =>
    (await sys.admin.createChannel({ workspaceId, network, name, customerId: null, postingTimes: [] })).channelId
  const youtube = await channel("youtube", "Tube")
  const test = await channel("test", "Test")
  const onYoutube = (image: Array<Record<string, unknown>>) => ({
    type: "draft",
    posts: [{ integration: { id: youtube }, value: [{ content: "Watch", image }], settings: { __type: "youtube", title: "Launch", type: "public" } }]
  })
  return { apiKey, api, youtube, test, onYoutube }
}

describe("media given by path", () => {
  it("an address whose name says video but whose file is an image: YouTube's needs-video rule refuses it", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", w.onYoutube([{ id: "cli-x1y2z3", path: `${originUrl}/clip.mp4` }]))
    expect(res.status, res.text).toBe(400)
    expect(errorOf(res).errors).toEqual([{ channelId: w.youtube, channelName: "Tube", message: "Tube: this network needs a video on the post." }])
  })

  it("an address whose file is a video is imported and recorded with its real id, mime, size and kind", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", w.onYoutube([{ id: "cli-abc", path: `${originUrl}/still.png`, alt: "Trailer" }]))
    expect(res.status, res.text).toBe(200)
    const media = wholePost(await w.api.get(`/public/v1/posts/${created(res).group}`)).channels[0]?.root.media
    const library = decoded(await w.api.get("/public/v1/media"), answerOf("media", "listMedia"))
    expect(library).toHaveLength(1)
    expect(media).toEqual([
      expect.objectContaining({ id: library[0]?.id, url: library[0]?.path, alt: "Trailer", mime: "video/mp4", type: "video", size: video.length })
    ])
    expect(library[0]?.type).toBe("video")
  })

  it("an upload's own path with a made-up id is that library item: nothing is fetched or copied", async () => {
    const w = await newWorkspace()
    const form = new FormData()
    form.append("file", new Blob([image], { type: "image/png" }), "photo.png")
    const uploaded = decoded(
      await answerFrom(await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: w.apiKey }, body: form })),
      answerOf("media", "upload")
    )
    const before = origin.requests.length
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: w.test }, value: [{ content: "Photo", image: [{ id: "r4nd0m", path: uploaded.path }] }] }]
    })
    expect(res.status, res.text).toBe(200)
    expect(origin.requests.length).toBe(before)
    const media = wholePost(await w.api.get(`/public/v1/posts/${created(res).group}`)).channels[0]?.root.media
    expect(media).toEqual([expect.objectContaining({ id: uploaded.id, url: uploaded.path, mime: "image/png", type: "image", width: 30, height: 20 })])
    expect((await w.api.get("/public/v1/media")).json).toHaveLength(1)
  })

  it("an address that cannot be imported (private, a page, missing) is a 400 naming it; nothing is saved", async () => {
    const w = await newWorkspace()
    for (const path of ["http://10.1.2.3/a.png", `${originUrl}/page.png`, `${originUrl}/gone.png`]) {
      const res = await w.api.post("/public/v1/posts", {
        type: "draft",
        posts: [{ integration: { id: w.test }, value: [{ content: "x", image: [{ id: "q", path }] }] }]
      })
      expect(res.status, res.text).toBe(400)
      expect(errorOf(res).error).toContain(`The file at ${path} could not be taken into the media library: `)
      expect(errorOf(res).fix).toEqual(expect.any(String))
    }
    expect(decoded(await w.api.get("/public/v1/posts"), answerOf("posts", "listPosts")).posts).toEqual([])
  })

  it("an address that is not http or https is a rule problem of the channel", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: w.test }, value: [{ content: "x", image: [{ id: "q", path: "file:///etc/passwd" }] }] }]
    })
    expect(res.status).toBe(400)
    expect(errorOf(res).errors?.[0]?.message).toMatch(/^Test: the file address file:\/\/\/etc\/passwd is not an http or https address/)
  })
})
