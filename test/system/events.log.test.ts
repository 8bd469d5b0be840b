import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventsPage } from "../../protocol/http/events.js"
import { Webhook, WebhookDelivery } from "../../protocol/http/webhooks.js"
import { client, decoded, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { startReceiver, verifies, type Receiver } from "../support/webhookReceiver.js"

/**
 * The replayable event log (docs/webhooks.md, "The event log"): every event of a workspace
 * numbered 1, 2, 3 … with no gaps (a rolled-back transaction takes its numbers with it),
 * listed after a cursor by GET /public/v1/events; deliveries carry X-Service-Sequence; a
 * delivery is sent again with its webhook-id and a new signature; a replay sends every
 * matching event since a sequence number again, each with the webhook-id it had.
 */

let world: TestWorld
let sys: RunningServices
let receiver: Receiver

beforeAll(async () => {
  receiver = await startReceiver()
  world = await createWorld("eventlog")
  sys = await startServices(world, ["gateway", "webhooks"], { OUTBOUND_ALLOW: receiver.origin, WEBHOOK_POLL_MS: "100" })
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
  await receiver?.close()
})

const WebhookWithSecret = Schema.Struct({ ...Webhook.fields, secret: Schema.String })

const workspace = async () => {
  const ws = await sys.admin.createWorkspace("Events", "team")
  return { ...ws, api: client(sys.url, ws.apiKey), billing: () => sys.admin.setBilling({ workspaceId: ws.workspaceId, event: "renewed" }) }
}
type Ws = Awaited<ReturnType<typeof workspace>>
const page = async (w: Ws, query = "") => decoded(await w.api.get(`/public/v1/events${query}`), EventsPage)

describe("GET /public/v1/events", () => {
  it("lists the workspace's events numbered 1, 2, 3 … oldest first, with a cursor to continue", async () => {
    const w = await workspace()
    const other = await workspace()
    for (let n = 0; n < 3; n++) await w.billing()
    await other.billing()
    const all = await page(w)
    expect(all.events.map((e) => e.sequence)).toEqual([1, 2, 3])
    expect(all.events.every((e) => e.event === "billing.changed")).toBe(true)
    expect(all).toMatchObject({ cursor: "3", more: false })
    const first = await page(w, "?limit=2")
    expect(first.events.map((e) => e.sequence)).toEqual([1, 2])
    expect(first).toMatchObject({ cursor: "2", more: true })
    const rest = await page(w, `?after=${first.cursor}&limit=2`)
    expect(rest.events.map((e) => e.sequence)).toEqual([3])
    expect(rest).toMatchObject({ cursor: "3", more: false })
    expect(await page(w, "?after=3")).toEqual({ events: [], cursor: "3", more: false })
    // another workspace's events are its own, numbered from 1
    expect((await page(other)).events.map((e) => e.sequence)).toEqual([1])
  })

  it("answers the spec's 400 for an after or a limit that is not a whole number in range", async () => {
    const w = await workspace()
    for (const query of ["?after=-1", "?after=abc", "?after=1.5", "?limit=0", "?limit=1001", "?limit=x"]) {
      const res = await w.api.get(`/public/v1/events${query}`)
      expect(res.status, query).toBe(400)
      expect(errorOf(res).error, query).toMatch(/^(after|limit) must be/)
    }
  })

  it("has no gaps: the numbers of a rolled-back transaction are taken back with it", async () => {
    const w = await workspace()
    await w.billing()
    await withDb(world, async (c) => {
      await c.query("BEGIN")
      await c.query("INSERT INTO outbox (id, workspace_id, event, data) VALUES (gen_random_uuid(), $1, 'billing.changed', '{}')", [w.workspaceId])
      await c.query("ROLLBACK")
    })
    await w.billing()
    expect((await page(w)).events.map((e) => e.sequence)).toEqual([1, 2])
  })
})

describe("webhook deliveries, redelivery and replay", () => {
  it("carry X-Service-Sequence; a redelivery has the same webhook-id and a new signature; a replay sends every event since a number again", async () => {
    const w = await workspace()
    const path = `/events-${crypto.randomUUID()}`
    const created = await w.api.post("/api/webhooks", { name: "log", url: receiver.url(path), events: ["billing.changed"] })
    expect(created.status).toBe(201)
    const webhook = decoded(created, WebhookWithSecret)
    for (let n = 0; n < 3; n++) await w.billing()
    const first = await waitFor("three deliveries", async () => (receiver.at(path).length >= 3 ? receiver.at(path) : undefined))
    expect(first.map((r) => r.headers["x-service-sequence"]).sort()).toEqual(["1", "2", "3"])
    for (const r of first) expect(await verifies(webhook.secret, r)).toBe(true)

    // one delivery again: its webhook-id, a new signature
    const log = decoded(await w.api.get(`/api/webhooks/${webhook.id}/deliveries`), Schema.Array(WebhookDelivery))
    const second = first.find((r) => r.headers["x-service-sequence"] === "2")!
    const entry = log.find((e) => e.deliveryId === second.headers["webhook-id"])
    expect(entry).toBeDefined()
    await new Promise((r) => setTimeout(r, 1100)) // a later second: a new timestamp, so a new signature
    const again = await w.api.post(`/api/webhooks/${webhook.id}/deliveries/${entry!.deliveryId}/redeliver`, {})
    expect(again.status).toBe(202)
    const resent = await waitFor("the redelivery", async () => (receiver.at(path).length >= 4 ? receiver.at(path)[3] : undefined))
    expect(resent.headers["webhook-id"]).toBe(second.headers["webhook-id"])
    expect(resent.headers["x-service-sequence"]).toBe("2")
    expect(resent.headers["webhook-signature"]).not.toBe(second.headers["webhook-signature"])
    expect(await verifies(webhook.secret, resent)).toBe(true)

    // replay after 1: events 2 and 3 again, each with the webhook-id it had
    const replayed = await w.api.post(`/api/webhooks/${webhook.id}/replay`, { after: 1 })
    expect(replayed.status).toBe(202)
    expect(replayed.json).toMatchObject({ queued: 2, cursor: "3", more: false })
    const all = await waitFor("the replay", async () => (receiver.at(path).length >= 6 ? receiver.at(path) : undefined))
    const replay = all.slice(4)
    const idOf = (sequence: string) => first.find((r) => r.headers["x-service-sequence"] === sequence)?.headers["webhook-id"]
    expect(replay.map((r) => [r.headers["x-service-sequence"], r.headers["webhook-id"]]).sort()).toEqual([
      ["2", idOf("2")],
      ["3", idOf("3")]
    ])
  })

  it("404 for a delivery the webhook does not have, 400 for a replay without a sequence number", async () => {
    const w = await workspace()
    const webhook = decoded(
      await w.api.post("/api/webhooks", { name: "x", url: receiver.url("/none"), events: ["billing.changed"] }),
      WebhookWithSecret
    )
    const missing = await w.api.post(`/api/webhooks/${webhook.id}/deliveries/${crypto.randomUUID()}/redeliver`, {})
    expect(missing.status).toBe(404)
    expect(errorOf(missing).error).toBe("Delivery not found")
    const bad = await w.api.post(`/api/webhooks/${webhook.id}/replay`, { after: "soon" })
    expect(bad.status).toBe(400)
  })
})
