import { connect, headers as natsHeaders, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { names } from "../../protocol/names.js"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created } from "../support/answers.js"

/**
 * Never publish twice, and never call a live post `unconfirmed` (spec: "Publishing never
 * sends one post twice"; docs/architecture.md, "Publisher"). The test network is told how to answer by
 * the post's settings (`outcome`: slow, lose-answer, timeout, reject) and the publisher
 * runs with an ack wait far shorter than the slow answer, so JetStream would redeliver a
 * job that is still running if the consumer did not keep it alive.
 */

const ACK_WAIT_MS = 1000
const SLOW_MS = 4000
const PUBLISH_TIMEOUT_MS = 6000

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection

beforeAll(async () => {
  world = await createWorld("pubslow")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], {
    PUBLISHER_ACK_WAIT_MS: String(ACK_WAIT_MS),
    PUBLISH_TIMEOUT_MS: String(PUBLISH_TIMEOUT_MS)
  })
  nc = await connect({ servers: world.natsUrl })
})
afterAll(async () => {
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

const postNow = async (settings: Record<string, unknown>) => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Slow", customerId: null, postingTimes: [] })
  const res = await client(sys.url, apiKey).post("/public/v1/posts", {
    type: "now",
    posts: [{ integration: { id: channelId }, value: [{ content: `Hello ${crypto.randomUUID()}` }], settings }]
  })
  expect(res.status).toBe(200)
  const postId = created(res).postId
  const [item] = await q<{ id: string }>("SELECT id FROM post_items WHERE post_id = $1 AND position = 0", [postId])
  return { workspaceId, channelId, postId, itemId: item!.id }
}

const itemOf = async (itemId: string) =>
  (await q<{ status: string; releaseId: string | null }>(`SELECT status, release_id AS "releaseId" FROM post_items WHERE id = $1`, [itemId]))[0]!
const postStatus = async (postId: string) => (await q<{ status: string }>("SELECT status FROM posts WHERE id = $1", [postId]))[0]!.status
const copiesOn = async (itemId: string) => q<{ id: string }>("SELECT id FROM test_network_posts WHERE item_id = $1", [itemId])
const eventsOf = async (postId: string) =>
  (await q<{ event: string }>("SELECT event FROM outbox WHERE data->>'postId' = $1 ORDER BY created_at", [postId])).map((r) => r.event)
const activityOf = async (postId: string) =>
  (await q<{ action: string }>("SELECT a.action FROM post_activity a JOIN posts p ON p.group_id = a.group_id WHERE p.id = $1", [postId])).map(
    (r) => r.action
  )
const attemptsOf = async (itemId: string) =>
  q<{ outcome: string | null }>("SELECT outcome FROM publish_attempts WHERE item_id = $1 ORDER BY attempt", [itemId])

const settled = (itemId: string, timeoutMs = 30_000) =>
  waitFor(
    `item ${itemId} did not settle`,
    async () => {
      const item = await itemOf(itemId)
      return item.status === "publishing" || item.status === "queued" ? undefined : item
    },
    timeoutMs
  )

const attemptStarted = (itemId: string) => waitFor(`no attempt for ${itemId}`, async () => ((await attemptsOf(itemId)).length > 0 ? true : undefined))

/** A second job for the item, as a second worker or a duplicate message would bring it. */
const sendDuplicateJob = async (target: { workspaceId: string; channelId: string; itemId: string }) => {
  const h = natsHeaders()
  h.set("Nats-Msg-Id", crypto.randomUUID())
  await nc
    .jetstream()
    .publish(names(world.namespace).publishSubject(target.channelId), JSON.stringify({ itemId: target.itemId, workspaceId: target.workspaceId }), {
      headers: h
    })
}

describe("a network that answers slower than the ack wait", () => {
  it("the post ends published, never unconfirmed, and the network holds exactly one copy", async () => {
    const post = await postNow({ outcome: "slow", slowMs: SLOW_MS })
    const item = await settled(post.itemId)
    expect(item.status).toBe("published")
    expect(await copiesOn(post.itemId)).toEqual([{ id: item.releaseId }])
    expect(await postStatus(post.postId)).toBe("published")
    expect(await attemptsOf(post.itemId)).toEqual([{ outcome: "published" }])
    expect(await eventsOf(post.postId)).toEqual(["post.published"])
    expect(await activityOf(post.postId)).not.toContain("unconfirmed")
  })

  it("a second job for the item while the answer is on its way waits: published once, never unconfirmed", async () => {
    const post = await postNow({ outcome: "slow", slowMs: SLOW_MS })
    await attemptStarted(post.itemId)
    await sendDuplicateJob(post)
    await sendDuplicateJob(post)
    const item = await settled(post.itemId)
    expect(item.status).toBe("published")
    expect(await copiesOn(post.itemId)).toHaveLength(1)
    expect(await attemptsOf(post.itemId)).toEqual([{ outcome: "published" }])
    expect(await eventsOf(post.postId)).toEqual(["post.published"])
  })

  it("a real answer arriving after another job's search said unconfirmed wins: published with its release id, one post.published", async () => {
    const post = await postNow({ outcome: "slow", slowMs: SLOW_MS })
    await attemptStarted(post.itemId)
    // the running job loses its lease (as after a long pause); a second job takes the
    // attempt over, searches before the slow network has the post, and can only say unconfirmed
    await q("UPDATE publish_attempts SET lease_owner = gen_random_uuid(), lease_until = now() - interval '1 second' WHERE item_id = $1", [
      post.itemId
    ])
    await sendDuplicateJob(post)
    await waitFor("the takeover did not conclude unconfirmed", async () => ((await itemOf(post.itemId)).status === "unconfirmed" ? true : undefined))
    const item = await waitFor("the late answer did not win", async () => {
      const i = await itemOf(post.itemId)
      return i.status === "published" ? i : undefined
    })
    const copies = await copiesOn(post.itemId)
    expect(copies).toEqual([{ id: item.releaseId }])
    expect(await postStatus(post.postId)).toBe("published")
    expect(await attemptsOf(post.itemId)).toEqual([{ outcome: "published" }])
    expect((await eventsOf(post.postId)).filter((e) => e === "post.published")).toHaveLength(1)
  })
})

describe("the test network's other answers", () => {
  it("lose-answer: the search finds the post → published, one copy", async () => {
    const post = await postNow({ outcome: "lose-answer" })
    const item = await settled(post.itemId)
    expect(item.status).toBe("published")
    expect(await copiesOn(post.itemId)).toEqual([{ id: item.releaseId }])
    expect(await eventsOf(post.postId)).toEqual(["post.published"])
  })

  it("timeout: no answer and nothing found → unconfirmed, nothing sent again", async () => {
    const post = await postNow({ outcome: "timeout" })
    const item = await settled(post.itemId)
    expect(item.status).toBe("unconfirmed")
    expect(await copiesOn(post.itemId)).toHaveLength(0)
    expect(await attemptsOf(post.itemId)).toEqual([{ outcome: "unconfirmed" }])
    expect(await eventsOf(post.postId)).toEqual(["post.unconfirmed"])
  })

  it("reject: error with the network's message and fix", async () => {
    const post = await postNow({ outcome: "reject" })
    const item = await settled(post.itemId)
    expect(item.status).toBe("error")
    expect(await copiesOn(post.itemId)).toHaveLength(0)
    expect(await eventsOf(post.postId)).toEqual(["post.failed"])
  })
})
