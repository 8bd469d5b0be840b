import { rm } from "node:fs/promises"
import path from "node:path"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { probeFile } from "../../services/media/preparation/probe.js"
import { answerOf, created, present, wholePost } from "../support/answers.js"
import { decoded, errorOf } from "../support/http.js"
import { usePreparationWorld } from "../support/preparationWorld.js"
import { seedAccount } from "../support/simulator/index.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { makeJpeg, makeVideo } from "../unit/media/fixtures.js"
import { makeHeic } from "../unit/media/heif.js"

/**
 * Files checked against each network's media rules when a post is saved, and prepared per
 * network before it is sent, through the public API: rotated JPEG, HEIC and video uploads
 * show their facts; a post a network cannot take is refused before anything is saved; a
 * post it can take goes out with renditions made once per file and target, which the
 * simulated network receives instead of the originals.
 */

const prep = usePreparationWorld("mediaprep")
const { upload: uploadAnswer, newWorkspace, testChannel, renditionsOf, rootOf } = prep

const Uploaded = answerOf("media", "upload")
const Listed = answerOf("media", "listMedia")
const upload = uploadAnswer

/** The Media item of an upload that is taken. */
const uploaded = async (apiKey: string, file: string, name: string) => decoded(await upload(apiKey, file, name), Uploaded)

const probeStored = (key: string) => Effect.runPromise(probeFile(path.join(prep.dataDir, "media", key)))

describe("facts read at upload", () => {
  it("a rotated JPEG, a HEIC and a video are taken, with their facts in the answer and in GET /media", async () => {
    const w = await newWorkspace()
    const jpeg = await upload(w.apiKey, await makeJpeg(prep.scratch.file("rotated.jpg"), 400, 300, 6), "rotated.jpg")
    expect(jpeg.status).toBe(200)
    expect(decoded(jpeg, Uploaded)).toMatchObject({
      name: "rotated.jpg",
      type: "image",
      status: "ready",
      facts: { kind: "image", format: "jpeg", width: 400, height: 300, orientation: 6 }
    })
    const heic = await upload(w.apiKey, await makeHeic(prep.scratch.file("photo.heic"), 256, 192), "IMG_0001.HEIC")
    expect(heic.status, heic.text).toBe(200)
    const heicItem = decoded(heic, Uploaded)
    expect(heicItem).toMatchObject({ type: "image", facts: { kind: "image", format: "heif", width: 256, height: 192 } })
    expect(heicItem.path).toMatch(/\.heic$/)
    const video = await upload(w.apiKey, await makeVideo(prep.scratch.file("clip.mp4"), { width: 320, height: 240, seconds: 1 }), "clip.mp4")
    expect(video.status).toBe(200)
    const videoItem = decoded(video, Uploaded)
    expect(videoItem).toMatchObject({ type: "video", facts: { kind: "video", videoCodec: "h264", audioCodec: "aac", width: 320, height: 240 } })
    const listed = decoded(await w.api.get("/public/v1/media"), Listed)
    expect(listed.find((m) => m.id === videoItem.id)?.facts).toEqual(videoItem.facts)
    expect(Object.keys(present(listed[0], "a listed item")).sort()).toEqual([
      "alt",
      "facts",
      "id",
      "name",
      "originalName",
      "path",
      "status",
      "thumbnail",
      "type"
    ])
  }, 60_000)

  it("a decompression bomb is refused with the reason", async () => {
    const w = await newWorkspace()
    const { makePngBomb } = await import("../unit/media/fixtures.js")
    const res = await upload(w.apiKey, await makePngBomb(prep.scratch.file("bomb.png"), 30000, 30000), "bomb.png")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/^This file cannot be used: the image declares 30000×30000 pixels/)
  })
})

describe("POST /posts checks the network's media rules before saving", () => {
  it("a video shorter than the network takes is the spec's 400 naming the file and the limit, and nothing is saved", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Rehearsal")
    const video = await uploaded(w.apiKey, await makeVideo(prep.scratch.file("short.mp4"), { width: 320, height: 240, seconds: 1 }), "short.mp4")
    const res = await w.api.post("/public/v1/posts", {
      type: "schedule",
      date: new Date(Date.now() + 3_600_000).toISOString(),
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: "too short", image: [{ id: video.id, path: video.path }] }],
          settings: { media_rules: "instagram" }
        }
      ]
    })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    expect(errorOf(res).errors).toEqual([
      expect.objectContaining({ message: "Rehearsal: short.mp4 is 0:01 long; Instagram takes at least 0:03. Use a longer video." })
    ])
    const posts = await withDb(prep.world, async (c) => (await c.query("SELECT 1 FROM posts WHERE channel_id = $1", [channelId])).rowCount)
    expect(posts).toBe(0)
    expect(await renditionsOf(video.id)).toEqual([])
  }, 60_000)

  it("what preparation can fix is accepted", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Rehearsal")
    const heic = await uploaded(w.apiKey, await makeHeic(prep.scratch.file("ok.heic"), 256, 192), "ok.heic")
    const res = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: "a phone photo", image: [{ id: heic.id, path: heic.path }] }],
          settings: { media_rules: "instagram" }
        }
      ]
    })
    expect(res.status, res.text).toBe(200)
    // the answer says what will be done
    expect(created(res).preparation).toEqual([
      expect.stringMatching(/^ok\.heic: converted from HEIC to JPG, .*metadata \(location, camera\) removed\.$/)
    ])
    const post = wholePost(await w.api.get(`/public/v1/posts/${created(res).group}`))
    expect(post.channels[0]?.root.media[0]?.facts).toMatchObject({ kind: "image", format: "heif" })
  })
})

describe("preparation per network, once", () => {
  it("Mastodon receives the rotated photo as an upright JPEG rendition; a second channel with the same rules reuses it", async () => {
    const w = await newWorkspace()
    const credentials = await seedAccount(prep.sim, "mastodon", { username: `prep${Date.now()}` })
    const mastodon = await prep.sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "mastodon",
      name: "Toots",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const rehearsal = await testChannel(w.workspaceId, "Like Mastodon")
    const photo = await uploaded(w.apiKey, await makeJpeg(prep.scratch.file("phone.jpg"), 640, 480, 6), "phone.jpg")
    const text = `Upright ${crypto.randomUUID().slice(0, 8)}`
    const image = [{ id: photo.id, path: photo.path }]
    const posted = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        { integration: { id: mastodon.channelId }, value: [{ content: text, image }] },
        { integration: { id: rehearsal.channelId }, value: [{ content: text, image }], settings: { media_rules: "mastodon" } }
      ]
    })
    expect(posted.status, posted.text).toBe(200)
    const post = await waitFor(
      "both channels published",
      async () => {
        const p = wholePost(await w.api.get(`/public/v1/posts/${created(posted).group}`))
        const states = p.channels.map((c) => c.root.state)
        return states.every((s) => s === "published" || s === "error") ? p : undefined
      },
      45_000
    )
    for (const c of post.channels) expect(c.root.state, JSON.stringify(c.root.error)).toBe("published")
    // one rendition for both channels: the same rules make the same target
    const renditions = await renditionsOf(photo.id)
    expect(renditions).toHaveLength(1)
    expect(renditions[0]).toMatchObject({ status: "ready", mime: "image/jpeg" })
    // what Mastodon received is the rendition: a JPEG of its size, upright (portrait), metadata gone
    const arrived = prep.sim.postsOf("mastodon").find((p) => p.text === text)
    expect(arrived?.media).toHaveLength(1)
    expect(arrived?.media[0]).toMatchObject({ mime: "image/jpeg", size: Number(renditions[0]!.bytes) })
    const facts = await probeStored(renditions[0]!.storage_key!)
    expect(facts).toMatchObject({ kind: "image", format: "jpeg", width: 480, height: 640, orientation: 1 })
    // the original is unchanged
    expect(await probeStored(`${w.workspaceId}/${photo.id}.jpg`)).toMatchObject({ width: 640, height: 480, orientation: 6 })
  }, 60_000)

  it("a library video goes to Reddit as a video post with the cover frame preparation made as its poster", async () => {
    const w = await newWorkspace()
    const credentials = await seedAccount(prep.sim, "reddit", { username: `prep${Date.now()}` })
    const reddit = await prep.sys.admin.createChannel({
      workspaceId: w.workspaceId,
      network: "reddit",
      name: "Redditor",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const video = await uploaded(w.apiKey, await makeVideo(prep.scratch.file("clip.mp4"), { width: 640, height: 360, seconds: 2 }), "clip.mp4")
    const title = `Clip ${crypto.randomUUID().slice(0, 8)}`
    const posted = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: reddit.channelId },
          value: [{ content: "a clip", image: [{ id: video.id, path: video.path }] }],
          settings: { subreddit: [{ subreddit: "test", title, type: "media" }] }
        }
      ]
    })
    expect(posted.status, posted.text).toBe(200)
    const root = await waitFor(
      "published",
      async () => {
        const r = rootOf(await w.api.get(`/public/v1/posts/${created(posted).group}`))
        return r.state === "published" || r.state === "error" ? r : undefined
      },
      60_000
    )
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    const arrived = prep.sim.postsOf("reddit").filter((p) => p.extra["title"] === title)
    expect(arrived).toHaveLength(1)
    expect(arrived[0]?.extra["kind"]).toBe("video")
    // the video (its rendition) and the JPEG cover made with it as video_poster_url
    expect(arrived[0]?.media.map((m) => m.mime)).toEqual(["video/mp4", "image/jpeg"])
    expect(arrived[0]?.media[1]?.size).toBeGreaterThan(100)
  }, 90_000)

  it("a HEVC video goes to a network with Bluesky's rules as H.264 MP4, and the item is not left held", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Like Bluesky")
    const video = await uploaded(
      w.apiKey,
      await makeVideo(prep.scratch.file("hevc.mp4"), { width: 640, height: 360, seconds: 2, codec: "libx265" }),
      "hevc.mp4"
    )
    expect(video.facts).toMatchObject({ videoCodec: "hevc" })
    const posted = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: "a clip", image: [{ id: video.id, path: video.path }] }],
          settings: { media_rules: "bluesky" }
        }
      ]
    })
    expect(posted.status, posted.text).toBe(200)
    const root = await waitFor(
      "published",
      async () => {
        const r = rootOf(await w.api.get(`/public/v1/posts/${created(posted).group}`))
        return r.state === "published" || r.state === "error" ? r : undefined
      },
      60_000
    )
    expect(root.state, JSON.stringify(root.error)).toBe("published")
    expect(root.held).toBeNull()
    const [rendition] = await renditionsOf(video.id)
    expect(rendition).toMatchObject({ status: "ready", mime: "video/mp4" })
    expect(await probeStored(rendition!.storage_key!)).toMatchObject({ kind: "video", container: "mp4", videoCodec: "h264", width: 640, height: 360 })
  }, 90_000)

  it("while its video is prepared the item shows held preparation; then it goes out", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Slow one")
    const video = await uploaded(
      w.apiKey,
      await makeVideo(prep.scratch.file("big.mp4"), { width: 1920, height: 1080, seconds: 4, codec: "libx265" }),
      "big.mp4"
    )
    const posted = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: "a big clip", image: [{ id: video.id, path: video.path }] }],
          settings: { media_rules: "x" }
        }
      ]
    })
    expect(posted.status, posted.text).toBe(200)
    const rootNow = async () => rootOf(await w.api.get(`/public/v1/posts/${created(posted).group}`))
    const held = await waitFor(
      "held for preparation",
      async () => {
        const r = await rootNow()
        return r.held === "preparation" || r.state === "published" ? r : undefined
      },
      60_000
    )
    expect(held).toMatchObject({ held: "preparation", state: "publishing" })
    const done = await waitFor(
      "published",
      async () => {
        const r = await rootNow()
        return r.state === "published" || r.state === "error" ? r : undefined
      },
      90_000
    )
    expect(done).toMatchObject({ state: "published", held: null })
  }, 150_000)

  it("a preparation that fails fails the item with a plain reason and a fix", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Lost file")
    const photo = await uploaded(w.apiKey, await makeJpeg(prep.scratch.file("gone.jpg"), 300, 200), "gone.jpg")
    // the original disappears from storage before anything is prepared
    await rm(path.join(prep.dataDir, "media", `${w.workspaceId}/${photo.id}.jpg`))
    const posted = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "no photo left", image: [{ id: photo.id, path: photo.path }] }] }]
    })
    expect(posted.status, posted.text).toBe(200)
    const root = await waitFor(
      "failed",
      async () => {
        const r = rootOf(await w.api.get(`/public/v1/posts/${created(posted).group}`))
        return r.state === "error" || r.state === "published" ? r : undefined
      },
      45_000
    )
    expect(root.state).toBe("error")
    expect(root.error).toEqual({
      message: "gone.jpg could not be prepared for the network: the original file is no longer in storage.",
      fix: "Upload the file again, attach the new upload to the post and retry it."
    })
  }, 60_000)
})
