import { readFileSync } from "node:fs"
import { connect } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decoded, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { answerOf, created, wholePost } from "../support/answers.js"

/**
 * Bodies and answers larger than a NATS message (1 MiB on a server with default settings):
 * the spec accepts JSON bodies up to 5 MB, and a whole post can be as large. Every command
 * of the workspace actors (protocol/actors.ts) must work for them, and every answer must
 * reach the client (none lost, none a 500). The servers these tests run on, and the NATS
 * servers deploy/ starts, keep NATS's default max_payload: nothing here depends on raising it.
 */

let world: TestWorld
let sys: RunningServices
let api: ReturnType<typeof client>
let channelId: string

beforeAll(async () => {
  world = await createWorld("largebodies")
  sys = await startServices(world, ["gateway", "actors"])
  const ws = await sys.admin.createWorkspace()
  api = client(sys.url, ws.apiKey)
  // Listmonk takes posts of up to 100,000,000 characters: a long newsletter
  channelId = (
    await sys.admin.createChannel({ workspaceId: ws.workspaceId, network: "listmonk", name: "Newsletter", customerId: null, postingTimes: [] })
  ).channelId
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

const MB = 1024 * 1024
const text = (bytes: number, seed: string) => `${seed} ${"newsletter paragraph. ".repeat(Math.ceil(bytes / 22))}`.slice(0, bytes)
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()

describe("a 4.9 MB body through every command, and answers over 1 MiB", () => {
  let group: string
  const content = text(4.9 * MB - 2000, "first")

  it("POST /posts: a 4.9 MB draft is saved whole and answered", async () => {
    const res = await api.post("/public/v1/posts", { type: "draft", date: inDays(3), content, channels: [channelId] })
    expect(res.status).toBe(200)
    group = created(res).group
    const stored = await withDb(
      world,
      async (c) => (await c.query("SELECT length(content) AS n FROM post_items WHERE post_id = $1", [created(res).postId])).rows[0]
    )
    expect(stored.n).toBe(content.length)
  })

  it("PUT /posts/{id}/date: the whole post, 4.9 MB, reaches the client", async () => {
    const date = inDays(4)
    const res = await api.put(`/public/v1/posts/${group}/date`, { date })
    expect(res.status).toBe(200)
    expect(wholePost(res).publishAt).toBe(date)
    expect(wholePost(res).channels[0]?.root.content).toBe(content)
  })

  it("PUT /posts/{id}/status and DELETE answer as well", async () => {
    const scheduled = await api.put(`/public/v1/posts/${group}/status`, { status: "schedule" })
    expect(scheduled.status).toBe(200)
    expect(wholePost(scheduled).channels[0]?.root.content.length).toBe(content.length)
    const drafted = await api.put(`/public/v1/posts/${group}/status`, { status: "draft" })
    expect(drafted.status).toBe(200)
  })

  it("PUT /posts/{id}/settings with a 4.9 MB body gets its answer (a refusal naming the problem, not a 500)", async () => {
    expect(group).toEqual(expect.any(String))
    const res = await api.put(`/public/v1/posts/${group}/settings`, { settings: { note: text(4.9 * MB - 1000, "setting") } })
    expect([200, 400]).toContain(res.status)
    expect(res.status === 200 ? wholePost(res).id : errorOf(res).error).toEqual(expect.any(String))
  })

  it("PUT /posts/{id}/date with a 4.9 MB date: the catalog's 400, not a 500", async () => {
    const res = await api.put(`/public/v1/posts/${group}/date`, { date: text(4.9 * MB - 1000, "2026") })
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toMatch(/^The date is not valid\. Use ISO 8601/)
  })

  it("an edit of the post with a new 4.9 MB text (POST /posts with groupId)", async () => {
    const next = text(4.9 * MB - 2000, "second")
    const res = await api.post("/public/v1/posts", { type: "draft", groupId: group, content: next, channels: [channelId] })
    expect(res.status).toBe(200)
    expect(wholePost(await api.get(`/public/v1/posts/${group}`)).channels[0]?.root.content).toBe(next)
  })

  it("POST /posts/{id}/retry: the 4.9 MB whole post of a failed channel, queued again", async () => {
    const error = JSON.stringify({ message: "The network refused it.", fix: "Retry." })
    await withDb(world, async (c) => {
      await c.query("UPDATE posts SET status = 'error', error = $2 WHERE group_id = $1", [group, error])
      await c.query("UPDATE post_items SET status = 'error', error = $2, due_at = NULL WHERE post_id IN (SELECT id FROM posts WHERE group_id = $1)", [
        group,
        error
      ])
    })
    const res = await api.post(`/public/v1/posts/${group}/retry`)
    expect(res.status).toBe(200)
    expect(wholePost(res).channels[0]?.root).toMatchObject({ state: "queued" })
    expect(wholePost(res).channels[0]?.root.content.length).toBeGreaterThan(4 * MB)
  })

  it("PUT /posts/{id}/release-id with a 4.9 MB body: linked, answered whole", async () => {
    const releaseUrl = `https://lists.example/${"a".repeat(4.9 * MB - 1000)}`
    const res = await api.put(`/public/v1/posts/${group}/release-id`, { releaseId: "issue-42", releaseUrl })
    expect(res.status).toBe(200)
    expect(wholePost(res).channels[0]?.root).toMatchObject({ state: "published", releaseId: "issue-42" })
    expect(wholePost(res).channels[0]?.root.releaseUrl).toBe(releaseUrl)
  })

  it("DELETE /posts/{id}", async () => {
    const res = await api.del(`/public/v1/posts/${group}`)
    expect(res).toMatchObject({ status: 200, json: { error: false, success: true } })
  })

  it("the client approves a 4.9 MB post in review on its share page (ReviewPost)", async () => {
    const res = await api.post("/public/v1/posts", { type: "review", date: inDays(2), content, channels: [channelId] })
    expect(res.status).toBe(200)
    const token = new URL(created(res).previewUrl).pathname.split("/").pop()
    const approved = await fetch(`${sys.url}/p/${token}/approve`, { method: "POST", redirect: "manual" })
    expect(approved.status).toBe(303)
    const post = wholePost(await api.get(`/public/v1/posts/${created(res).group}`))
    expect(post).toMatchObject({ status: "scheduled", approvalStatus: "approved" })
  })

  it("DELETE /integrations/{id} (DeleteChannel) removes the channel's large posts", async () => {
    const res = await api.del(`/public/v1/integrations/${channelId}`)
    expect(res).toMatchObject({ status: 200, json: { success: true } })
    expect(
      decoded(await api.get("/public/v1/posts?startDate=2020-01-01T00:00:00Z&endDate=2099-01-01T00:00:00Z"), answerOf("posts", "listPosts")).posts
    ).toEqual([])
  })

  it("the NATS server these ran on has the default 1 MiB max_payload, as deploy/ configures NATS", async () => {
    const nc = await connect({ servers: world.natsUrl.split(",") })
    try {
      expect(nc.info?.max_payload).toBe(MB)
    } finally {
      await nc.close()
    }
    // deploy/ starts nats-server without raising max_payload (compose and the local cluster script)
    for (const file of ["deploy/compose.yaml", "deploy/nats-cluster.sh", "deploy/local-servers.sh"]) {
      expect(readFileSync(file, "utf8")).not.toMatch(/max_payload|max-payload/)
    }
  })

  it("nothing large is left behind once answered", async () => {
    const left = await withDb(world, async (c) => (await c.query("SELECT count(*)::int AS n FROM actor_payloads")).rows[0].n)
    expect(left).toBe(0)
  })
})
