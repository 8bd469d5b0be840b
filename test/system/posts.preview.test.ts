import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PostPreview } from "../../protocol/http/postResources.js"
import { created } from "../support/answers.js"
import { client, decoded, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"

/**
 * Preview, then commit (docs/using-the-api.md, "Preview, then commit"): POST /posts/preview
 * answers per channel what its network will receive, POST /posts' own problems (still 200),
 * warnings and a planId, and saves nothing; POST /posts with the planId publishes exactly
 * that plan, or answers 409 naming what changed in between.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("postpreview")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const workspace = async () => {
  const { apiKey, workspaceId } = await sys.admin.createWorkspace()
  const channel = async (name: string) =>
    (await sys.admin.createChannel({ workspaceId, network: "test", name, customerId: null, postingTimes: [] })).channelId
  return { api: client(sys.url, apiKey), workspaceId, a: await channel("Alpha"), b: await channel("Beta") }
}
const later = () => new Date(Date.now() + 3 * 86_400_000).toISOString()
const postCount = async (workspaceId: string) =>
  (await withDb(world, (c) => c.query<{ n: number }>("SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1", [workspaceId]))).rows[0]?.n

describe("POST /public/v1/posts/preview", () => {
  it("answers per channel the items as the network receives them, POST /posts' problems (200), warnings and a planId; saves nothing", async () => {
    const w = await workspace()
    const body = {
      type: "schedule",
      date: later(),
      shortLink: true,
      posts: [
        { integration: { id: w.a }, value: [{ content: `Read https://example.com/a/very/long/path/to/an/article ${"x".repeat(420)}` }] },
        { integration: { id: w.b }, value: [{ content: "y".repeat(501) }] }
      ]
    }
    const res = await w.api.post("/public/v1/posts/preview", body)
    const preview = decoded(res, PostPreview)
    const [alpha, beta] = preview.channels
    // the link as the network will get it: this server's short address (its code is made when it goes out)
    expect(alpha?.items[0]?.content).toMatch(/^Read http:\/\/127\.0\.0\.1\/l\/xxxxxxxxxxxx x+$/)
    expect(alpha?.items[0]?.length).toBe(alpha?.items[0]?.content.length)
    expect(alpha?.problems).toEqual([])
    expect(alpha?.warnings.map((x) => x.message)).toEqual([expect.stringMatching(/^Alpha: the post is \d+ of 500 characters, close to the limit\.$/)])
    // the same message POST /posts refuses it with
    const refused = await w.api.post("/public/v1/posts", body)
    expect(refused.status).toBe(400)
    expect(beta?.problems.map((p) => p.message)).toEqual(errorOf(refused).errors?.map((e) => e.message))
    expect(beta?.problems.length).toBeGreaterThan(0)
    expect(preview.planId).toMatch(/^plan_/)
    expect(await postCount(w.workspaceId)).toBe(0)
  })

  it("POST /posts with the planId publishes the plan; with a channel or the body changed in between: 409 naming it, nothing saved", async () => {
    const w = await workspace()
    const body = { type: "schedule", date: later(), posts: [{ integration: { id: w.a }, value: [{ content: "As previewed" }] }] }
    const { planId } = decoded(await w.api.post("/public/v1/posts/preview", body), PostPreview)
    expect(created(await w.api.post("/public/v1/posts", { ...body, planId })).group).toBeDefined()

    const second = { type: "schedule", date: later(), posts: [{ integration: { id: w.b }, value: [{ content: "Then Beta changed" }] }] }
    const plan = decoded(await w.api.post("/public/v1/posts/preview", second), PostPreview).planId
    await withDb(world, (c) => c.query("UPDATE channels SET disabled = true WHERE id = $1", [w.b]))
    const changed = await w.api.post("/public/v1/posts", { ...second, planId: plan })
    expect(changed.status).toBe(409)
    expect(errorOf(changed).error).toBe("The post changed since its preview: the channel Beta changed (connection, settings or approval).")
    expect(errorOf(changed).code).toBe("plan_changed")

    const other = decoded(await w.api.post("/public/v1/posts/preview", body), PostPreview).planId
    const edited = await w.api.post("/public/v1/posts", {
      ...body,
      posts: [{ integration: { id: w.a }, value: [{ content: "Edited after" }] }],
      planId: other
    })
    expect(edited.status).toBe(409)
    expect(errorOf(edited).error).toBe("The post changed since its preview: the body is not the one previewed.")
    expect(await postCount(w.workspaceId)).toBe(1)
  })

  it("a planId that is not this workspace's preview: 409; without a planId POST /posts is as before", async () => {
    const w = await workspace()
    const elsewhere = await workspace()
    const body = { type: "schedule", date: later(), posts: [{ integration: { id: w.a }, value: [{ content: "Mine" }] }] }
    const foreign = decoded(
      await elsewhere.api.post("/public/v1/posts/preview", { ...body, posts: [{ integration: { id: elsewhere.a }, value: [{ content: "Mine" }] }] }),
      PostPreview
    )
    for (const planId of [foreign.planId, "plan_nope.x", `${foreign.planId.slice(0, -2)}AA`]) {
      const res = await w.api.post("/public/v1/posts", { ...body, planId })
      expect(res.status, planId).toBe(409)
      expect(errorOf(res).error).toBe("The post changed since its preview: this planId is not a preview of this workspace.")
    }
    expect((await w.api.post("/public/v1/posts", body)).status).toBe(200)
    // a channel the workspace does not have: 404 as POST /posts
    const missing = await w.api.post("/public/v1/posts/preview", { posts: [{ integration: { id: elsewhere.a }, value: [{ content: "x" }] }] })
    expect(missing.status).toBe(404)
  })
})
