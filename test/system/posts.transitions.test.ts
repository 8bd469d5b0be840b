import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decoded, type Answer, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { sleep, waitFor } from "../support/wait.js"
import type { WholePost } from "../../protocol/http/postResources.js"
import { answerOf, present, wholePost } from "../support/answers.js"

const rowsOf = (answer: Answer) => decoded(answer, answerOf("posts", "listPosts")).posts

/**
 * The rows of the spec's "Transitions" table that the API and the worker trigger:
 * PUT date, PUT status, PUT settings, DELETE (both paths), the worker publishing a
 * queued post, and DELETE /integrations/{id}. Every service runs in-process, so queued
 * posts really go out to the test network (table test_network_posts).
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("poststrans")
  sys = await startServices(world)
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const DAY = 86_400_000
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString()

const newWorkspace = async () => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const api = client(sys.url, apiKey)
  const channel = async (name: string) =>
    (await sys.admin.createChannel({ workspaceId, network: "test", name, customerId: null, postingTimes: [] })).channelId
  const create = async (body: Record<string, unknown>) => {
    const res = await api.post("/public/v1/posts", body)
    expect(res.status).toBe(200)
    return decoded(res, answerOf("posts", "createPosts"))
  }
  const post = (type: string, date: string | undefined, channels: ReadonlyArray<string>, content = "Hello", settings: Record<string, unknown> = {}) =>
    create({ type, ...(date !== undefined ? { date } : {}), posts: channels.map((id) => ({ integration: { id }, value: [{ content }], settings })) })
  const whole = async (id: string) => {
    const res = await api.get(`/public/v1/posts/${id}`)
    expect(res.status).toBe(200)
    return wholePost(res)
  }
  const channelOf = async (group: string, channelId: string) => (await whole(group)).channels.find((c) => c.channelId === channelId)
  return { workspaceId, api, channel, create, post, whole, channelOf }
}

/** Marks a channel's post failed, as the worker would after a network refusal. */
const forceError = (postId: string) =>
  withDb(world, async (c) => {
    const error = JSON.stringify({ message: "The network refused it.", fix: "Change it and retry." })
    await c.query("UPDATE posts SET status = 'error', error = $2 WHERE id = $1", [postId, error])
    await c.query("UPDATE post_items SET status = 'error', error = $2, due_at = NULL WHERE post_id = $1", [postId, error])
  })

const sentTo = (channelId: string) =>
  withDb(world, async (c) => (await c.query("SELECT id, item_id, content FROM test_network_posts WHERE channel_id = $1", [channelId])).rows)

const waitPublished = (w: Awaited<ReturnType<typeof newWorkspace>>, group: string, channelId: string) =>
  waitFor(`channel ${channelId} of ${group} was not published`, async () => {
    const c = await w.channelOf(group, channelId)
    return c?.root.state === "published" ? c.root : undefined
  })

describe("PUT /posts/{id}/date", () => {
  it("draft → queued at the new time", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(DAY), [a])
    const date = at(2 * DAY)
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/date`, { date })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ id: p!.group, status: "scheduled", publishAt: date })
    expect(wholePost(res).channels[0]?.root.state).toBe("queued")
    const row = rowsOf(await w.api.get(`/public/v1/posts?endDate=${encodeURIComponent(at(3 * DAY))}`))[0]
    expect(row).toMatchObject({ id: p!.postId, status: "queued", publishDate: date })
  })

  it("queued → queued at the new time (by group id)", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("schedule", at(DAY), [a])
    const date = at(DAY + 3600_000)
    const res = await w.api.put(`/public/v1/posts/${p!.group}/date`, { date })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: "scheduled", publishAt: date })
    expect(wholePost(res).channels[0]?.root.state).toBe("queued")
    const activity = wholePost(res).activity.map((x) => x.action)
    expect(activity.length).toBeGreaterThan(1)
  })

  it("error → queued at the new time (failed channels are queued again), error cleared", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("schedule", at(DAY), [a])
    await forceError(p!.postId)
    expect((await w.whole(p!.group)).channels[0]?.root.state).toBe("error")
    const date = at(2 * DAY)
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/date`, { date })
    expect(res.status).toBe(200)
    expect(wholePost(res).channels[0]?.root).toMatchObject({ state: "queued", error: null })
    const row = rowsOf(await w.api.get(`/public/v1/posts?endDate=${encodeURIComponent(at(3 * DAY))}`))[0]
    expect(row).toMatchObject({ status: "queued", state: "QUEUE", error: null, publishDate: date })
  })

  it("published channels stay unchanged; the other channels move", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const created = await w.post("now", undefined, [a, b], "Both now")
    const group = created[0]!.group
    const liveA = await waitPublished(w, group, a)
    await waitPublished(w, group, b)
    // B failed instead (as if the network had refused it)
    await forceError(created.find((c) => c.integration === b)!.postId)
    const date = at(DAY)
    const res = await w.api.put(`/public/v1/posts/${group}/date`, { date })
    expect(res.status).toBe(200)
    const ca = wholePost(res).channels.find((c) => c.channelId === a)
    const cb = wholePost(res).channels.find((c) => c.channelId === b)
    expect(ca?.root).toMatchObject({ state: "published", releaseId: liveA.releaseId, publishedAt: liveA.publishedAt })
    expect(cb?.root.state).toBe("queued")
    const rows = rowsOf(await w.api.get(`/public/v1/posts?startDate=${encodeURIComponent(at(-3600_000))}&endDate=${encodeURIComponent(at(2 * DAY))}`))
    expect(rows.find((r) => r.integration.id === b)).toMatchObject({ status: "queued", publishDate: date })
    const rowA = rows.find((r) => r.integration.id === a)
    expect(rowA).toMatchObject({ status: "published", releaseId: liveA.releaseId })
    expect(Date.parse(rowA?.publishDate ?? "")).toBeLessThan(Date.now())
    expect(await sentTo(a)).toHaveLength(1)
  })

  it("a date more than 1 minute in the past gives 400 and changes nothing", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const date = at(DAY)
    const [p] = await w.post("schedule", date, [a])
    const before = await w.whole(p!.group)
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/date`, { date: at(-120_000) })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect(await w.whole(p!.group)).toEqual(before)
  })

  it("a date that cannot be parsed gives 400 with the ISO 8601 message", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(DAY), [a])
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/date`, { date: "2031-01-01T10:00:00" })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/^The date is not valid\. Use ISO 8601, for example \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\.$/)
  })
})

describe("PUT /posts/{id}/status", () => {
  it("draft: a queued post becomes a draft and does not go out at its time", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const control = await w.channel("Control")
    const due = at(2500)
    const [p] = await w.post("schedule", due, [a], "Stopped")
    const [c] = await w.post("schedule", due, [control], "Control")
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/status`, { status: "draft" })
    expect(res.status).toBe(200)
    expect(wholePost(res).status).toBe("draft")
    expect(wholePost(res).channels[0]?.root.state).toBe("draft")
    // the control post of the same time goes out; the drafted one does not
    await waitPublished(w, c!.group, control)
    await sleep(700)
    expect(await sentTo(a)).toEqual([])
    expect((await w.whole(p!.group)).channels[0]?.root.state).toBe("draft")
  })

  it("draft: a failed post becomes a draft, kept with its content", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("schedule", at(DAY), [a], "Was failing")
    await forceError(p!.postId)
    const res = await w.api.put(`/public/v1/posts/${p!.group}/status`, { status: "draft" })
    expect(res.status).toBe(200)
    expect(wholePost(res).status).toBe("draft")
    expect(wholePost(res).channels[0]?.root).toMatchObject({ state: "draft", content: "Was failing" })
    const row = rowsOf(await w.api.get("/public/v1/posts"))[0]
    expect(row).toMatchObject({ status: "draft", state: "DRAFT", error: null })
  })

  it("schedule: a draft is queued for the post time", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const date = at(DAY)
    const [p] = await w.post("draft", date, [a])
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/status`, { status: "schedule" })
    expect(res.status).toBe(200)
    expect(res.json).toMatchObject({ status: "scheduled", publishAt: date })
    expect(wholePost(res).channels[0]?.root.state).toBe("queued")
  })

  it("schedule: a draft whose time has passed is queued now and published", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(-2 * DAY), [a], "Old draft")
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/status`, { status: "schedule" })
    expect(res.status).toBe(200)
    expect(["queued", "publishing", "published"]).toContain(wholePost(res).channels[0]?.root.state)
    await waitPublished(w, p!.group, a)
    expect((await sentTo(a)).map((r) => r.content)).toEqual(["Old draft"])
  })

  it("schedule: a draft that breaks a network rule gives 400 with errors and nothing changes", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(DAY), [a], "fine for now")
    // the network's rules are stricter than when the draft was saved (here: the text grew)
    await withDb(world, (c) => c.query("UPDATE post_items SET content = repeat('x', 501) WHERE post_id = $1", [p!.postId]))
    const before = await w.whole(p!.group)
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/status`, { status: "schedule" })
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      error: "Please fix these before saving.",
      msg: "Please fix these before saving.",
      errors: [{ channelId: a, channelName: "Alpha", message: "Alpha: the post is too long, 501 of 500 characters." }]
    })
    expect(await w.whole(p!.group)).toEqual(before)
    expect(before.channels[0]?.root.state).toBe("draft")
  })

  it("a status other than draft or schedule gives 400", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(DAY), [a])
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/status`, { status: "published" })
    expect(res.status).toBe(400)
  })
})

describe("PUT /posts/{id}/settings", () => {
  it("merges: keys left out keep their value", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("schedule", at(DAY), [a], "Settings", { audience: "everyone", note: "kept" })
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/settings`, { settings: { audience: "followers" } })
    expect(res.status).toBe(200)
    expect(wholePost(res).channels[0]?.root.settings).toEqual({ __type: "test", audience: "followers", note: "kept" })
    const row = rowsOf(await w.api.get("/public/v1/posts"))[0]
    expect(row?.settings).toEqual({ __type: "test", audience: "followers", note: "kept" })
  })

  it("with a group id only the first channel changes; a per-channel id changes that channel", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const created = await w.post("draft", at(DAY), [a, b], "Two", { audience: "everyone" })
    const group = created[0]!.group
    const viaGroup = await w.api.put(`/public/v1/posts/${group}/settings`, { settings: { audience: "followers" } })
    expect(viaGroup.status).toBe(200)
    const settingsOf = (post: WholePost, channelId: string) => post.channels.find((c) => c.channelId === channelId)?.root.settings["audience"]
    expect(settingsOf(wholePost(viaGroup), a)).toBe("followers")
    expect(settingsOf(wholePost(viaGroup), b)).toBe("everyone")
    const viaB = await w.api.put(`/public/v1/posts/${created[1]!.postId}/settings`, { settings: { audience: "followers" } })
    expect(settingsOf(wholePost(viaB), b)).toBe("followers")
    const viaA = await w.api.put(`/public/v1/posts/${created[0]!.postId}/settings`, { settings: { audience: "everyone" } })
    expect(settingsOf(wholePost(viaA), a)).toBe("everyone")
    expect(settingsOf(wholePost(viaA), b)).toBe("followers")
  })

  it("only before the post publishes: 400 after it is published, settings unchanged", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("now", undefined, [a], "Gone live", { audience: "everyone" })
    await waitPublished(w, p!.group, a)
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/settings`, { settings: { audience: "followers" } })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe(errorOf(res).msg)
    expect((await w.whole(p!.group)).channels[0]?.root.settings.audience).toBe("everyone")
  })

  it("a value that is not one of a select setting's options gives 400", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(DAY), [a], "Select", { audience: "everyone" })
    const res = await w.api.put(`/public/v1/posts/${p!.postId}/settings`, { settings: { audience: "nobody" } })
    expect(res.status).toBe(400)
    expect((await w.whole(p!.group)).channels[0]?.root.settings.audience).toBe("everyone")
  })
})

describe("DELETE /posts/{id} and DELETE /posts/group/{group}", () => {
  it("DELETE /posts/{id} with a per-channel id removes the post on every channel: {error: false, success: true}, 404 afterwards", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const created = await w.post("schedule", at(DAY), [a, b])
    const res = await w.api.del(`/public/v1/posts/${created[0]!.postId}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ error: false, success: true })
    for (const id of [created[0]!.postId, created[1]!.postId, created[0]!.group]) {
      expect((await w.api.get(`/public/v1/posts/${id}`)).status).toBe(404)
    }
    expect(rowsOf(await w.api.get("/public/v1/posts"))).toEqual([])
    const again = await w.api.del(`/public/v1/posts/${created[1]!.postId}`)
    expect(again.status).toBe(404)
    expect(errorOf(again).error).toBe("Post not found")
  })

  it("DELETE /posts/group/{group} removes the whole post; a per-channel id works there too", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("draft", at(DAY), [a])
    const res = await w.api.del(`/public/v1/posts/group/${p!.group}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ error: false, success: true })
    expect((await w.api.get(`/public/v1/posts/${p!.group}`)).status).toBe(404)
    expect((await w.api.del(`/public/v1/posts/group/${p!.group}`)).status).toBe(404)
    const [q] = await w.post("draft", at(DAY), [a])
    const byChannelId = await w.api.del(`/public/v1/posts/group/${q!.postId}`)
    expect(byChannelId.json).toEqual({ error: false, success: true })
    expect((await w.api.get(`/public/v1/posts/${q!.group}`)).status).toBe(404)
  })

  it("queued channels never publish after a delete (by id and by group)", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const control = await w.channel("Control")
    const due = at(2500)
    const [p] = await w.post("schedule", due, [a], "deleted by id")
    const [q] = await w.post("schedule", due, [b], "deleted by group")
    const [c] = await w.post("schedule", due, [control], "control")
    expect((await w.api.del(`/public/v1/posts/${p!.postId}`)).json).toEqual({ error: false, success: true })
    expect((await w.api.del(`/public/v1/posts/group/${q!.group}`)).json).toEqual({ error: false, success: true })
    await waitPublished(w, c!.group, control)
    await sleep(700)
    expect(await sentTo(a)).toEqual([])
    expect(await sentTo(b)).toEqual([])
  })

  it("deleting a published post keeps the live post on the network", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const [p] = await w.post("now", undefined, [a], "stays live")
    const live = await waitPublished(w, p!.group, a)
    expect((await w.api.del(`/public/v1/posts/${p!.group}`)).json).toEqual({ error: false, success: true })
    expect((await w.api.get(`/public/v1/posts/${p!.group}`)).status).toBe(404)
    expect((await sentTo(a)).map((r) => r.id)).toEqual([live.releaseId])
  })
})

describe("Worker: queued → published", () => {
  it("releaseId and releaseUrl set; post.published once per channel, not for follow-ups", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const created = await w.create({
      type: "schedule",
      date: at(1000),
      posts: [
        { integration: { id: a }, value: [{ content: "root A" }, { content: "reply A", delay: 0 }] },
        { integration: { id: b }, value: [{ content: "root B" }] }
      ]
    })
    const group = created[0]!.group
    const post = await waitFor(
      "the post and its follow-up were not all published",
      async () => {
        const p = await w.whole(group)
        const items = p.channels.flatMap((c) => [c.root, ...c.thread])
        return items.length === 3 && items.every((i) => i.state === "published") ? p : undefined
      },
      20_000
    )
    expect(post.status).toBe("published")
    for (const c of post.channels) {
      expect(c.root.releaseId).toEqual(expect.any(String))
      expect(c.root.releaseUrl).toEqual(expect.any(String))
    }
    const rows = rowsOf(await w.api.get(`/public/v1/posts?startDate=${encodeURIComponent(at(-3600_000))}`))
    for (const row of rows) {
      const c = post.channels.find((x) => x.channelId === row.integration.id)
      expect(row).toMatchObject({ status: "published", state: "PUBLISHED", releaseId: c?.root.releaseId, releaseURL: c?.root.releaseUrl })
    }
    // the follow-up went out once, as a reply
    expect((await sentTo(a)).map((r) => r.content).sort()).toEqual(["reply A", "root A"])
    expect((await sentTo(b)).map((r) => r.content)).toEqual(["root B"])
    // the events commit with the outcomes they describe: no wait is needed to read them
    const events = await withDb(world, async (c) =>
      (await c.query("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'post.published' ORDER BY created_at", [w.workspaceId])).rows.map(
        (r) => r.data
      )
    )
    expect(events).toHaveLength(2)
    for (const created1 of created) {
      const c = present(
        post.channels.find((x) => x.channelId === created1.integration),
        "the channel"
      )
      const e = events.find((x) => x.channelId === created1.integration)
      expect(e).toEqual({
        postId: created1.postId,
        groupId: group,
        provider: "test",
        channelId: created1.integration,
        content: c.root.content,
        releaseId: c.root.releaseId,
        releaseUrl: c.root.releaseUrl,
        publishedAt: expect.stringMatching(/Z$/)
      })
    }
  }, 30_000)
})

describe("DELETE /integrations/{id}", () => {
  it("deletes the channel's drafts, queued, failed and unconfirmed posts; published posts stay; other channels of a post stay", async () => {
    const w = await newWorkspace()
    const a = await w.channel("Alpha")
    const b = await w.channel("Beta")
    const [draft] = await w.post("draft", at(DAY), [a], "draft")
    const [queued] = await w.post("schedule", at(DAY), [a], "queued")
    const [failed] = await w.post("schedule", at(DAY), [a], "failed")
    await forceError(failed!.postId)
    const [unconfirmed] = await w.post("schedule", at(DAY), [a], "unconfirmed")
    await withDb(world, (c) => c.query("UPDATE posts SET status = 'unconfirmed' WHERE id = $1", [unconfirmed!.postId]))
    const [live] = await w.post("now", undefined, [a], "live")
    await waitPublished(w, live!.group, a)
    const shared = await w.post("schedule", at(DAY), [a, b], "shared")

    const res = await w.api.del(`/public/v1/integrations/${a}`)
    expect(res.status).toBe(200)
    expect(res.json).toEqual({ success: true })

    for (const p of [draft, queued, failed, unconfirmed]) {
      expect({ content: p!.postId, status: (await w.api.get(`/public/v1/posts/${p!.postId}`)).status }).toEqual({ content: p!.postId, status: 404 })
    }
    expect((await w.api.get(`/public/v1/posts/${live!.group}`)).status).toBe(200)
    const sharedPost = await w.whole(shared[0]!.group)
    expect(sharedPost.channels.map((c) => c.channelId)).toEqual([b])
    expect(sharedPost.channels[0]?.root.state).toBe("queued")
    const remaining = await withDb(world, async (c) =>
      (await c.query("SELECT status FROM posts WHERE channel_id = $1 AND deleted_at IS NULL", [a])).rows.map((r) => r.status)
    )
    expect(remaining).toEqual(["published"])
  }, 30_000)
})
