import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PublishMessages } from "../../domain/posts/messages.js"
import type { WholePost } from "../../protocol/http/postResources.js"
import { client, decoded } from "../support/http.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { answerOf, created, present, wholePost } from "../support/answers.js"

/**
 * Outcomes of publishing, once each (spec: Transitions; issue "Outcomes, once each"):
 * published → release on the item, activity, notification, one `post.published` per channel
 * and none for follow-ups; rejected → error {message, fix}, `post.failed`, a fail
 * notification, not retried on its own; no answer → unconfirmed with `post.unconfirmed` and
 * a notification; the whole post's status from its channels. Follow-ups behind an item that
 * did not go out end `error` saying why, and a retry of the post sends them; a follow-up the
 * network refuses does not fail its post and is retried alone.
 */

let sim: Simulator
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("puboutcomes")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], { ...simulatorEnv(sim), PUBLISH_TIMEOUT_MS: "1500" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

const newWorkspace = async (channels = 1) => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const ids: Array<string> = []
  for (let n = 0; n < channels; n++) {
    ids.push((await sys.admin.createChannel({ workspaceId, network: "test", name: `Outcomes ${n}`, customerId: null, postingTimes: [] })).channelId)
  }
  return { api: client(sys.url, apiKey), workspaceId, channelIds: ids }
}

type Api = ReturnType<typeof client>
const postOf = async (api: Api, group: string) => wholePost(await api.get(`/public/v1/posts/${group}`))
const settledStates = ["published", "error", "unconfirmed"]

/** Waits until every item of every channel has left queued/publishing. */
const settled = (api: Api, group: string) =>
  waitFor(
    `post ${group} did not settle`,
    async () => {
      const post = await postOf(api, group)
      const items = post.channels.flatMap((c) => [c.root, ...c.thread])
      return items.every((i) => settledStates.includes(i.state)) ? post : undefined
    },
    30_000
  )

const eventsOf = async (workspaceId: string) =>
  await q<{ event: string; data: unknown }>("SELECT event, data FROM outbox WHERE workspace_id = $1 ORDER BY created_at", [workspaceId])
const notificationsOf = async (api: Api) =>
  decoded(await api.get("/public/v1/notifications"), answerOf("networks", "listNotifications")).notifications
const actions = (post: WholePost) => post.activity.map((a) => a.action)
const copiesOf = async (content: string) =>
  (await q<{ n: number }>("SELECT count(*)::int AS n FROM test_network_posts WHERE content = $1", [content]))[0]!.n

describe("published", () => {
  it("the item carries its release, one activity entry, one notification, one post.published for the channel and none for its follow-ups", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: w.channelIds[0] },
          value: [{ content: "live root" }, { content: "live reply 1", delay: 0 }, { content: "live reply 2", delay: 0 }]
        }
      ]
    })
    expect(res.status, res.text).toBe(200)
    const post = await settled(w.api, created(res).group)
    const channel = present(post.channels[0], "the first channel")
    for (const item of [channel.root, ...channel.thread]) {
      expect(item).toMatchObject({
        state: "published",
        releaseId: expect.any(String),
        releaseUrl: expect.any(String),
        publishedAt: expect.any(String),
        error: null
      })
    }
    expect(post.status).toBe("published")
    expect(actions(post).filter((a) => a === "published")).toHaveLength(1)
    const events = await eventsOf(w.workspaceId)
    expect(events.map((e) => e.event)).toEqual(["post.published"])
    expect(events[0]!.data).toMatchObject({ releaseId: channel.root.releaseId, releaseUrl: channel.root.releaseUrl, publishedAt: expect.any(String) })
    expect((await notificationsOf(w.api)).map((n) => n.type)).toEqual(["success"])
    expect(await copiesOf("live reply 2")).toBe(1)
  })
})

describe("rejected", () => {
  it("the channel ends error {message, fix}, post.failed and a fail notification once, nothing sent again on its own", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: w.channelIds[0] }, value: [{ content: "refused root" }], settings: { outcome: "reject" } }]
    })
    const post = await settled(w.api, created(res).group)
    expect(post.status).toBe("error")
    expect(post.channels[0]?.root.error).toEqual({ message: expect.stringContaining("refused"), fix: expect.any(String) })
    expect(post.channels[0]?.root.attempts).toBe(1)
    expect(actions(post)).toEqual(["created", "failed"])
    expect((await eventsOf(w.workspaceId)).map((e) => e.event)).toEqual(["post.failed"])
    expect((await notificationsOf(w.api)).map((n) => n.type)).toEqual(["fail"])
    // not retried on its own: one attempt, and the item is not due again
    expect(
      await q("SELECT count(*)::int AS n FROM publish_attempts a JOIN post_items i ON i.id = a.item_id WHERE i.workspace_id = $1", [w.workspaceId])
    ).toEqual([{ n: 1 }])
    expect(await q("SELECT due_at FROM post_items WHERE workspace_id = $1 AND status = 'queued'", [w.workspaceId])).toEqual([])
  })

  it("one channel published and one refused: the whole post is partial", async () => {
    const w = await newWorkspace(2)
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        { integration: { id: w.channelIds[0] }, value: [{ content: "partial ok" }] },
        { integration: { id: w.channelIds[1] }, value: [{ content: "partial refused" }], settings: { outcome: "reject" } }
      ]
    })
    const post = await settled(w.api, created(res).group)
    expect(post.status).toBe("partial")
    expect((await eventsOf(w.workspaceId)).map((e) => e.event).sort()).toEqual(["post.failed", "post.published"])
  })
})

describe("follow-ups behind a first item that did not go out", () => {
  it("refused first item: its follow-ups end error saying why; a retry of the post sends all of them, in order, once", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        {
          integration: { id: w.channelIds[0] },
          value: [{ content: "r9 root" }, { content: "r9 reply 1", delay: 0 }, { content: "r9 reply 2", delay: 0 }],
          settings: { outcome: "reject" }
        }
      ]
    })
    const { group, postId } = created(res)
    const failed = await settled(w.api, group)
    expect(failed.channels[0]?.root.state).toBe("error")
    for (const reply of present(failed.channels[0], "the first channel").thread) {
      expect(reply).toMatchObject({ state: "error", error: PublishMessages.previousItemNotLive, attempts: 0 })
    }
    // the follow-ups caused no event of their own
    expect((await eventsOf(w.workspaceId)).map((e) => e.event)).toEqual(["post.failed"])

    expect((await w.api.put(`/public/v1/posts/${postId}/settings`, { settings: { outcome: "accept" } })).status).toBe(200)
    const retried = await w.api.post(`/public/v1/posts/${group}/retry`)
    expect(retried.status, retried.text).toBe(200)
    const post = await settled(w.api, group)
    const channel = present(post.channels[0], "the first channel")
    expect([channel.root, ...channel.thread].map((i) => i.state)).toEqual(["published", "published", "published"])
    expect(post.status).toBe("published")
    for (const content of ["r9 root", "r9 reply 1", "r9 reply 2"]) expect(await copiesOf(content)).toBe(1)
    const times = [channel.root, ...channel.thread].map((i) => Date.parse(i.publishedAt ?? ""))
    expect([...times].sort((a, b) => a - b)).toEqual(times)
  })

  it("unconfirmed first item: its follow-up ends error saying why, post.unconfirmed and its notification once", async () => {
    const w = await newWorkspace()
    const res = await w.api.post("/public/v1/posts", {
      type: "now",
      posts: [
        { integration: { id: w.channelIds[0] }, value: [{ content: "u9 root" }, { content: "u9 reply", delay: 0 }], settings: { outcome: "timeout" } }
      ]
    })
    const post = await settled(w.api, created(res).group)
    expect(post.channels[0]?.root.state).toBe("unconfirmed")
    expect(post.channels[0]?.thread[0]).toMatchObject({ state: "error", error: PublishMessages.previousItemNotLive })
    expect(post.status).toBe("error")
    expect((await eventsOf(w.workspaceId)).map((e) => e.event)).toEqual(["post.unconfirmed"])
    expect((await notificationsOf(w.api)).map((n) => n.type)).toEqual(["fail"])
    expect(await copiesOf("u9 root")).toBe(0)
  })
})

describe("a follow-up the network refuses", () => {
  it("does not fail its post (no post.failed, the channel stays published) and is retried alone", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace("Follow-ups", "ultimate")
    const api = client(sys.url, apiKey)
    const credentials = await seedAccount(sim, "mastodon")
    const { channelId } = await sys.admin.createChannel({
      workspaceId,
      network: "mastodon",
      name: "Replies",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const text = `fu root ${crypto.randomUUID().slice(0, 8)}`
    const reply = `fu reply ${crypto.randomUUID().slice(0, 8)}`
    // the reply waits a minute after the root; it is made due at once once the refusal is armed
    const res = await api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: text }, { content: reply, delay: 1 }] }]
    })
    expect(res.status, res.text).toBe(200)
    const { group, postId } = created(res)
    await waitFor("root published", async () => ((await postOf(api, group)).channels[0]?.root.state === "published" ? true : undefined), 30_000)
    sim.fail({ network: "mastodon", op: "publish", mode: "reject", times: 1 })
    await q("UPDATE post_items SET due_at = now() WHERE post_id = $1 AND position = 1", [postId])
    const failed = await settled(api, group)
    expect(failed.channels[0]?.thread[0]).toMatchObject({ state: "error", error: { message: expect.any(String), fix: expect.any(String) } })
    expect(failed.channels[0]?.root.state).toBe("published")
    expect(failed.status).toBe("published")
    expect((await eventsOf(workspaceId)).map((e) => e.event)).toEqual(["post.published"])

    expect((await api.post(`/public/v1/posts/${postId}/retry`)).status).toBe(200)
    const post = await settled(api, group)
    expect(post.channels[0]?.thread[0]?.state).toBe("published")
    expect(sim.postsOf("mastodon").filter((p) => p.text === text)).toHaveLength(1)
    const replies = sim.postsOf("mastodon").filter((p) => p.text === reply)
    expect(replies).toHaveLength(1)
    expect(replies[0]!.replyTo).toBe(post.channels[0]?.root.releaseId)
    expect(actions(post)).toContain("retried")
  }, 60_000)
})
