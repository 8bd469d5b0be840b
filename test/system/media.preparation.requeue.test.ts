import { copyFile, rm } from "node:fs/promises"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { answerOf, created } from "../support/answers.js"
import { decoded, errorOf } from "../support/http.js"
import { usePreparationWorld } from "../support/preparationWorld.js"
import { waitFor } from "../support/wait.js"
import { makeJpeg, makeVideo } from "../unit/media/fixtures.js"

/**
 * Preparation after a post changes: a retried post gets a fresh attempt at a rendition
 * that failed, a draft that is scheduled has its files prepared at once, and new settings
 * that change what the network takes have the post's files checked again before saving.
 */

const prep = usePreparationWorld("mediarequeue")
const { upload: uploadAnswer, newWorkspace, testChannel, renditionsOf, rootOf } = prep

const Uploaded = answerOf("media", "upload")

/** The Media item of an upload that is taken. */
const upload = async (apiKey: string, file: string, name: string) => decoded(await uploadAnswer(apiKey, file, name), Uploaded)

describe("preparation starts again when a post changes", () => {
  it("a retried post whose rendition failed gets a fresh attempt and goes out", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Lost then found")
    const source = await makeJpeg(prep.scratch.file("back.jpg"), 300, 200)
    const photo = await upload(w.apiKey, source, "back.jpg")
    const stored = path.join(prep.dataDir, "media", `${w.workspaceId}/${photo.id}.jpg`)
    await rm(stored)
    const posted = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "photo back", image: [{ id: photo.id, path: photo.path }] }] }]
    })
    expect(posted.status, posted.text).toBe(200)
    const group = created(posted).group
    const rootNow = async () => rootOf(await w.api.get(`/public/v1/posts/${group}`))
    const failed = await waitFor(
      "failed",
      async () => {
        const r = await rootNow()
        return r.state === "error" || r.state === "published" ? r : undefined
      },
      45_000
    )
    expect(failed.state).toBe("error")
    expect(await renditionsOf(photo.id)).toEqual([expect.objectContaining({ status: "failed" })])
    // the file is back in storage; the retry prepares it again rather than failing at once
    await copyFile(source, stored)
    const retried = await w.api.post(`/public/v1/posts/${group}/retry`)
    expect(retried.status, retried.text).toBe(200)
    const done = await waitFor(
      "published",
      async () => {
        const r = await rootNow()
        return r.state === "published" || r.state === "error" ? r : undefined
      },
      45_000
    )
    expect(done.state, JSON.stringify(done.error)).toBe("published")
    expect(await renditionsOf(photo.id)).toEqual([expect.objectContaining({ status: "ready" })])
  }, 120_000)

  it("an edit that queues a failed post again gets a fresh attempt at its rendition", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Edited")
    const source = await makeJpeg(prep.scratch.file("edited.jpg"), 300, 200)
    const photo = await upload(w.apiKey, source, "edited.jpg")
    const stored = path.join(prep.dataDir, "media", `${w.workspaceId}/${photo.id}.jpg`)
    await rm(stored)
    const body = (content: string, group?: string) => ({
      type: "now",
      ...(group === undefined ? {} : { groupId: group }),
      posts: [{ integration: { id: channelId }, value: [{ content, image: [{ id: photo.id, path: photo.path }] }] }]
    })
    const posted = await w.api.post("/public/v1/posts", body("first try"))
    expect(posted.status, posted.text).toBe(200)
    const group = created(posted).group
    const rootNow = async () => rootOf(await w.api.get(`/public/v1/posts/${group}`))
    const settled = () =>
      waitFor(
        "settled",
        async () => {
          const r = await rootNow()
          return r.state === "error" || r.state === "published" ? r : undefined
        },
        45_000
      )
    expect((await settled()).state).toBe("error")
    await copyFile(source, stored)
    const edited = await w.api.post("/public/v1/posts", body("second try", group))
    expect(edited.status, edited.text).toBe(200)
    const done = await settled()
    expect(done.state, JSON.stringify(done.error)).toBe("published")
  }, 120_000)

  it("a draft that is scheduled has its files prepared at once, not when it falls due", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Scheduled later")
    const photo = await upload(w.apiKey, await makeJpeg(prep.scratch.file("later.jpg"), 640, 480, 6), "later.jpg")
    const posted = await w.api.post("/public/v1/posts", {
      type: "draft",
      date: new Date(Date.now() + 24 * 3_600_000).toISOString(),
      posts: [
        {
          integration: { id: channelId },
          value: [{ content: "tomorrow", image: [{ id: photo.id, path: photo.path }] }],
          settings: { media_rules: "mastodon" }
        }
      ]
    })
    expect(posted.status, posted.text).toBe(200)
    expect(await renditionsOf(photo.id)).toEqual([])
    const scheduled = await w.api.put(`/public/v1/posts/${created(posted).group}/status`, { status: "schedule" })
    expect(scheduled.status, scheduled.text).toBe(200)
    const ready = await waitFor(
      "rendition ready",
      async () => {
        const rows = await renditionsOf(photo.id)
        return rows.length === 1 && rows[0]!.status === "ready" ? rows : undefined
      },
      30_000
    )
    expect(ready).toHaveLength(1)
    const root = rootOf(await w.api.get(`/public/v1/posts/${created(posted).group}`))
    expect(root.state).toBe("queued")
  }, 60_000)

  it("settings that change the network's media rules are checked before saving: the rule's 400, nothing saved", async () => {
    const w = await newWorkspace()
    const { channelId } = await testChannel(w.workspaceId, "Rehearsal")
    const video = await upload(w.apiKey, await makeVideo(prep.scratch.file("brief.mp4"), { width: 320, height: 240, seconds: 1 }), "brief.mp4")
    const posted = await w.api.post("/public/v1/posts", {
      type: "draft",
      posts: [{ integration: { id: channelId }, value: [{ content: "a short clip", image: [{ id: video.id, path: video.path }] }] }]
    })
    expect(posted.status, posted.text).toBe(200)
    const group = created(posted).group
    const res = await w.api.put(`/public/v1/posts/${group}/settings`, { settings: { media_rules: "instagram" } })
    expect(res.status, res.text).toBe(400)
    expect(errorOf(res).error).toBe("Please fix these before saving.")
    expect(errorOf(res).errors).toEqual([
      expect.objectContaining({ message: "Rehearsal: brief.mp4 is 0:01 long; Instagram takes at least 0:03. Use a longer video." })
    ])
    const root = rootOf(await w.api.get(`/public/v1/posts/${group}`))
    expect(root.settings["media_rules"]).toBeUndefined()
    // rules the files meet are saved as before
    const ok = await w.api.put(`/public/v1/posts/${group}/settings`, { settings: { media_rules: "mastodon" } })
    expect(ok.status, ok.text).toBe(200)
  }, 60_000)
})
