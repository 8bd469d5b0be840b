import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openCredentials, sealCredentials } from "../../services/networks/credentials.js"
import { client } from "../support/http.js"
import { simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { startReceiver, verifies, type Receiver } from "../support/webhookReceiver.js"
import { created as createdPost } from "../support/answers.js"

/**
 * The 8 events reach a receiver (spec: Events → The 8 events), each produced where the
 * spec says by driving the service as its users do: the public API (posts now, for
 * review), the test network's outcome setting (reject, timeout), the share page (approve,
 * ask for changes), the regular token refresh against the X simulator (a spent refresh
 * token), and the admin CLI (`webhook create`, `billing set`, `webhook test`). Each
 * delivery is verified as a receiver would, and its data has exactly the spec's fields.
 */

const run = promisify(execFile)

let sim: Simulator & { readonly networks: ReadonlyArray<string> }
let world: TestWorld
let sys: RunningServices
let receiver: Receiver
let env: Record<string, string>

beforeAll(async () => {
  sim = await startSimulator()
  receiver = await startReceiver()
  world = await createWorld("webhookevents")
  const simEnv = simulatorEnv(sim)
  env = { ...simEnv, OUTBOUND_ALLOW: `${simEnv["OUTBOUND_ALLOW"]},${receiver.origin}`, PUBLISH_TIMEOUT_MS: "2000", TOKEN_REFRESH_INTERVAL_MS: "500" }
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher", "webhooks"], env)
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await receiver?.close()
  await sim?.close()
})

/** The admin CLI as an operator runs it; its JSON answer. */
const cli = async (...args: ReadonlyArray<string>) => {
  const { stdout } = await run("npx", ["tsx", "services/cli.ts", ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...world.env, ...env },
    timeout: 60_000
  })
  return JSON.parse(stdout)
}

/** The spec's data fields of each event ("The 8 events"). */
const fields: Record<string, ReadonlyArray<string>> = {
  "post.published": ["postId", "content", "groupId", "provider", "channelId", "releaseId", "releaseUrl", "publishedAt"],
  "post.failed": ["fix", "error", "postId", "groupId", "provider", "channelId"],
  "post.unconfirmed": ["fix", "error", "postId", "groupId", "provider", "channelId"],
  "approval.requested": ["groupId", "publishAt", "channelIds", "previewUrl", "requestedBy", "approvalStatus"],
  "approval.approved": ["groupId", "publishAt", "approvedBy", "channelIds", "previewUrl", "approvalStatus"],
  "approval.changes": ["comment", "groupId", "publishAt", "channelIds", "previewUrl", "requestedBy", "approvalStatus"],
  "channel.disconnected": ["channelId", "provider", "name"],
  "billing.changed": ["plan", "test", "event"]
}
/** Fields billing.changed may carry besides (which events carry them: not shown). */
const billingOptional = ["amount", "period", "currency", "periodEnd"]

const inOneHour = () => new Date(Date.now() + 3600_000).toISOString()
const sharePath = (previewUrl: string) => new URL(previewUrl).pathname

describe("the 8 events, each delivered with exactly its data fields", () => {
  it("post.*, approval.*, channel.disconnected and billing.changed reach a webhook made with the CLI; Send Test from the CLI too", async () => {
    const ws = await sys.admin.createWorkspace("Every event", "ultimate")
    const api = client(sys.url, ws.apiKey)
    const { channelId } = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "test",
      name: "Main",
      customerId: null,
      postingTimes: []
    })
    const created = await cli(
      "webhook",
      "create",
      "--workspace",
      ws.workspaceId,
      "--name",
      "Everything",
      "--url",
      receiver.url("/all"),
      "--events",
      Object.keys(fields).join(",")
    )
    expect(created).toEqual({ webhookId: expect.any(String), secret: expect.stringMatching(/^whsec_/) })

    const tested = await cli("webhook", "test", "--webhook", created.webhookId)
    expect(tested).toMatchObject({ event: "test", attempt: 1, ok: true, status: 200, error: null })

    // post.published, post.failed, post.unconfirmed: the test network's outcomes
    for (const outcome of ["accept", "reject", "timeout"]) {
      const res = await api.post("/public/v1/posts", {
        type: "now",
        posts: [{ integration: { id: channelId }, value: [{ content: `Outcome ${outcome}` }], settings: { outcome } }]
      })
      expect(res.status).toBe(200)
    }
    // approval.requested, then approval.approved and approval.changes through the share page
    const approve = createdPost(
      await api.post("/public/v1/posts", { type: "review", date: inOneHour(), content: "Approve me", channels: [channelId] })
    )
    const change = createdPost(await api.post("/public/v1/posts", { type: "review", date: inOneHour(), content: "Change me", channels: [channelId] }))
    expect((await fetch(`${sys.url}${sharePath(approve.previewUrl)}/approve`, { method: "POST", redirect: "manual" })).status).toBe(303)
    const changes = await fetch(`${sys.url}${sharePath(change.previewUrl)}/changes`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ comment: "Use the new logo" }).toString()
    })
    expect(changes.status).toBe(303)
    // channel.disconnected: an X channel whose refresh token was spent elsewhere
    const seeded = (await (
      await fetch(`${sim.origin}/_sim/accounts/x`, { method: "POST", body: JSON.stringify({ username: "spent" }) })
    ).json()) as Record<string, unknown>
    const x = await sys.admin.createChannel({
      workspaceId: ws.workspaceId,
      network: "x",
      name: "Spent",
      customerId: null,
      postingTimes: [],
      credentials: seeded
    })
    const key = Redacted.make(world.env["SECRET_KEY"] ?? "")
    await withDb(world, async (c) => {
      const row = (await c.query<{ credentials: Buffer }>("SELECT credentials FROM channels WHERE id = $1", [x.channelId])).rows[0]!
      const current = Redacted.value(Option.getOrThrow(openCredentials(key, row.credentials)))
      await c.query("UPDATE channels SET credentials = $2 WHERE id = $1", [
        x.channelId,
        sealCredentials(key, { ...current, expiresAt: new Date(Date.now() + 60_000).toISOString(), refreshToken: "spent" })
      ])
    })
    // billing.changed: the admin CLI (no NATS in it: the scheduler's sweeper publishes the row)
    await cli(
      "billing",
      "set",
      "--workspace",
      ws.workspaceId,
      "--event",
      "renewed",
      "--amount",
      "29",
      "--currency",
      "USD",
      "--period",
      "month",
      "--test"
    )

    const byEvent = await waitFor(
      "all 8 events delivered",
      async () => {
        const seen = new Map(receiver.at("/all").map((r) => [JSON.parse(r.body).event as string, r]))
        return Object.keys(fields).every((e) => seen.has(e)) ? seen : undefined
      },
      60_000
    )

    for (const [event, names] of Object.entries(fields)) {
      const request = byEvent.get(event)!
      expect(await verifies(created.secret, request), event).toBe(true)
      expect(request.headers["x-service-event"]).toBe(event)
      const body = JSON.parse(request.body)
      expect(Object.keys(body).sort()).toEqual(["createdAt", "data", "event"])
      const keys = Object.keys(body.data)
      if (event === "billing.changed") {
        expect(keys.filter((k) => !billingOptional.includes(k)).sort(), event).toEqual([...names].sort())
      } else {
        expect(keys.sort(), event).toEqual([...names].sort())
      }
    }
    const data = (event: string) => JSON.parse(byEvent.get(event)!.body).data
    expect(data("post.published")).toMatchObject({ channelId, provider: "test", content: "Outcome accept", publishedAt: expect.stringMatching(/Z$/) })
    expect(data("post.failed")).toMatchObject({ channelId, provider: "test", error: expect.any(String), fix: expect.any(String) })
    expect(data("post.unconfirmed")).toMatchObject({ channelId, provider: "test" })
    expect(data("approval.approved")).toMatchObject({ groupId: approve.group, channelIds: [channelId], approvalStatus: "approved" })
    expect(data("approval.changes")).toMatchObject({ groupId: change.group, comment: "Use the new logo", approvalStatus: "changes" })
    expect(data("channel.disconnected")).toEqual({ channelId: x.channelId, provider: "x", name: "Spent" })
    expect(data("billing.changed")).toMatchObject({ plan: "ultimate", test: true, event: "renewed", amount: 29, currency: "USD", period: "month" })

    // every delivery logged, the Send Test among them
    const log = (await api.get(`/api/webhooks/${created.webhookId}/deliveries`)).json as Array<{ event: string; ok: boolean }>
    expect(new Set(log.filter((e) => e.ok).map((e) => e.event))).toEqual(new Set([...Object.keys(fields), "test"]))
  }, 120_000)
})
