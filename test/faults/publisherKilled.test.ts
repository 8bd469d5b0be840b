import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created } from "../support/answers.js"

/**
 * A publisher SIGKILLed after recording its attempt, while the network has not answered
 * (security notes: "kill -9 of the publisher after recording the attempt"). Its job goes
 * to another publisher, which must not send again: it searches, and the network does not
 * have the post, so the channel is unconfirmed. The network never holds two copies.
 */

const ACK_WAIT_MS = 1000

let world: TestWorld
let sys: RunningServices
const publishers = processGroup()

beforeAll(async () => {
  world = await createWorld("pubkilled")
  sys = await startServices(world, ["gateway", "actors", "scheduler"])
})
afterAll(async () => {
  await publishers.stopAll()
  await sys?.stop()
  await world?.drop()
})

const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

describe("a publisher SIGKILLed while the network has not answered", () => {
  it("another publisher takes the job over, searches instead of sending: unconfirmed, no copy, one attempt", async () => {
    const env = { PUBLISHER_ACK_WAIT_MS: String(ACK_WAIT_MS) }
    const first = await publishers.start(world, ["publisher"], { env, ready: /publisher started/, label: "publisher 1" })
    const { workspaceId, apiKey } = await sys.admin.createWorkspace()
    const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Killed", customerId: null, postingTimes: [] })
    const res = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content: "Going out when it is killed" }], settings: { outcome: "slow", slowMs: 600_000 } }]
    })
    expect(res.status).toBe(200)
    const postId = created(res).postId
    const [item] = await q<{ id: string }>("SELECT id FROM post_items WHERE post_id = $1", [postId])
    await waitFor("the first publisher recorded no attempt", async () =>
      (await q("SELECT 1 FROM publish_attempts WHERE item_id = $1", [item!.id])).length > 0 ? true : undefined
    )
    expect((await first.kill("SIGKILL")).signal).toBe("SIGKILL")

    await publishers.start(world, ["publisher"], { env, ready: /publisher started/, label: "publisher 2" })
    const settled = await waitFor(
      "the item was not settled by the second publisher",
      async () => {
        const [row] = await q<{ status: string }>("SELECT status FROM post_items WHERE id = $1", [item!.id])
        return row?.status === "publishing" ? undefined : row
      },
      30_000
    )
    expect(settled).toEqual({ status: "unconfirmed" })
    expect(await q("SELECT outcome FROM publish_attempts WHERE item_id = $1", [item!.id])).toEqual([{ outcome: "unconfirmed" }])
    expect(await q("SELECT id FROM test_network_posts WHERE item_id = $1", [item!.id])).toEqual([])
    expect((await q<{ event: string }>("SELECT event FROM outbox WHERE data->>'postId' = $1", [postId])).map((r) => r.event)).toEqual([
      "post.unconfirmed"
    ])
  }, 120_000)
})
