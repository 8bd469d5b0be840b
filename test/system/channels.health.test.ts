import { Option, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventsPage } from "../../protocol/http/events.js"
import { openCredentials, sealCredentials } from "../../services/networks/credentials.js"
import { answerOf } from "../support/answers.js"
import { client, decoded, errorOf } from "../support/http.js"
import { seedAccount, simulatorEnv, startSimulator } from "../support/simulator/index.js"
import type { Simulator } from "../support/simulator/core.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { sleep, waitFor } from "../support/wait.js"
import { startReceiver, type Receiver } from "../support/webhookReceiver.js"

/**
 * Channel health ahead of failure (docs/networks.md, "Channel health and expiry warnings"):
 * GET /integrations/{id}/health answers a channel's token expiry, last success, last refresh
 * and its result, and its queued posts due before the expiry; a token whose expiry comes
 * within CHANNEL_EXPIRY_WARNING_DAYS makes one channel.expiring (webhook, event log,
 * notification) per expiry, checked on the token refresher's interval; a LinkedIn channel
 * without a refresh token is kept until its expiry, warned about, then disconnected.
 */

let sim: Simulator & { readonly networks: ReadonlyArray<string> }
let world: TestWorld
let sys: RunningServices
let receiver: Receiver
const DAY = 86_400_000

beforeAll(async () => {
  sim = await startSimulator()
  receiver = await startReceiver()
  world = await createWorld("channelhealth")
  const simEnv = simulatorEnv(sim)
  sys = await startServices(world, ["gateway", "actors", "scheduler", "publisher", "webhooks"], {
    ...simEnv,
    OUTBOUND_ALLOW: `${simEnv["OUTBOUND_ALLOW"]},${receiver.origin}`,
    TOKEN_REFRESH_INTERVAL_MS: "300",
    WEBHOOK_POLL_MS: "100"
  })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await receiver?.close()
  await sim?.close()
})

const secretKey = () => Redacted.make(world.env["SECRET_KEY"] ?? "")

const workspace = async () => {
  const ws = await sys.admin.createWorkspace("Health", "ultimate")
  const api = client(sys.url, ws.apiKey)
  const channel = async (network: string, name: string, seed: Record<string, unknown> = {}) =>
    (
      await sys.admin.createChannel({
        workspaceId: ws.workspaceId,
        network,
        name,
        customerId: null,
        postingTimes: [],
        credentials: await seedAccount(sim, network, seed)
      })
    ).channelId
  /** A webhook of these events; what reached it, by event name. */
  const webhook = async (events: ReadonlyArray<string>) => {
    const path = `/health-${crypto.randomUUID()}`
    expect((await api.post("/api/webhooks", { name: "health", url: receiver.url(path), events })).status).toBe(201)
    return () =>
      receiver.at(path).map((r) => {
        const { data, event } = JSON.parse(r.body) as { event: string; data: Record<string, unknown> }
        return { event, data }
      })
  }
  const health = async (channelId: string) =>
    decoded(await api.get(`/public/v1/integrations/${channelId}/health`), answerOf("account", "integrationHealth"))
  const events = async (name: string) => decoded(await api.get("/public/v1/events?limit=1000"), EventsPage).events.filter((e) => e.event === name)
  const notifications = async () => decoded(await api.get("/public/v1/notifications"), answerOf("networks", "listNotifications")).notifications
  const refreshNeeded = async (channelId: string) =>
    decoded(await api.get("/public/v1/integrations"), answerOf("account", "listIntegrations")).find((c) => c.id === channelId)?.refreshNeeded
  return { ...ws, api, channel, webhook, health, events, notifications, refreshNeeded }
}

/** Moves the channel's token expiry (as an operator's clock would see it come closer). */
const moveExpiry = (channelId: string, expiresAt: Date) =>
  withDb(world, async (c) => {
    const row = (await c.query<{ credentials: Buffer }>("SELECT credentials FROM channels WHERE id = $1", [channelId])).rows[0]!
    const current = Redacted.value(Option.getOrThrow(openCredentials(secretKey(), row.credentials)))
    await c.query("UPDATE channels SET credentials = $2 WHERE id = $1", [
      channelId,
      sealCredentials(secretKey(), { ...current, expiresAt: expiresAt.toISOString() })
    ])
  })

const storedExpiry = (channelId: string) =>
  withDb(world, async (c) => {
    const row = (await c.query<{ credentials: Buffer }>("SELECT credentials FROM channels WHERE id = $1", [channelId])).rows[0]!
    return String(Redacted.value(Option.getOrThrow(openCredentials(secretKey(), row.credentials)))["expiresAt"])
  })

describe("GET /public/v1/integrations/{id}/health", () => {
  it("a fresh LinkedIn channel: its expiry, nothing recorded yet, then a post due before the expiry and one that went live", async () => {
    const w = await workspace()
    const linkedin = await w.channel("linkedin", "Brand on LinkedIn")
    const fresh = await w.health(linkedin)
    expect(fresh).toEqual({
      expiresAt: await storedExpiry(linkedin),
      lastSuccessAt: null,
      lastRefreshAt: null,
      lastRefreshResult: null,
      quota: null,
      postsDueBeforeExpiry: 0
    })
    expect(Date.parse(fresh.expiresAt ?? "")).toBeGreaterThan(Date.now() + 59 * DAY)

    // queued posts: one due tomorrow (before the expiry), one after it
    for (const days of [1, 90]) {
      const res = await w.api.post("/public/v1/posts", {
        type: "schedule",
        date: new Date(Date.now() + days * DAY).toISOString(),
        content: `In ${days} days`,
        channels: [linkedin]
      })
      expect(res.status).toBe(200)
    }
    expect((await w.health(linkedin)).postsDueBeforeExpiry).toBe(1)

    // a post that goes live now stamps the last success
    const before = Date.now()
    expect((await w.api.post("/public/v1/posts", { type: "now", content: "Live now", channels: [linkedin] })).status).toBe(200)
    const live = await waitFor("the last success", async () => {
      const h = await w.health(linkedin)
      return h.lastSuccessAt === null ? undefined : h
    })
    expect(Date.parse(live.lastSuccessAt ?? "")).toBeGreaterThanOrEqual(before - 1000)
  }, 60_000)

  it("a fresh X channel: its two-hour token, no refresh yet", async () => {
    const w = await workspace()
    const x = await w.channel("x", "Brand on X", { username: `h${Math.random().toString(36).slice(2, 8)}` })
    const h = await w.health(x)
    expect(Date.parse(h.expiresAt ?? "") - Date.now()).toBeLessThanOrEqual(2 * 3600_000)
    expect(h).toMatchObject({ lastSuccessAt: null, quota: null, postsDueBeforeExpiry: 0 })
  })

  it("an Instagram channel: the quota left of its 24-hour publishing cap, as Instagram tells it", async () => {
    const w = await workspace()
    const ig = await w.channel("instagram", "Brand on Instagram", { username: `q${Math.random().toString(36).slice(2, 8)}`, cap: 25 })
    expect((await w.health(ig)).quota).toEqual({ remaining: 25, limit: 25, resetsAt: null, unit: "posts in 24 hours" })
  })

  it("404 for another workspace's or an unknown channel, 400 for an id that is not one", async () => {
    const w = await workspace()
    const other = await workspace()
    const theirs = await other.channel("linkedin", "Theirs")
    for (const id of [theirs, crypto.randomUUID()]) {
      const res = await w.api.get(`/public/v1/integrations/${id}/health`)
      expect(res.status).toBe(404)
      expect(errorOf(res).error).toMatch(/not found/i)
    }
    expect((await w.api.get("/public/v1/integrations/nope/health")).status).toBe(400)
  })
})

describe("channel.expiring", () => {
  it("a token moved close to its expiry is warned about once (webhook, event log, notification); a new expiry can be warned about again", async () => {
    const w = await workspace()
    const linkedin = await w.channel("linkedin", "Expiring soon")
    // an X channel's two-hour tokens are renewed routinely: never warned about
    await w.channel("x", "Routine", { username: `r${Math.random().toString(36).slice(2, 8)}` })
    const received = await w.webhook(["channel.expiring"])

    const first = new Date(Date.now() + 2 * DAY) // inside the 3 days, outside LinkedIn's one-day refresh margin
    await moveExpiry(linkedin, first)
    await waitFor("channel.expiring delivered", async () => (received().length > 0 ? true : undefined))
    await sleep(1500) // several more passes of the token refresher
    expect(received()).toEqual([
      { event: "channel.expiring", data: { channelId: linkedin, provider: "linkedin", name: "Expiring soon", expiresAt: first.toISOString() } }
    ])
    const logged = await w.events("channel.expiring")
    expect(logged.map((e) => e.data)).toEqual([{ channelId: linkedin, provider: "linkedin", name: "Expiring soon", expiresAt: first.toISOString() }])
    const notes = (await w.notifications()).filter((n) => n.title === "Expiring soon's sign-in expires soon")
    expect(notes).toHaveLength(1)
    expect(await w.refreshNeeded(linkedin)).toBe(false)

    // inside the refresh margin: refreshed, a new expiry 60 days out, nothing to warn about
    await moveExpiry(linkedin, new Date(Date.now() + 3600_000))
    const refreshed = await waitFor("the refresh", async () => {
      const h = await w.health(linkedin)
      return h.lastRefreshResult === "refreshed" ? h : undefined
    })
    expect(Date.parse(refreshed.expiresAt ?? "")).toBeGreaterThan(Date.now() + 59 * DAY)
    expect(refreshed.lastRefreshAt).not.toBeNull()
    await sleep(900)
    expect(received()).toHaveLength(1)

    // the new expiry comes close in its turn: warned about again, once
    const second = new Date(Date.now() + DAY + 3600_000)
    await moveExpiry(linkedin, second)
    await waitFor("the second channel.expiring", async () => (received().length > 1 ? true : undefined))
    await sleep(900)
    expect(received().map((e) => e.data["expiresAt"])).toEqual([first.toISOString(), second.toISOString()])
    expect(await w.events("channel.expiring")).toHaveLength(2)
  }, 60_000)

  it("LinkedIn without a refresh token: kept until its expiry, warned about, then disconnected", async () => {
    const w = await workspace()
    const received = await w.webhook(["channel.expiring", "channel.disconnected"])
    const expiresInMs = 6000
    const linkedin = await w.channel("linkedin", "No refresh", { expiresInMs, noRefreshToken: true })
    const expiresAt = await storedExpiry(linkedin)

    await waitFor("channel.expiring delivered", async () => (received().length > 0 ? true : undefined))
    expect(received()[0]).toEqual({ event: "channel.expiring", data: { channelId: linkedin, provider: "linkedin", name: "No refresh", expiresAt } })
    // still connected while its token works
    if (Date.parse(expiresAt) - Date.now() > 1000) expect(await w.refreshNeeded(linkedin)).toBe(false)

    await waitFor(
      "channel.disconnected delivered",
      async () => (received().some((e) => e.event === "channel.disconnected") ? true : undefined),
      20_000
    )
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt))
    expect(received()).toEqual([
      { event: "channel.expiring", data: { channelId: linkedin, provider: "linkedin", name: "No refresh", expiresAt } },
      { event: "channel.disconnected", data: { channelId: linkedin, provider: "linkedin", name: "No refresh" } }
    ])
    expect(await w.refreshNeeded(linkedin)).toBe(true)
    expect(await w.health(linkedin)).toMatchObject({ lastRefreshResult: "refused", expiresAt })
    expect((await w.notifications()).map((n) => n.title).sort()).toEqual(["No refresh was disconnected", "No refresh's sign-in expires soon"])
  }, 60_000)
})
