import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerOf, created as createdRow, present, wholePost } from "../support/answers.js"
import { answerFrom, client, decoded, errorOf } from "../support/http.js"
import { png } from "../support/mediaFiles.js"
import { realMp4 } from "../support/realMedia.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

let world: TestWorld
let sys: RunningServices
let apiKey: string
let workspaceId: string
let channelId: string

const upload = async (bytes: Uint8Array, name: string, type: string) => {
  const form = new FormData()
  form.append("file", new Blob([bytes], { type }), name)
  const res = await fetch(`${sys.url}/public/v1/upload`, { method: "POST", headers: { authorization: apiKey }, body: form })
  expect(res.status).toBe(200)
  return decoded(await answerFrom(res), answerOf("media", "upload"))
}

beforeAll(async () => {
  world = await createWorld("postsmedia")
  sys = await startServices(world, ["gateway", "actors"])
  const ws = await sys.admin.createWorkspace()
  apiKey = ws.apiKey
  workspaceId = ws.workspaceId
  channelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "test", name: "Media channel", customerId: null, postingTimes: [] })
  ).channelId
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("Media ids in posts resolve to library items", () => {
  it("image[].id: GET /posts/{id} items carry url, alt, mime, name, size, width, height", async () => {
    const image = await upload(png(32, 24), "photo.png", "image/png")
    const created = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: channelId }, value: [{ content: "with a photo", image: [{ id: image.id, alt: "A photo" }] }] }]
    })
    expect(created.status).toBe(200)
    const { postId } = createdRow(created)
    const post = await client(sys.url, apiKey).get(`/public/v1/posts/${postId}`)
    const media = present(wholePost(post).channels[0], "the post's channel").root.media
    expect(media).toHaveLength(1)
    expect(media[0]).toMatchObject({
      id: image.id,
      alt: "A photo",
      url: image.path,
      mime: "image/png",
      name: image.name,
      type: "image",
      width: 32,
      height: 24
    })
    expect(media[0]?.size).toBeGreaterThan(0)
    const rows = await client(sys.url, apiKey).get("/public/v1/posts")
    const row = decoded(rows, answerOf("posts", "listPosts")).posts.find((p) => p.id === postId)
    expect(row?.image).toEqual([{ id: image.id, path: image.path, alt: "A photo" }])
  })

  it("`media` alias (simpler body) with a video", async () => {
    const video = await upload(realMp4({ width: 640, height: 360 }), "clip.mp4", "video/mp4")
    const created = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "draft",
      content: "with a clip",
      channels: [{ channelId, media: [video.id] }]
    })
    expect(created.status).toBe(200)
    const post = await client(sys.url, apiKey).get(`/public/v1/posts/${createdRow(created).group}`)
    expect(wholePost(post).channels[0]?.root.media[0]).toMatchObject({
      id: video.id,
      url: video.path,
      mime: "video/mp4",
      type: "video",
      width: 640,
      height: 360
    })
  })

  it("an id that is not in the workspace's library is a rule problem, nothing saved", async () => {
    const res = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: channelId }, value: [{ content: "x", image: [{ id: crypto.randomUUID() }] }] }]
    })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    expect(errorOf(res).errors?.[0]?.message).toMatch(/^Media channel: /)
  })
})

describe("One rule, one place: a stored draft is checked exactly like the same body on POST /posts", () => {
  const youtubeSettings = { title: "Launch", type: "public" }
  let youtube: string

  beforeAll(async () => {
    youtube = (await sys.admin.createChannel({ workspaceId, network: "youtube", name: "Our YouTube", customerId: null, postingTimes: [] })).channelId
  })

  it("a YouTube draft with an uploaded video: PUT status schedule queues it (it was refused as 'needs a video')", async () => {
    const video = await upload(realMp4({ width: 640, height: 360 }), "launch.mp4", "video/mp4")
    const body = { content: "Our launch", channels: [{ channelId: youtube, media: [video.id], settings: youtubeSettings }] }
    const asSchedule = await client(sys.url, apiKey).post("/public/v1/posts", {
      ...body,
      type: "schedule",
      date: new Date(Date.now() + 86_400_000).toISOString()
    })
    expect(asSchedule.status).toBe(200)
    const draft = await client(sys.url, apiKey).post("/public/v1/posts", {
      ...body,
      type: "draft",
      date: new Date(Date.now() + 86_400_000).toISOString()
    })
    expect(draft.status).toBe(200)
    const scheduled = await client(sys.url, apiKey).put(`/public/v1/posts/${createdRow(draft).group}/status`, { status: "schedule" })
    expect(scheduled.status).toBe(200)
    expect(wholePost(scheduled).channels[0]?.root.state).toBe("queued")
  })

  it("PUT /posts/{id}/settings answers a select setting out of its options like POST /posts: errors[] with the same message", async () => {
    const video = await upload(realMp4(), "clip.mp4", "video/mp4")
    const bad = { title: "Launch", type: "everyone" }
    const onCreate = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "draft",
      content: "x",
      channels: [{ channelId: youtube, media: [video.id], settings: bad }]
    })
    const draft = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "draft",
      content: "x",
      channels: [{ channelId: youtube, media: [video.id], settings: youtubeSettings }]
    })
    const onSettings = await client(sys.url, apiKey).put(`/public/v1/posts/${createdRow(draft).postId}/settings`, { settings: { type: "everyone" } })
    expect(onCreate.status).toBe(400)
    expect(onSettings.status).toBe(400)
    expect(onSettings.json).toEqual(onCreate.json)
    expect(errorOf(onSettings).errors?.[0]?.message).toBe("Our YouTube: the setting type must be one of public, private, unlisted.")
  })
})
