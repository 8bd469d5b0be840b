import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Schema } from "effect"
import { client, decoded } from "../support/http.js"
import { processGroup } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { waitFor } from "../support/wait.js"
import { startReceiver, verifies, type Receiver } from "../support/webhookReceiver.js"
import { Webhook, WebhookDelivery } from "../../protocol/http/webhooks.js"

/**
 * A webhook dispatcher SIGKILLed while its attempt waits for the receiver's answer. The
 * delivery was recorded before the attempt, so nothing is lost: another dispatcher takes
 * it over when the claim's lease ends, logs the cut-off attempt (no answer) and makes the
 * next one. The log is complete: every attempt, in order, the last one delivered.
 */

let world: TestWorld
let sys: RunningServices
let receiver: Receiver
const dispatchers = processGroup()

beforeAll(async () => {
  receiver = await startReceiver()
  world = await createWorld("hookkilled")
  sys = await startServices(world, ["gateway"], { OUTBOUND_ALLOW: receiver.origin })
})
afterAll(async () => {
  await dispatchers.stopAll()
  await sys?.stop()
  await world?.drop()
  await receiver?.close()
})

describe("a webhook dispatcher SIGKILLed during an attempt", () => {
  it("another dispatcher delivers the event; the log holds the cut-off attempt and the delivered one", async () => {
    const env = {
      OUTBOUND_ALLOW: receiver.origin,
      // the receiver never answers the first attempt: the kill comes long before this timeout
      WEBHOOK_TIMEOUT_MS: "8000",
      WEBHOOK_LEASE_MARGIN_MS: "1000",
      WEBHOOK_RETRY_BASE_MS: "200",
      WEBHOOK_POLL_MS: "200",
      HEALTH_PORT: "0"
    }
    const ready = /webhook dispatcher started/
    const first = await dispatchers.start(world, ["webhooks"], { env, ready, label: "dispatcher 1" })
    receiver.answer("/killed", (n) => (n === 1 ? "hang" : { status: 200 }))
    const ws = await sys.admin.createWorkspace("Killed", "team")
    const api = client(sys.url, ws.apiKey)
    const { id: webhookId, secret } = decoded(
      await api.post("/api/webhooks", { name: "k", url: receiver.url("/killed"), events: ["billing.changed"] }),
      Webhook
    )
    await sys.admin.setBilling({ workspaceId: ws.workspaceId, event: "renewed" })
    await waitFor("the first attempt reached the receiver", async () => (receiver.at("/killed").length === 1 ? true : undefined))
    expect((await first.kill("SIGKILL")).signal).toBe("SIGKILL")

    // the second one waits out the first's lease (its timeout + margin), so a short timeout here
    await dispatchers.start(world, ["webhooks"], { env: { ...env, WEBHOOK_TIMEOUT_MS: "2000" }, ready, label: "dispatcher 2" })
    const log = await waitFor(
      "the delivery completed",
      async () => {
        const entries = decoded(await api.get(`/api/webhooks/${webhookId}/deliveries`), Schema.Array(WebhookDelivery))
        return entries.some((e) => e.ok) ? entries : undefined
      },
      90_000
    )
    expect(log.map((e) => [e.attempt, e.status, e.ok])).toEqual([
      [2, 200, true],
      [1, null, false]
    ])
    expect(log[1]?.error).toBe("The dispatcher stopped during this attempt; it was tried again.")
    const got = receiver.at("/killed")
    expect(got).toHaveLength(2)
    expect(got[0]!.headers["webhook-id"]).toBe(got[1]!.headers["webhook-id"])
    expect(await verifies(secret ?? "", got[1]!)).toBe(true)
    const rows = await withDb(world, async (c) => (await c.query("SELECT state FROM webhook_deliveries WHERE webhook_id = $1", [webhookId])).rows)
    expect(rows).toEqual([{ state: "delivered" }])
  }, 120_000)
})
