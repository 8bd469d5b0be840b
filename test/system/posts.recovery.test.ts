import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, decoded, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { answerOf, created, present, wholePost } from "../support/answers.js"

/**
 * Recovery (spec: Posts → retry and release-id; Transitions): error and unconfirmed
 * channels queued again by POST /posts/{id}/retry (an unconfirmed one searches first and
 * is linked instead of sent when the post is live), failed follow-ups retried alone, and
 * PUT /posts/{id}/release-id marking a channel live. Everything runs in-process against
 * the test network, whose `outcome` setting makes each outcome happen.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("recovery")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], { PUBLISH_TIMEOUT_MS: "1000" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const newWorkspace = async () => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Rehearsal", customerId: null, postingTimes: [] })
  const api = client(sys.url, apiKey)
  const post = async (value: ReadonlyArray<Record<string, unknown>>, settings: Record<string, unknown>) => {
    const res = await api.post("/public/v1/posts", { type: "now", posts: [{ integration: { id: channelId }, value, settings }] })
    expect(res.status, res.text).toBe(200)
    return created(res)
  }
  const root = async (group: string) => present(wholePost(await api.get(`/public/v1/posts/${group}`)).channels[0], "the first channel")
  const settle = (group: string, states: ReadonlyArray<string>) =>
    waitFor(
      `root in ${states.join("/")}`,
      async () => {
        const c = await root(group)
        return states.includes(c.root.state) ? c : undefined
      },
      20_000
    )
  return { api, channelId, workspaceId, post, root, settle }
}

const copiesOf = (content: string) =>
  withDb(
    world,
    async (c) => (await c.query<{ n: number }>("SELECT count(*)::int AS n FROM test_network_posts WHERE content = $1", [content])).rows[0]!.n
  )

const activityOf = async (api: ReturnType<typeof client>, group: string) =>
  wholePost(await api.get(`/public/v1/posts/${group}`)).activity.map((a) => a.action)

describe("POST /posts/{id}/retry", () => {
  it("a refused post, fixed and retried, goes out once; activity `retried`", async () => {
    const w = await newWorkspace()
    const created = await w.post([{ content: "refused first" }], { outcome: "reject" })
    await w.settle(created.group, ["error"])
    expect((await w.api.put(`/public/v1/posts/${created.postId}/settings`, { settings: { outcome: "accept" } })).status).toBe(200)
    const res = await w.api.post(`/public/v1/posts/${created.postId}/retry`)
    expect(res.status, res.text).toBe(200)
    expect(wholePost(res).channels[0]?.root.state).toMatch(/queued|publishing|published/)
    const after = await w.settle(created.group, ["published"])
    expect(after.root.error).toBeNull()
    expect(await copiesOf("refused first")).toBe(1)
    expect(await activityOf(w.api, created.group)).toContain("retried")
  })

  it("an unconfirmed post that is live after all is linked, not sent again", async () => {
    const w = await newWorkspace()
    const created = await w.post([{ content: "timed out" }], { outcome: "timeout" })
    const unconfirmed = await w.settle(created.group, ["unconfirmed"])
    // the network had taken it after all (it shows up later)
    await withDb(world, (c) =>
      c.query("INSERT INTO test_network_posts (id, channel_id, item_id, content) VALUES (gen_random_uuid(), $1, $2, $3)", [
        w.channelId,
        unconfirmed.root.id,
        "timed out"
      ])
    )
    expect((await w.api.post(`/public/v1/posts/${created.group}/retry`)).status).toBe(200)
    const after = await w.settle(created.group, ["published"])
    expect(after.root.releaseId).toEqual(expect.any(String))
    expect(await copiesOf("timed out")).toBe(1)
  })

  it("an unconfirmed post the network does not have is sent again on retry (the caller asked)", async () => {
    const w = await newWorkspace()
    const created = await w.post([{ content: "not there" }], { outcome: "timeout" })
    await w.settle(created.group, ["unconfirmed"])
    const attemptsBefore = (await w.root(created.group)).root.attempts
    expect((await w.api.post(`/public/v1/posts/${created.postId}/retry`)).status).toBe(200)
    await waitFor("a second attempt", async () => ((await w.root(created.group)).root.attempts > attemptsBefore ? true : undefined), 20_000)
    const after = await w.settle(created.group, ["unconfirmed"])
    expect(after.root.attempts).toBe(attemptsBefore + 1)
  })

  it("a post with nothing to retry is answered unchanged, without a `retried` entry", async () => {
    const w = await newWorkspace()
    const created = await w.post([{ content: "fine" }], {})
    await w.settle(created.group, ["published"])
    const res = await w.api.post(`/public/v1/posts/${created.group}/retry`)
    expect(res.status).toBe(200)
    expect(wholePost(res).channels[0]?.root.state).toBe("published")
    expect(await activityOf(w.api, created.group)).not.toContain("retried")
    expect(await copiesOf("fine")).toBe(1)
  })

  it("a failed follow-up of a live post is retried alone", async () => {
    const w = await newWorkspace()
    const created = await w.post([{ content: "root ok" }, { content: "reply refused", delay: 0 }], {})
    await w.settle(created.group, ["published"])
    await waitFor("the reply published", async () => ((await w.root(created.group)).thread[0]?.state === "published" ? true : undefined), 20_000)
    // make the follow-up a failed one, as a refusal would have
    await withDb(world, (c) =>
      c.query(
        `UPDATE post_items SET status = 'error', error = '{"message":"refused","fix":"retry"}', release_id = NULL WHERE post_id = $1 AND position = 1`,
        [created.postId]
      )
    )
    await withDb(world, (c) => c.query("DELETE FROM test_network_posts WHERE content = 'reply refused'"))
    expect((await w.api.post(`/public/v1/posts/${created.postId}/retry`)).status).toBe(200)
    await waitFor(
      "the reply published again",
      async () => ((await w.root(created.group)).thread[0]?.state === "published" ? true : undefined),
      20_000
    )
    expect(await copiesOf("root ok")).toBe(1)
    expect(await copiesOf("reply refused")).toBe(1)
  })

  it("404 for an unknown post, 400 for an invalid id", async () => {
    const w = await newWorkspace()
    expect((await w.api.post(`/public/v1/posts/${crypto.randomUUID()}/retry`)).status).toBe(404)
    expect((await w.api.post("/public/v1/posts/nope/retry")).status).toBe(400)
  })
})

describe("PUT /posts/{id}/release-id", () => {
  it("marks a failed channel live: release on the post, activity `linked live post`, post.published once", async () => {
    const w = await newWorkspace()
    const created = await w.post([{ content: "posted by hand" }], { outcome: "reject" })
    await w.settle(created.group, ["error"])
    const res = await w.api.put(`/public/v1/posts/${created.postId}/release-id`, {
      releaseId: "live-123",
      releaseUrl: "https://network.example/p/live-123"
    })
    expect(res.status, res.text).toBe(200)
    expect(wholePost(res).status).toBe("published")
    expect(wholePost(res).channels[0]?.root).toMatchObject({
      state: "published",
      releaseId: "live-123",
      releaseUrl: "https://network.example/p/live-123",
      error: null
    })
    expect(await activityOf(w.api, created.group)).toContain("linked live post")
    const rows = decoded(
      await w.api.get(`/public/v1/posts?startDate=${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}`),
      answerOf("posts", "listPosts")
    ).posts
    expect(rows.find((r) => r.id === created.postId)).toMatchObject({ releaseId: "live-123", releaseURL: "https://network.example/p/live-123" })
    // linking again replaces the id without a second post.published
    await w.api.put(`/public/v1/posts/${created.postId}/release-id`, { releaseId: "live-456" })
    const events = await withDb(world, async (c) =>
      (await c.query("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'post.published'", [w.workspaceId])).rows.map((r) => r.data)
    )
    expect(events).toEqual([
      expect.objectContaining({
        postId: created.postId,
        releaseId: "live-123",
        releaseUrl: "https://network.example/p/live-123",
        content: "posted by hand"
      })
    ])
    expect((await w.root(created.group)).root.releaseId).toBe("live-456")
  })

  it.each([
    [{}, 400],
    [{ releaseId: "" }, 400],
    [{ releaseId: "   " }, 400],
    [{ releaseId: 5 }, 400]
  ])("%j → %i with the spec's error body", async (body, status) => {
    const w = await newWorkspace()
    const created = await w.post([{ content: `bad link ${Math.random()}` }], { outcome: "reject" })
    const res = await w.api.put(`/public/v1/posts/${created.postId}/release-id`, body)
    expect(res.status).toBe(status)
    expect(errorOf(res).error).toEqual(errorOf(res).msg)
  })

  it("invalid JSON is 400 `The request body is not valid JSON.`; an unknown post 404", async () => {
    const w = await newWorkspace()
    const res = await w.api.request("PUT", `/public/v1/posts/${crypto.randomUUID()}/release-id`, "{nope")
    expect(res.status).toBe(400)
    expect(errorOf(res).error).toBe("The request body is not valid JSON.")
    expect((await w.api.put(`/public/v1/posts/${crypto.randomUUID()}/release-id`, { releaseId: "x" })).status).toBe(404)
  })
})
