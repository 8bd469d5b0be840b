import { connect, headers as natsHeaders, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { names } from "../../protocol/names.js"
import { Schema } from "effect"
import { Webhook, WebhookDelivery } from "../../protocol/http/webhooks.js"
import { client, decoded } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { startReceiver, verifies, type Receiver } from "../support/webhookReceiver.js"

/**
 * Delivery (spec: Events → Delivery, Webhook delivery attempts, Limits 12): signed POSTs to
 * receivers on loopback, retried with doubling waits (a short base here:
 * WEBHOOK_RETRY_BASE_MS), redirects, timeouts, rotation between attempts, webhooks switched
 * off, a redelivered event, and a slow receiver next to a fast one. Events come from the
 * admin's `billing set` (billing.changed), written to the outbox like every producer's.
 */

const BASE_MS = 200
const TIMEOUT_MS = 1000

let world: TestWorld
let sys: RunningServices
let receiver: Receiver
let nc: NatsConnection

beforeAll(async () => {
  receiver = await startReceiver()
  world = await createWorld("webhooksdelivery")
  sys = await startServices(world, ["gateway", "webhooks"], {
    OUTBOUND_ALLOW: receiver.origin,
    WEBHOOK_RETRY_BASE_MS: String(BASE_MS),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_POLL_MS: "100",
    WEBHOOK_LEASE_MARGIN_MS: "1000",
    WEBHOOK_CONCURRENCY: "6",
    WEBHOOK_PER_RECEIVER: "2"
  })
  nc = await connect({ servers: world.natsUrl.split(",") })
})
afterAll(async () => {
  await nc?.close()
  await sys?.stop()
  await world?.drop()
  await receiver?.close()
})

/** A workspace with one webhook on `path` that picked billing.changed. */
const hooked = async (path: string, extra: Record<string, unknown> = {}) => {
  const ws = await sys.admin.createWorkspace("Deliveries", "team")
  const api = client(sys.url, ws.apiKey)
  const res = await api.post("/api/webhooks", { name: path, url: receiver.url(path), events: ["billing.changed"], ...extra })
  expect(res.status).toBe(201)
  const webhook = decoded(res, WebhookWithSecret)
  return { ...ws, api, webhook, billing: () => sys.admin.setBilling({ workspaceId: ws.workspaceId, event: "renewed" }) }
}

/** A webhook as its owner sees it: with its secret. */
const WebhookWithSecret = Schema.Struct({ ...Webhook.fields, secret: Schema.String })
type LogEntry = WebhookDelivery
const logOf = async (h: Awaited<ReturnType<typeof hooked>>): Promise<ReadonlyArray<LogEntry>> =>
  decoded(await h.api.get(`/api/webhooks/${h.webhook.id}/deliveries`), Schema.Array(WebhookDelivery))
const waitForLog = (h: Awaited<ReturnType<typeof hooked>>, what: string, done: (log: ReadonlyArray<LogEntry>) => boolean, timeoutMs = 30_000) =>
  waitFor(
    what,
    async () => {
      const log = await logOf(h)
      return done(log) ? log : undefined
    },
    timeoutMs
  )

const deliveryStates = (webhookId: string) =>
  withDb(
    world,
    async (c) =>
      (await c.query<{ state: string; attempt: number }>("SELECT state, attempt FROM webhook_deliveries WHERE webhook_id = $1", [webhookId])).rows
  )

describe("a delivery that works", () => {
  it("POSTs {event, createdAt, data} with the four headers and the Standard Webhooks headers; both verifiers accept it; logged as attempt 1", async () => {
    const h = await hooked("/ok")
    await h.billing()
    const log = await waitForLog(h, "one logged attempt", (l) => l.length === 1)
    expect(log).toEqual([
      {
        id: expect.any(String),
        deliveryId: expect.any(String),
        createdAt: expect.any(String),
        event: "billing.changed",
        status: 200,
        error: null,
        attempt: 1,
        ok: true
      }
    ])
    const [got] = receiver.at("/ok")
    expect(got?.method).toBe("POST")
    expect(await verifies(h.webhook.secret, got!)).toBe(true)
    expect(got!.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "Service-Webhooks/1",
      "x-service-event": "billing.changed",
      "x-service-signature": expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
      "webhook-id": log[0]!.deliveryId,
      "webhook-timestamp": expect.stringMatching(/^\d+$/),
      "webhook-signature": expect.stringMatching(/^v1,/),
      // the workspace's first event (docs/webhooks.md, "The event log")
      "x-service-sequence": "1"
    })
    const body = JSON.parse(got!.body)
    expect(body).toEqual({
      event: "billing.changed",
      createdAt: log[0]!.createdAt,
      data: { plan: "team", test: false, event: "renewed", amount: null, period: null, currency: null, periodEnd: null }
    })
  })

  it("a redelivered event (the same outbox row on EVENTS again) makes no second delivery", async () => {
    const h = await hooked("/once")
    await h.billing()
    await waitForLog(h, "the first delivery", (l) => l.length === 1)
    const [row] = await withDb(
      world,
      async (c) =>
        (
          await c.query<{ id: string; event: string; data: unknown; createdAt: Date }>(
            `SELECT id, event, data, created_at AS "createdAt" FROM outbox WHERE workspace_id = $1`,
            [h.workspaceId]
          )
        ).rows
    )
    const n = names(world.namespace)
    const js = nc.jetstream()
    const h2 = natsHeaders()
    h2.set("Nats-Msg-Id", `again-${row!.id}`) // past the stream's dedupe: the dispatcher must not send twice
    const message = { id: row!.id, workspaceId: h.workspaceId, event: row!.event, data: row!.data, createdAt: row!.createdAt.toISOString() }
    const ack = await js.publish(n.eventsSubject(row!.event), JSON.stringify(message), { headers: h2 })
    expect(ack.duplicate).toBe(false)
    // the fan-out consumer has acknowledged it
    const jsm = await nc.jetstreamManager()
    await waitFor("the redelivered event handled", async () => {
      const info = await jsm.consumers.info(n.eventsStream, n.webhookFanoutConsumer)
      return info.ack_floor.stream_seq >= ack.seq ? true : undefined
    })
    expect(await deliveryStates(h.webhook.id)).toEqual([{ state: "delivered", attempt: 1 }])
    expect(receiver.at("/once")).toHaveLength(1)
  })
})

describe("events from before a webhook was made", () => {
  it("are not sent to it (a consumer catching up on a backlog)", async () => {
    const h = await hooked("/backlog")
    const n = names(world.namespace)
    const js = nc.jetstream()
    const old = {
      id: crypto.randomUUID(),
      workspaceId: h.workspaceId,
      event: "billing.changed",
      data: { plan: "team", test: true, event: "renewed" },
      createdAt: new Date(Date.now() - 3600_000).toISOString()
    }
    const ack = await js.publish(n.eventsSubject("billing.changed"), JSON.stringify(old))
    const jsm = await nc.jetstreamManager()
    await waitFor("the old event handled", async () => {
      const info = await jsm.consumers.info(n.eventsStream, n.webhookFanoutConsumer)
      return info.ack_floor.stream_seq >= ack.seq ? true : undefined
    })
    expect(await deliveryStates(h.webhook.id)).toEqual([])
    await h.billing()
    await waitForLog(h, "the new event delivered", (l) => l.length === 1)
    expect(receiver.at("/backlog")).toHaveLength(1)
  })
})

describe("retries", () => {
  it("a receiver that answers 500: 6 attempts with doubling waits, then it stops; same webhook-id and data, new createdAt and signature each time", async () => {
    receiver.answer("/500", () => ({ status: 500 }))
    const h = await hooked("/500")
    await h.billing()
    const log = await waitForLog(h, "6 attempts", (l) => l.length === 6)
    expect(log.map((e) => e.attempt)).toEqual([6, 5, 4, 3, 2, 1])
    expect(log.every((e) => e.status === 500 && !e.ok && e.error === "The receiver answered 500.")).toBe(true)
    expect(await deliveryStates(h.webhook.id)).toEqual([{ state: "failed", attempt: 6 }])
    // each wait at least the schedule's: base, 2×, 4×, 8×, 16×
    const sent = log.map((e) => Date.parse(e.createdAt)).reverse()
    for (let i = 1; i < sent.length; i++) expect(sent[i]! - sent[i - 1]!).toBeGreaterThanOrEqual(BASE_MS * 2 ** (i - 1))
    const got = receiver.at("/500")
    expect(got).toHaveLength(6)
    expect(new Set(got.map((r) => r.headers["webhook-id"])).size).toBe(1)
    expect(new Set(got.map((r) => JSON.stringify(JSON.parse(r.body).data))).size).toBe(1)
    expect(new Set(got.map((r) => JSON.parse(r.body).createdAt)).size).toBe(6)
    expect(new Set(got.map((r) => r.headers["x-service-signature"])).size).toBe(6)
    for (const r of got) expect(await verifies(h.webhook.secret, r)).toBe(true)
  }, 60_000)

  it("a success ends it: 500, 500, then 200 is three attempts", async () => {
    receiver.answer("/third", (n) => ({ status: n < 3 ? 500 : 204 }))
    const h = await hooked("/third")
    await h.billing()
    const log = await waitForLog(h, "a successful attempt", (l) => l.some((e) => e.ok))
    expect(log.map((e) => [e.attempt, e.status, e.ok])).toEqual([
      [3, 204, true],
      [2, 500, false],
      [1, 500, false]
    ])
    expect(await deliveryStates(h.webhook.id)).toEqual([{ state: "delivered", attempt: 3 }])
  }, 30_000)

  it("no answer within the timeout is a failure with no status", async () => {
    receiver.answer("/hang", (n) => (n === 1 ? "hang" : { status: 200 }))
    const h = await hooked("/hang")
    await h.billing()
    const log = await waitForLog(h, "the retry after the timeout", (l) => l.some((e) => e.ok))
    expect(log.map((e) => [e.attempt, e.status, e.ok])).toEqual([
      [2, 200, true],
      [1, null, false]
    ])
    expect(log[1]!.error).toMatch(/^No answer within \d+ seconds\.$/)
  }, 30_000)

  it("the secret rotated between attempts: the next attempt is signed with the new secret only", async () => {
    let rotated = false
    receiver.answer("/rotate", () => ({ status: rotated ? 200 : 500 }))
    const h = await hooked("/rotate")
    await h.billing()
    await waitForLog(h, "a failed first attempt", (l) => l.length >= 1)
    const fresh = decoded(await h.api.post(`/api/webhooks/${h.webhook.id}/rotate-secret`), WebhookWithSecret).secret
    rotated = true
    await waitForLog(h, "a successful attempt", (l) => l.some((e) => e.ok))
    const accepted = receiver.at("/rotate").at(-1)!
    expect(await verifies(fresh, accepted)).toBe(true)
    expect(await verifies(h.webhook.secret, accepted)).toBe(false)
    expect(await verifies(h.webhook.secret, receiver.at("/rotate")[0]!)).toBe(true)
  }, 30_000)

  it("a webhook switched off stops its waiting retries", async () => {
    receiver.answer("/off", () => ({ status: 500 }))
    const h = await hooked("/off")
    await h.billing()
    await waitForLog(h, "a failed first attempt", (l) => l.length >= 1)
    expect((await h.api.put(`/api/webhooks/${h.webhook.id}`, { active: false })).status).toBe(200)
    await waitFor("the delivery stopped", async () => ((await deliveryStates(h.webhook.id))[0]?.state === "stopped" ? true : undefined))
    const count = (await logOf(h)).length
    expect(count).toBeLessThan(6)
    expect(receiver.at("/off")).toHaveLength(count)
  }, 30_000)
})

describe("plan limits at delivery", () => {
  it("after a downgrade the webhooks beyond the plan's number get nothing; after the upgrade they get the next events", async () => {
    const h = await hooked("/plan-1")
    for (const n of [2, 3])
      expect((await h.api.post("/api/webhooks", { name: `p${n}`, url: receiver.url(`/plan-${n}`), events: ["billing.changed"] })).status).toBe(201)
    const setPlan = (plan: string) => withDb(world, (c) => c.query("UPDATE workspaces SET plan = $1 WHERE id = $2", [plan, h.workspaceId]))
    await setPlan("standard")
    await h.billing()
    await waitFor("the first two delivered", async () =>
      receiver.at("/plan-1").length === 1 && receiver.at("/plan-2").length === 1 ? true : undefined
    )
    await setPlan("team")
    await h.billing()
    await waitFor("all three delivered", async () => (receiver.at("/plan-3").length === 1 && receiver.at("/plan-1").length === 2 ? true : undefined))
    // the event sent while it was paused never reached the third one
    expect(receiver.at("/plan-3")).toHaveLength(1)
    expect(receiver.at("/plan-2")).toHaveLength(2)
  })
})

describe("redirects", () => {
  it("a 307 to another public address is followed (the POST and its body kept)", async () => {
    receiver.answer("/moved", () => ({ status: 307, headers: { location: receiver.url("/moved-here") } }))
    const h = await hooked("/moved")
    await h.billing()
    const log = await waitForLog(h, "the delivery", (l) => l.length >= 1)
    expect(log[0]).toMatchObject({ ok: true, status: 200 })
    const [final] = receiver.at("/moved-here")
    expect(final?.method).toBe("POST")
    expect(await verifies(h.webhook.secret, final!)).toBe(true)
  })

  it("a redirect to a private address is refused, and so are more than 5 redirects", async () => {
    receiver.answer("/to-private", () => ({ status: 302, headers: { location: "http://10.0.0.1/steal" } }))
    receiver.answer("/loop", () => ({ status: 307, headers: { location: receiver.url("/loop") } }))
    const toPrivate = await hooked("/to-private")
    const loop = await hooked("/loop")
    await toPrivate.billing()
    await loop.billing()
    const [first] = await waitForLog(toPrivate, "the refused attempt", (l) => l.length >= 1)
    expect(first).toMatchObject({ ok: false, status: null, attempt: 1, error: expect.stringMatching(/is not public/) })
    const looped = await waitForLog(loop, "all 6 attempts", (l) => l.length === 6)
    expect(looped.every((e) => !e.ok && e.status === null && e.error === "More than 5 redirects.")).toBe(true)
    // each attempt: the request and 5 redirects followed, the 6th not
    expect(receiver.at("/loop")).toHaveLength(6 * 6)
  }, 60_000)
})

describe("one slow receiver does not delay others", () => {
  it("deliveries to a receiver that never answers wait their turn per webhook; another webhook's go out meanwhile", async () => {
    receiver.answer("/slow", () => "hang")
    const slow = await hooked("/slow")
    for (let i = 0; i < 10; i++) await slow.billing()
    await waitFor("the slow receiver holding its two slots", async () => (receiver.at("/slow").length >= 2 ? true : undefined))
    const fast = await hooked("/fast")
    await fast.billing()
    const [delivered] = await waitForLog(fast, "the fast delivery", (l) => l.length === 1)
    expect(delivered?.ok).toBe(true)
    // the last slow deliveries' first attempts come after the fast one: it did not wait behind them
    const slowLog = await waitForLog(slow, "every slow delivery tried once", (l) => l.filter((e) => e.attempt === 1).length === 10, 60_000)
    const lastSlowFirst = Math.max(...slowLog.filter((e) => e.attempt === 1).map((e) => Date.parse(e.createdAt)))
    expect(Date.parse(delivered!.createdAt)).toBeLessThan(lastSlowFirst)
    expect((await deliveryStates(slow.webhook.id)).length).toBe(10)
  }, 90_000)
})
