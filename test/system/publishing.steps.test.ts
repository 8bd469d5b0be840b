import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { created, present, wholePost } from "../support/answers.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"

/**
 * Publishes in several steps (docs/publishing.md, "Publishes in several steps"), through the
 * test network's `process` outcome: each step closes its attempt `pending` and keeps the
 * adapter's progress with the item, the item shows `held: "processing"` with what it waits
 * for, the job comes back from JetStream and goes on from the stored step, and the post is
 * published once with the hold and the progress cleared.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("pubsteps")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], { PUBLISH_TIMEOUT_MS: "3000" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const q = <R extends Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  withDb(world, async (c) => (await c.query(text, values)).rows as Array<R>)

const newChannel = async () => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Steps", customerId: null, postingTimes: [] })
  return { api: client(sys.url, apiKey), channelId }
}

describe("a publish in several steps", () => {
  it("is held processing with what it waits for between steps, continues from the stored step, and is published once", async () => {
    const { api, channelId } = await newChannel()
    const content = `in steps ${crypto.randomUUID()}`
    const answer = await api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content }], settings: { outcome: "process", processSteps: 3, processMs: 700 } }]
    })
    const group = created(answer).group
    const rootOf = async () => present(wholePost(await api.get(`/public/v1/posts/${group}`)).channels[0], "the channel").root
    const held = await waitFor("the item held processing", async () => {
      const root = await rootOf()
      return root.held === "processing" ? root : undefined
    })
    expect(held.state).toBe("publishing")
    expect(held.waitingFor).toMatch(/processing the post \(step \d of 3\)/)
    expect(held.heldAt).not.toBeNull()
    const done = await waitFor("published", async () => {
      const root = await rootOf()
      return root.state === "published" ? root : undefined
    })
    expect(done).toMatchObject({ held: null, heldAt: null, waitingFor: null })
    const copies = await q<{ n: number }>("SELECT count(*)::int AS n FROM test_network_posts WHERE content = $1", [content])
    expect(copies[0]?.n).toBe(1)
    const attempts = await q<{ outcome: string }>(
      "SELECT a.outcome FROM publish_attempts a JOIN post_items i ON i.id = a.item_id WHERE i.content = $1 ORDER BY a.attempt",
      [content]
    )
    expect(attempts.map((a) => a.outcome)).toEqual(["pending", "pending", "pending", "published"])
    const progress = await q<{ network_progress: unknown }>("SELECT network_progress FROM post_items WHERE content = $1", [content])
    expect(progress[0]?.network_progress).toBeNull()
  })

  it("a job that died mid-step: the search finds the publish unfinished and it goes on from its step, never a second copy", async () => {
    const { api, channelId } = await newChannel()
    const content = `taken over ${crypto.randomUUID()}`
    const answer = await api.post("/public/v1/posts", {
      type: "now",
      posts: [{ integration: { id: channelId }, value: [{ content }], settings: { outcome: "process", processSteps: 2, processMs: 5000 } }]
    })
    expect(answer.status).toBe(200)
    await waitFor("the first step stored", async () => {
      const rows = await q<{ network_progress: unknown }>("SELECT network_progress FROM post_items WHERE content = $1", [content])
      return rows[0]?.network_progress !== null && rows[0]?.network_progress !== undefined ? true : undefined
    })
    // as a job that opened its attempt and died: an open attempt whose lease ran out, the wait cut short
    const deadAttempt = crypto.randomUUID()
    await q(
      `INSERT INTO publish_attempts (id, item_id, workspace_id, attempt, lease_owner, lease_until)
       SELECT $2::uuid, i.id, i.workspace_id, (SELECT max(attempt) + 1 FROM publish_attempts WHERE item_id = i.id), gen_random_uuid(), now() - interval '1 second'
       FROM post_items i WHERE i.content = $1`,
      [content, deadAttempt]
    )
    const outcomes = await waitFor(
      "published after the takeover",
      async () => {
        const rows = await q<{ id: string; outcome: string | null }>(
          "SELECT a.id, a.outcome FROM publish_attempts a JOIN post_items i ON i.id = a.item_id WHERE i.content = $1 ORDER BY a.attempt",
          [content]
        )
        return rows.some((r) => r.outcome === "published") ? rows : undefined
      },
      60_000
    )
    // the dead job's attempt was searched (pending: go on), then the next step published it
    expect(outcomes.find((r) => r.id === deadAttempt)?.outcome).toBe("pending")
    const copies = await q<{ n: number }>("SELECT count(*)::int AS n FROM test_network_posts WHERE content = $1", [content])
    expect(copies[0]?.n).toBe(1)
  }, 120_000)
})
