import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created } from "../support/answers.js"

/**
 * A publish in several steps (docs/publishing.md, "Publishes in several steps") survives
 * publishers SIGKILLed between its steps and in the middle of one: the job waiting between
 * steps is in JetStream, not in the dead process; an attempt opened by a publisher that died
 * is taken over and searched, the network says the publish is unfinished, and it goes on
 * from the stored step. One copy on the network, published.
 */

const ACK_WAIT_MS = 1000

let world: TestWorld
let sys: RunningServices
const publishers = processGroup()

beforeAll(async () => {
  world = await createWorld("pubkilledsteps")
  sys = await startServices(world, ["gateway", "actors", "scheduler"])
})
afterAll(async () => {
  await publishers.stopAll()
  await sys?.stop()
  await world?.drop()
})

const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

describe("publishers SIGKILLed during a publish in several steps", () => {
  it("between steps and in the middle of one: the publish goes on from its stored step and goes out once", async () => {
    const env = { PUBLISHER_ACK_WAIT_MS: String(ACK_WAIT_MS) }
    const first = await publishers.start(world, ["publisher"], { env, ready: /publisher started/, label: "publisher 1" })
    const { workspaceId, apiKey } = await sys.admin.createWorkspace()
    const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Steps", customerId: null, postingTimes: [] })
    const content = `killed between steps ${crypto.randomUUID()}`
    const res = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content }], settings: { outcome: "process", processSteps: 3, processMs: 1500 } }]
    })
    expect(res.status).toBe(200)
    const postId = created(res).postId
    const [item] = await q<{ id: string }>("SELECT id FROM post_items WHERE post_id = $1", [postId])
    const itemId = item!.id
    const stepOf = async () => {
      const [row] = await q<{ step: number | null }>("SELECT (network_progress->>'step')::int AS step FROM post_items WHERE id = $1", [itemId])
      return row?.step ?? 0
    }
    await waitFor("the first step stored", async () => ((await stepOf()) >= 1 ? true : undefined))
    // between steps: the job waits in JetStream with its delay, the process holding nothing
    expect((await first.kill("SIGKILL")).signal).toBe("SIGKILL")

    // the next publisher opens the next step's attempt and dies before calling the network
    const second = await publishers.start(world, ["publisher"], {
      env: { ...env, TEST_PAUSE_AT: "publisher.attemptRecorded" },
      ready: /publisher started/,
      label: "publisher 2"
    })
    const open = await waitFor(
      "the second publisher opened an attempt",
      async () => {
        const [row] = await q<{ id: string }>("SELECT id FROM publish_attempts WHERE item_id = $1 AND outcome IS NULL", [itemId])
        return row
      },
      30_000
    )
    expect((await second.kill("SIGKILL")).signal).toBe("SIGKILL")

    await publishers.start(world, ["publisher"], { env, ready: /publisher started/, label: "publisher 3" })
    const settled = await waitFor(
      "the item was not published by the third publisher",
      async () => {
        const [row] = await q<{ status: string }>("SELECT status FROM post_items WHERE id = $1", [itemId])
        return row?.status === "publishing" ? undefined : row
      },
      60_000
    )
    expect(settled).toEqual({ status: "published" })
    // the dead publisher's attempt was searched and found unfinished: the publish went on, never restarted
    const [taken] = await q<{ outcome: string }>("SELECT outcome FROM publish_attempts WHERE id = $1", [open.id])
    expect(taken?.outcome).toBe("pending")
    const outcomes = await q<{ outcome: string }>("SELECT outcome FROM publish_attempts WHERE item_id = $1 ORDER BY attempt", [itemId])
    expect(outcomes.filter((o) => o.outcome === "published")).toHaveLength(1)
    expect(outcomes.every((o) => o.outcome === "pending" || o.outcome === "published")).toBe(true)
    expect(await q("SELECT id FROM test_network_posts WHERE item_id = $1", [itemId])).toHaveLength(1)
    expect((await q<{ event: string }>("SELECT event FROM outbox WHERE data->>'postId' = $1", [postId])).map((r) => r.event)).toEqual([
      "post.published"
    ])
  }, 180_000)
})
