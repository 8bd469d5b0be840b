import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RepeatsRepo } from "../../services/posts/repeatsRepo.js"
import { createMissingRepeats } from "../../services/scheduler/dueItems.js"
import { client, decoded } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { answerOf, created, present, wholePost } from "../support/answers.js"

/**
 * Repeat posting (spec: `inter` / `repeatDays`): after an occurrence publishes, the next
 * one is created for the same channels N days later, exactly once, whoever records the
 * outcome and however often (the unique repeat_of of migration 0007).
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("repeats")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)
const DAY = 86_400_000

const occurrencesAfter = (groupId: string) =>
  q<{ id: string; publishAt: Date }>(`SELECT id, publish_at AS "publishAt" FROM post_groups WHERE repeat_of = $1`, [groupId])
const publishedEverywhere = (api: ReturnType<typeof client>, group: string) =>
  waitFor(
    `post ${group} not published`,
    async () => {
      const post = wholePost(await api.get(`/public/v1/posts/${group}`))
      return post.status === "published" ? post : undefined
    },
    20_000
  )

/** The scheduler's sweep for repeats that went live without a next occurrence, run now. */
const sweep = () => sys.runtime.runPromise(Effect.provide(createMissingRepeats(), RepeatsRepo.Live))

/** A repeating post the network refused, then linked live by hand: the publisher made no next occurrence. */
const linkedByHand = async (repeat: { readonly inter?: number; readonly repeatDays?: number }) => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const channelId = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Linked", customerId: null, postingTimes: [] })).channelId
  const api = client(sys.url, apiKey)
  const res = await api.post("/public/v1/posts", {
    type: "now",
    ...repeat,
    posts: [{ integration: { id: channelId }, value: [{ content: "linked repeat" }], settings: { outcome: "reject" } }]
  })
  const { group, postId } = created(res)
  await waitFor("not failed", async () => (wholePost(await api.get(`/public/v1/posts/${group}`)).status === "error" ? true : undefined))
  expect(await occurrencesAfter(group)).toEqual([])
  expect((await api.put(`/public/v1/posts/${postId}/release-id`, { releaseId: `by-hand-${crypto.randomUUID()}` })).status).toBe(200)
  return { api, group: group as string, channelId }
}

describe("a repeating post", () => {
  it("publishes, and its next occurrence is scheduled N days later on the same channels, once; that one repeats in turn", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const a = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Weekly A", customerId: null, postingTimes: [] })).channelId
    const b = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Weekly B", customerId: null, postingTimes: [] })).channelId
    const api = client(sys.url, apiKey)
    const res = await api.post("/public/v1/posts", {
      type: "now",
      inter: 7,
      posts: [
        { integration: { id: a }, value: [{ content: "weekly tip" }, { content: "weekly tip, more", delay: 0 }] },
        { integration: { id: b }, value: [{ content: "weekly tip on B" }], settings: { outcome: "accept" } }
      ]
    })
    expect(res.status, res.text).toBe(200)
    const group: string = created(res).group
    const first = await publishedEverywhere(api, group)
    expect(first.repeatDays).toBe(7)

    const next = await waitFor("no next occurrence", async () => {
      const rows = await occurrencesAfter(group)
      return rows.length > 0 ? rows : undefined
    })
    expect(next).toHaveLength(1)
    expect(next[0]!.publishAt.getTime()).toBe(Date.parse(first.publishAt) + 7 * DAY)
    const occurrence = wholePost(await api.get(`/public/v1/posts/${next[0]!.id}`))
    expect(occurrence).toMatchObject({ status: "scheduled", repeatDays: 7, publishAt: new Date(Date.parse(first.publishAt) + 7 * DAY).toISOString() })
    expect(occurrence.channels.map((c) => c.channelId).sort()).toEqual([a, b].sort())
    const onA = present(
      occurrence.channels.find((c) => c.channelId === a),
      "channel A"
    )
    expect([onA.root, ...onA.thread].map((i) => [i.content, i.state])).toEqual([
      ["weekly tip", "queued"],
      ["weekly tip, more", "queued"]
    ])
    expect(occurrence.channels.find((c) => c.channelId === b)?.root).toMatchObject({
      content: "weekly tip on B",
      state: "queued",
      settings: expect.anything()
    })
    expect(occurrence.activity.map((x) => [x.actor, x.action])).toEqual([["System", "created"]])
    // the list shows it at its time, with its interval
    const rows = decoded(
      await api.get(
        `/public/v1/posts?startDate=${new Date(Date.now() + 6 * DAY).toISOString()}&endDate=${new Date(Date.now() + 8 * DAY).toISOString()}`
      ),
      answerOf("posts", "listPosts")
    ).posts
    expect(rows.map((r) => [r.group, r.status, r.intervalInDays])).toEqual([
      [next[0]!.id, "queued", 7],
      [next[0]!.id, "queued", 7]
    ])

    // the second channel's outcome, a redelivered job or a restarted publisher: still one
    const again = await sys.runtime.runPromise(
      Effect.provide(
        Effect.flatMap(RepeatsRepo, (s) => s.createNextOccurrence(group, new Date(Date.now() + 7 * DAY))),
        RepeatsRepo.Live
      )
    )
    expect(Option.isNone(again)).toBe(true)
    expect(await occurrencesAfter(group)).toHaveLength(1)

    // the occurrence falls due (its week has passed) and repeats in turn
    await q("UPDATE post_items SET due_at = now() WHERE post_id IN (SELECT id FROM posts WHERE group_id = $1) AND position = 0", [next[0]!.id])
    await publishedEverywhere(api, next[0]!.id)
    const third = await waitFor("no third occurrence", async () => {
      const r = await occurrencesAfter(next[0]!.id)
      return r.length > 0 ? r : undefined
    })
    expect(third).toHaveLength(1)
    expect(third[0]!.publishAt.getTime()).toBe(Date.parse(first.publishAt) + 14 * DAY)
    expect(await q("SELECT count(*)::int AS n FROM test_network_posts WHERE content = 'weekly tip'")).toEqual([{ n: 2 }])
  }, 60_000)

  it("an occurrence linked live by hand (PUT /posts/{id}/release-id) gets its next occurrence from the scheduler, once", async () => {
    const { api, group } = await linkedByHand({ repeatDays: 3 })
    await Promise.all([sweep(), sweep()])
    const next = await occurrencesAfter(group)
    expect(next).toHaveLength(1)
    const publishAt = Date.parse(wholePost(await api.get(`/public/v1/posts/${group}`)).publishAt)
    expect(next[0]!.publishAt.getTime()).toBe(publishAt + 3 * DAY)
    await sweep()
    expect(await occurrencesAfter(group)).toHaveLength(1)
  })

  it("a series whose channels were all removed ends: no next occurrence", async () => {
    const { api, group, channelId } = await linkedByHand({ inter: 1 })
    expect((await api.del(`/public/v1/integrations/${channelId}`)).status).toBe(200)
    await sweep()
    expect(await occurrencesAfter(group)).toEqual([])
  })

  it("a post without a repeat makes no next occurrence", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const c = (await sys.admin.createChannel({ workspaceId, network: "test", name: "Once", customerId: null, postingTimes: [] })).channelId
    const api = client(sys.url, apiKey)
    const res = await api.post("/public/v1/posts", { type: "now", posts: [{ integration: { id: c }, value: [{ content: "only once" }] }] })
    const group: string = created(res).group
    await publishedEverywhere(api, group)
    expect(await occurrencesAfter(group)).toEqual([])
  })
})
