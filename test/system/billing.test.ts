import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { created, wholePost } from "../support/answers.js"

/**
 * Spec: Billing states of a workspace, the `billing.changed` values, Whole post (`held`,
 * `heldAt`), Status 402 and 403 `member_paused`. Billing events are driven through the
 * admin CLI (`npx tsx services/cli.ts billing set …`) while the workspace's posts fall due.
 */

const run = promisify(execFile)
const CALL_TIMEOUT_MS = 30_000

let world: TestWorld
let sys: RunningServices

const cli = async (...args: ReadonlyArray<string>) => {
  try {
    const { stdout } = await run("npx", ["tsx", "services/cli.ts", ...args], {
      cwd: process.cwd(),
      env: { ...process.env, ...world.env },
      timeout: CALL_TIMEOUT_MS
    })
    return { code: 0, stdout, stderr: "" }
  } catch (e) {
    const failed = e as { code?: number | string; stdout?: string; stderr?: string }
    if (typeof failed.code !== "number") throw e
    return { code: failed.code, stdout: failed.stdout ?? "", stderr: failed.stderr ?? "" }
  }
}
const billing = (workspaceId: string, ...args: ReadonlyArray<string>) => cli("billing", "set", "--workspace", workspaceId, ...args)

beforeAll(async () => {
  world = await createWorld("billing")
  sys = await startServices(world, undefined, { X_CLIENT_ID: "x-client", X_CLIENT_SECRET: "x-secret" })
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

const q = (text: string, values: ReadonlyArray<unknown> = []) => withDb(world, async (c) => (await c.query(text, [...values])).rows)

describe("publishing held while billing pauses it, released once paid", () => {
  it("grace over: due posts are held (held, heldAt), nothing is sent; renewed: every held post goes out once, oldest due first", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace("Held", "team")
    const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Held channel", customerId: null, postingTimes: [] })
    const api = client(sys.url, apiKey)
    const later = new Date(Date.now() + 3600_000).toISOString()
    const groups: Array<string> = []
    for (const n of [1, 2, 3]) {
      const res = await api.post("/public/v1/posts", { type: "schedule", date: later, content: `Held post ${n}`, channels: [channelId] })
      expect(res.status).toBe(200)
      groups.push(created(res).group)
    }

    expect((await billing(workspaceId, "--event", "past_due")).code).toBe(0)
    const over = await billing(workspaceId, "--event", "grace_over")
    expect(JSON.parse(over.stdout)).toEqual({ workspaceId, billingState: "grace_over" })
    expect((await api.get("/public/v1/is-connected")).status).toBe(402)

    // the posts fall due, one minute apart, oldest first
    for (const [i, group] of groups.entries()) {
      await q(`UPDATE post_items SET due_at = now() - ($2::int * interval '1 minute') WHERE post_id IN (SELECT id FROM posts WHERE group_id = $1)`, [
        group,
        3 - i
      ])
    }
    const held = await waitFor("every due post held", async () => {
      const rows = await q("SELECT held, held_at, status FROM post_items WHERE workspace_id = $1", [workspaceId])
      return rows.length === 3 && rows.every((r) => r.held === "billing" && r.held_at !== null && r.status === "queued") ? rows : undefined
    })
    expect(held).toHaveLength(3)
    expect(await q("SELECT count(*)::int AS n FROM test_network_posts WHERE channel_id = $1", [channelId])).toEqual([{ n: 0 }])

    const paid = await billing(
      workspaceId,
      "--event",
      "renewed",
      "--amount",
      "29",
      "--currency",
      "usd",
      "--period",
      "month",
      "--period-end",
      "2027-01-01T00:00:00Z"
    )
    expect(paid.code).toBe(0)
    expect((await api.get("/public/v1/is-connected")).status).toBe(200)
    const sent = await waitFor(
      "every held post published",
      async () => {
        const rows = await q("SELECT content, item_id FROM test_network_posts WHERE channel_id = $1 ORDER BY created_at", [channelId])
        const states = await q("SELECT status FROM posts WHERE workspace_id = $1", [workspaceId])
        return rows.length === 3 && states.every((s) => s.status === "published") ? rows : undefined
      },
      30_000
    )
    // each once (they are claimed together, oldest due first; concurrent publisher jobs may land in any order)
    expect(sent.map((r) => r.content).sort()).toEqual(["Held post 1", "Held post 2", "Held post 3"])
    expect(new Set(sent.map((r) => r.item_id)).size).toBe(3)
    const post = await api.get(`/public/v1/posts/${groups[0]}`)
    expect(wholePost(post).channels[0]?.root).toMatchObject({ state: "published", held: null, heldAt: null })

    const events = await q("SELECT data FROM outbox WHERE workspace_id = $1 AND event = 'billing.changed' ORDER BY created_at", [workspaceId])
    expect(events.map((e) => e.data)).toEqual([
      { plan: "team", test: false, event: "past_due", amount: null, period: null, currency: null, periodEnd: null },
      { plan: "team", test: false, event: "grace_over", amount: null, period: null, currency: null, periodEnd: null },
      { plan: "team", test: false, event: "renewed", amount: 29, period: "month", currency: "USD", periodEnd: "2027-01-01T00:00:00.000Z" }
    ])
  }, 120_000)

  it("ended: held until a plan is picked (activated); nothing is deleted", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace("Ended", "team")
    const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Ended channel", customerId: null, postingTimes: [] })
    const res = await client(sys.url, apiKey).post("/public/v1/posts", {
      type: "schedule",
      date: new Date(Date.now() + 3600_000).toISOString(),
      content: "After the end",
      channels: [channelId]
    })
    expect(res.status).toBe(200)
    await sys.admin.setBilling({ workspaceId, event: "ended" })
    await q("UPDATE post_items SET due_at = now() WHERE workspace_id = $1", [workspaceId])
    await waitFor("the due post held", async () =>
      (await q("SELECT held FROM post_items WHERE workspace_id = $1", [workspaceId]))[0]?.held === "billing" ? true : undefined
    )
    expect((await client(sys.url, apiKey).get("/public/v1/posts")).status).toBe(401)
    await sys.admin.setBilling({ workspaceId, event: "activated", test: true })
    await waitFor(
      "published after activated",
      async () => ((await q("SELECT status FROM posts WHERE workspace_id = $1", [workspaceId]))[0]?.status === "published" ? true : undefined),
      30_000
    )
    expect(await q("SELECT count(*)::int AS n FROM test_network_posts WHERE channel_id = $1", [channelId])).toEqual([{ n: 1 }])
  }, 60_000)
})

describe("billing events out of order (CLI)", () => {
  it("a clear error, exit 2, and nothing changed: no state, no event", async () => {
    const { workspaceId } = await sys.admin.createWorkspace("Order", "team")
    const before = await q("SELECT billing_state, plan, cancel_at_period_end FROM workspaces WHERE id = $1", [workspaceId])
    const res = await billing(workspaceId, "--event", "grace_over")
    expect(res.code).toBe(2)
    expect(res.stderr).toContain("grace_over cannot happen now: the workspace is on a paid plan.")
    const resumed = await billing(workspaceId, "--event", "resumed")
    expect(resumed.code).toBe(2)
    expect(resumed.stderr).toContain("resumed cannot happen now: the plan is not cancelled.")
    expect(await q("SELECT billing_state, plan, cancel_at_period_end FROM workspaces WHERE id = $1", [workspaceId])).toEqual(before)
    expect(await q("SELECT count(*)::int AS n FROM outbox WHERE workspace_id = $1", [workspaceId])).toEqual([{ n: 0 }])
  }, 80_000)

  it("a trial: trial_plan picks a plan, activated starts it", async () => {
    const out = await cli("workspace", "create", "--name", "Trial", "--trial")
    const { workspaceId } = JSON.parse(out.stdout)
    const [row] = await q("SELECT round(extract(epoch FROM trial_ends_at - created_at) / 86400)::int AS days FROM workspaces WHERE id = $1", [
      workspaceId
    ])
    expect(row).toEqual({ days: 7 })
    await sys.admin.setBilling({ workspaceId, event: "trial_plan", plan: "pro" })
    await sys.admin.setBilling({ workspaceId, event: "activated" })
    expect(await q("SELECT plan, pending_plan, trial_ends_at FROM workspaces WHERE id = $1", [workspaceId])).toEqual([
      { plan: "pro", pending_plan: null, trial_ends_at: null }
    ])
  }, 60_000)
})

describe("plans: team members and channels", () => {
  it("a plan without a team: everyone but the owner gets 403 member_paused; a team plan resumes them", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace("Team", "team")
    const { userId: ownerId } = await sys.admin.createUser({
      workspaceId,
      email: "boss@team.test",
      password: "password1",
      role: "owner",
      timezone: null
    })
    const { userId: editorId } = await sys.admin.createUser({
      workspaceId,
      email: "ed@team.test",
      password: "password1",
      role: "editor",
      timezone: null
    })
    const owner = client(sys.url, await issueUserToken(world, workspaceId, ownerId))
    const editor = client(sys.url, await issueUserToken(world, workspaceId, editorId))
    expect((await editor.get("/public/v1/integrations")).status).toBe(200)
    await sys.admin.setBilling({ workspaceId, event: "changed", plan: "standard" })
    const paused = await editor.get("/public/v1/integrations")
    expect(paused.status).toBe(403)
    expect(paused.json).toMatchObject({ code: "member_paused", error: "Your access is paused because the workspace plan has no team." })
    expect((await owner.get("/public/v1/integrations")).status).toBe(200)
    expect((await client(sys.url, apiKey).get("/public/v1/integrations")).status).toBe(200)
    await sys.admin.setBilling({ workspaceId, event: "changed", plan: "team" })
    expect((await editor.get("/public/v1/integrations")).status).toBe(200)
  })

  it("one channel over the plan: 402 with a fix from GET /social, and the admin CLI refuses to store it", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace("Full", "standard")
    for (let i = 0; i < 10; i++) await sys.admin.createChannel({ workspaceId, network: "test", name: `C${i}`, customerId: null, postingTimes: [] })
    const res = await client(sys.url, apiKey).get("/public/v1/social/x")
    expect(res.status).toBe(402)
    expect(res.json).toEqual({
      error: "This workspace has 10 channels, the most the Standard plan allows.",
      msg: "This workspace has 10 channels, the most the Standard plan allows.",
      fix: "Choose a larger plan on the Billing page, or disconnect a channel you no longer use, then connect this one again."
    })
    await expect(sys.admin.createChannel({ workspaceId, network: "test", name: "One too many", customerId: null, postingTimes: [] })).rejects.toThrow(
      /10 channels/
    )
    expect(await q("SELECT count(*)::int AS n FROM channels WHERE workspace_id = $1", [workspaceId])).toEqual([{ n: 10 }])
    // a larger plan takes it
    await sys.admin.setBilling({ workspaceId, event: "changed", plan: "team" })
    expect((await client(sys.url, apiKey).get("/public/v1/social/x")).status).toBe(200)
  })
})
