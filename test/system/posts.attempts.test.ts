import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PostAttempt } from "../../protocol/http/postResources.js"
import { created, present, wholePost } from "../support/answers.js"
import { client, decoded, errorOf } from "../support/http.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { waitFor } from "../support/wait.js"

/**
 * The attempt timeline (docs/publishing.md, "The attempt timeline"): GET /posts/{id}/attempts
 * answers every attempt of each channel's items in order, what was asked of the network,
 * how long it took, the network's status and error text as received, the outcome and its
 * calls; never a credential.
 */

let sim: Simulator
let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  sim = await startSimulator()
  world = await createWorld("postattempts")
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher"], { ...simulatorEnv(sim), PUBLISH_TIMEOUT_MS: "3000" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await sim?.close()
})

const Attempts = Schema.Array(PostAttempt)

describe("GET /public/v1/posts/{id}/attempts", () => {
  it("a 429 then a publish: two attempts in order with the network's status, its error text and each call; no token shown", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const credentials = await seedAccount(sim, "mastodon")
    const { channelId } = await sys.admin.createChannel({
      workspaceId,
      network: "mastodon",
      name: "M",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const api = client(sys.url, apiKey)
    sim.fail({ network: "mastodon", op: "publish", mode: "rate-limit", times: 1, retryAfterSeconds: 1 })
    const content = `timeline ${crypto.randomUUID()}`
    const answer = created(await api.post("/public/v1/posts", { type: "now", posts: [{ integration: { id: channelId }, value: [{ content }] }] }))
    const { group, postId } = answer
    await waitFor("published", async () => {
      const root = present(wholePost(await api.get(`/public/v1/posts/${group}`)).channels[0], "channel").root
      return root.state === "published" ? root : undefined
    })
    const res = await api.get(`/public/v1/posts/${group}/attempts`)
    const attempts = decoded(res, Attempts)
    expect(attempts.map((a) => [a.position, a.attempt, a.operation, a.outcome, a.networkStatus])).toEqual([
      [0, 1, "publish", "rate_limited", 429],
      [0, 2, "publish", "published", 200]
    ])
    expect(attempts[0]?.error).toContain("Too Many Requests")
    expect(attempts[1]?.error).toBeNull()
    expect(attempts.every((a) => a.channelId === channelId && a.durationMs !== null && a.durationMs >= 0)).toBe(true)
    const publishCall = attempts[1]?.calls.find((c) => c.method === "POST")
    expect(publishCall).toMatchObject({ path: "/mastodon/api/v1/statuses", status: 200 })
    // the channel's token is in every request's Authorization header, never in the timeline
    expect(JSON.stringify(res.json)).not.toContain(String(credentials["accessToken"]))
    // the per-channel id answers the same
    expect((await api.get(`/public/v1/posts/${postId}/attempts`)).json).toEqual(res.json)
  })

  it("a refusal: the network's own error text as received; 404 for another workspace's post, 400 for an invalid id", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const credentials = await seedAccount(sim, "mastodon")
    const { channelId } = await sys.admin.createChannel({
      workspaceId,
      network: "mastodon",
      name: "M",
      customerId: null,
      postingTimes: [],
      credentials
    })
    const api = client(sys.url, apiKey)
    sim.fail({ network: "mastodon", op: "publish", mode: "reject", times: 1 })
    const group = created(
      await api.post("/public/v1/posts", { type: "now", posts: [{ integration: { id: channelId }, value: [{ content: "refused one" }] }] })
    ).group
    const attempts = await waitFor("the refusal", async () => {
      const list = decoded(await api.get(`/public/v1/posts/${group}/attempts`), Attempts)
      return list.some((a) => a.outcome === "rejected") ? list : undefined
    })
    expect(attempts).toHaveLength(1)
    expect(attempts[0]).toMatchObject({ operation: "publish", outcome: "rejected", networkStatus: 422 })
    expect(attempts[0]?.error).toContain("Validation failed: Text character limit")
    const other = client(sys.url, (await sys.admin.createWorkspace()).apiKey)
    expect((await other.get(`/public/v1/posts/${group}/attempts`)).status).toBe(404)
    const invalid = await api.get("/public/v1/posts/nope/attempts")
    expect(invalid.status).toBe(400)
    expect(errorOf(invalid).error.length).toBeGreaterThan(0)
  })
})
