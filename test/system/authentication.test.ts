import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("auth")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

describe("Authentication", () => {
  it("a missing header gives 401 No API Key found", async () => {
    const res = await client(sys.url).get("/public/v1/is-connected")
    expect(res.status).toBe(401)
    expect(res.json).toEqual({ error: "No API Key found", msg: "No API Key found" })
  })

  it("an empty header gives 401 No API Key found", async () => {
    const res = await client(sys.url, "").get("/public/v1/integrations", { authorization: "" })
    expect(res.status).toBe(401)
    expect(errorOf(res).error).toBe("No API Key found")
  })

  it.each(["svc_live_wrong", "nonsense", "svc_oat_unknown", "svc_cli_unknown", "Bearer svc_live_nope"])(
    "a wrong key (%s) gives 401 Invalid API key",
    async (key) => {
      const res = await client(sys.url, key).get("/public/v1/is-connected")
      expect(res.status).toBe(401)
      expect(res.json).toEqual({ error: "Invalid API key", msg: "Invalid API key" })
    }
  )

  it("the raw key and the key with `Bearer ` both work", async () => {
    const { apiKey } = await sys.admin.createWorkspace()
    expect((await client(sys.url, apiKey).get("/public/v1/is-connected")).json).toEqual({ connected: true })
    expect((await client(sys.url, `Bearer ${apiKey}`).get("/public/v1/is-connected")).json).toEqual({ connected: true })
  })

  it("rotating the workspace key makes the old key stop working at once", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    expect((await client(sys.url, apiKey).get("/public/v1/is-connected")).status).toBe(200)
    const rotated = await sys.admin.rotateKey(workspaceId)
    const old = await client(sys.url, apiKey).get("/public/v1/is-connected")
    expect(old.status).toBe(401)
    expect(errorOf(old).error).toBe("Invalid API key")
    expect((await client(sys.url, rotated.apiKey).get("/public/v1/is-connected")).status).toBe(200)
  })

  it("a revoked OAuth token stops working at once", async () => {
    const { workspaceId } = await sys.admin.createWorkspace()
    const { userId } = await sys.admin.createUser({ workspaceId, email: "ed@example.com", password: "password1", role: "editor", timezone: null })
    const token = await issueUserToken(world, workspaceId, userId)
    expect((await client(sys.url, token).get("/public/v1/is-connected")).status).toBe(200)
    await withDb(world, (c) => c.query("UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1", [userId]))
    expect(errorOf(await client(sys.url, token).get("/public/v1/is-connected")).error).toBe("Invalid API key")
  })

  it("a token with another kind's prefix is invalid (an OAuth token sent as svc_live_)", async () => {
    const { workspaceId } = await sys.admin.createWorkspace()
    const { userId } = await sys.admin.createUser({ workspaceId, email: "x1@example.com", password: "password1", role: "admin", timezone: null })
    const token = await issueUserToken(world, workspaceId, userId, "cli")
    expect((await client(sys.url, token).get("/public/v1/is-connected")).status).toBe(200)
    const res = await client(sys.url, token.replace("svc_cli_", "svc_live_")).get("/public/v1/is-connected")
    expect(errorOf(res).error).toBe("Invalid API key")
  })

  it("a workspace key stops working while the owner's account is suspended", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const { userId } = await sys.admin.createUser({ workspaceId, email: "own@example.com", password: "password1", role: "owner", timezone: null })
    await withDb(world, (c) => c.query("UPDATE users SET suspended = true WHERE id = $1", [userId]))
    expect(errorOf(await client(sys.url, apiKey).get("/public/v1/is-connected")).error).toBe("Invalid API key")
    await withDb(world, (c) => c.query("UPDATE users SET suspended = false WHERE id = $1", [userId]))
    expect((await client(sys.url, apiKey).get("/public/v1/is-connected")).status).toBe(200)
  })

  it("an owner who has not confirmed their email: 403 email_not_verified", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    const { userId } = await sys.admin.createUser({ workspaceId, email: "unv@example.com", password: "password1", role: "owner", timezone: null })
    await withDb(world, (c) => c.query("UPDATE users SET email_verified = false WHERE id = $1", [userId]))
    const res = await client(sys.url, apiKey).get("/public/v1/integrations")
    expect(res.status).toBe(403)
    expect(errorOf(res).code).toBe("email_not_verified")
    expect(errorOf(res).error).toBe(errorOf(res).msg)
  })
})

describe("Billing gate", () => {
  const noSubscription = {
    error: "No subscription found",
    msg: "No subscription found",
    code: "no_subscription",
    fix: "Ask the workspace owner to choose a plan on the Billing page. Nothing was deleted."
  }
  const paymentFailed = {
    error: "Publishing is paused because the last payment failed.",
    msg: "Publishing is paused because the last payment failed.",
    code: "payment_failed",
    fix: "Ask the workspace owner to pay the open invoice on the Billing page. Nothing was deleted; posts go out again once it is paid."
  }

  it("`ended`: every call answers 401 no_subscription until a plan is picked", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    await sys.admin.setBilling({ workspaceId, event: "ended" })
    for (const path of ["/public/v1/is-connected", "/public/v1/integrations", "/public/v1/networks"]) {
      const res = await client(sys.url, apiKey).get(path)
      expect(res.status).toBe(401)
      expect(res.json).toEqual(noSubscription)
    }
    await sys.admin.setBilling({ workspaceId, event: "activated" })
    expect((await client(sys.url, apiKey).get("/public/v1/is-connected")).status).toBe(200)
  })

  it("`past_due`: everything keeps working during the 7 days of grace", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    await sys.admin.setBilling({ workspaceId, event: "past_due" })
    expect((await client(sys.url, apiKey).get("/public/v1/integrations")).status).toBe(200)
    await sys.admin.setBilling({ workspaceId, event: "grace_reminder" })
    expect((await client(sys.url, apiKey).get("/public/v1/integrations")).status).toBe(200)
  })

  it("past_due for more than 7 days answers 402 even before grace_over arrives", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    await sys.admin.setBilling({ workspaceId, event: "past_due" })
    await withDb(world, (c) => c.query("UPDATE workspaces SET past_due_since = now() - interval '8 days' WHERE id = $1", [workspaceId]))
    const res = await client(sys.url, apiKey).get("/public/v1/integrations")
    expect(res.status).toBe(402)
    expect(res.json).toEqual(paymentFailed)
  })

  it("`grace_over`: every call answers 402 payment_failed until paid", async () => {
    const { apiKey, workspaceId } = await sys.admin.createWorkspace()
    await sys.admin.setBilling({ workspaceId, event: "past_due" })
    await sys.admin.setBilling({ workspaceId, event: "grace_over" })
    const res = await client(sys.url, apiKey).get("/public/v1/groups")
    expect(res.status).toBe(402)
    expect(res.json).toEqual(paymentFailed)
    await sys.admin.setBilling({ workspaceId, event: "renewed" })
    expect((await client(sys.url, apiKey).get("/public/v1/groups")).status).toBe(200)
  })

  it("billing events write billing.changed to the outbox", async () => {
    const { workspaceId } = await sys.admin.createWorkspace()
    await sys.admin.setBilling({ workspaceId, event: "cancel_scheduled", test: true, periodEnd: new Date("2026-12-31T00:00:00Z") })
    const rows = await withDb(world, (c) => c.query("SELECT event, data FROM outbox WHERE workspace_id = $1", [workspaceId]))
    expect(rows.rows).toEqual([
      {
        event: "billing.changed",
        data: {
          plan: "standard",
          test: true,
          event: "cancel_scheduled",
          amount: null,
          period: null,
          currency: null,
          periodEnd: "2026-12-31T00:00:00.000Z"
        }
      }
    ])
  })
})
