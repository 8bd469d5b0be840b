import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, errorOf } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { issueUserToken, withDb } from "../support/tokens.js"

/**
 * Spec (Authentication): rotation and revocation "stop working at once". Each gateway
 * keeps the token rows it has seen in memory (services/gateway/tokenCache.ts), so the
 * proof needs two replicas: a change made through one must be seen by the very next
 * request on the other, which has the old row cached.
 */
let world: TestWorld
let first: RunningServices
let second: RunningServices

beforeAll(async () => {
  world = await createWorld("authreplicas")
  first = await startServices(world, ["gateway"])
  second = await startServices(world, ["gateway"])
})
afterAll(async () => {
  await second?.stop()
  await first?.stop()
  await world?.drop()
})

const isConnected = (replica: RunningServices, token: string) => client(replica.url, token).get("/public/v1/is-connected")

/** Both replicas have answered with the token, so both hold its row. */
const warm = async (token: string) => {
  for (const replica of [first, second, first, second]) expect((await isConnected(replica, token)).status).toBe(200)
}

describe("Authentication across two gateway replicas", () => {
  it("a key rotated through one replica fails on the very next request to the other", async () => {
    const { apiKey, workspaceId } = await first.admin.createWorkspace()
    await warm(apiKey)
    const rotated = await first.admin.rotateKey(workspaceId)
    const old = await isConnected(second, apiKey)
    expect(old.status).toBe(401)
    expect(errorOf(old).error).toBe("Invalid API key")
    expect((await isConnected(second, rotated.apiKey)).status).toBe(200)
    expect((await isConnected(first, apiKey)).status).toBe(401)
  })

  it("a revoked OAuth token (revoked_at set) fails on the very next request to the other replica", async () => {
    const { workspaceId } = await first.admin.createWorkspace()
    const { userId } = await first.admin.createUser({ workspaceId, email: "rev@example.com", password: "password1", role: "editor", timezone: null })
    const token = await issueUserToken(world, workspaceId, userId)
    await warm(token)
    await withDb(world, (c) => c.query("UPDATE api_tokens SET revoked_at = now() WHERE user_id = $1", [userId]))
    expect(errorOf(await isConnected(second, token)).error).toBe("Invalid API key")
  })

  it("a paused member is refused on the next request, and let in again once resumed", async () => {
    const { workspaceId } = await first.admin.createWorkspace()
    const { userId } = await first.admin.createUser({
      workspaceId,
      email: "pause@example.com",
      password: "password1",
      role: "editor",
      timezone: null
    })
    const token = await issueUserToken(world, workspaceId, userId, "cli")
    await warm(token)
    await withDb(world, (c) => c.query("UPDATE memberships SET paused = true WHERE user_id = $1", [userId]))
    const paused = await isConnected(second, token)
    expect(paused.status).toBe(403)
    expect(errorOf(paused).error).toBe("Your access is paused because the workspace plan has no team.")
    await withDb(world, (c) => c.query("UPDATE memberships SET paused = false WHERE user_id = $1", [userId]))
    expect((await isConnected(second, token)).status).toBe(200)
  })

  it("a removed member's token fails on the next request", async () => {
    const { workspaceId } = await first.admin.createWorkspace()
    const { userId } = await first.admin.createUser({ workspaceId, email: "gone@example.com", password: "password1", role: "admin", timezone: null })
    const token = await issueUserToken(world, workspaceId, userId)
    await warm(token)
    await withDb(world, (c) => c.query("DELETE FROM memberships WHERE user_id = $1", [userId]))
    expect(errorOf(await isConnected(second, token)).error).toBe("Invalid API key")
  })

  it("a suspended owner's workspace key fails on the next request", async () => {
    const { apiKey, workspaceId } = await first.admin.createWorkspace()
    const { userId } = await first.admin.createUser({ workspaceId, email: "owner@example.com", password: "password1", role: "owner", timezone: null })
    await warm(apiKey)
    await withDb(world, (c) => c.query("UPDATE users SET suspended = true WHERE id = $1", [userId]))
    expect(errorOf(await isConnected(second, apiKey)).error).toBe("Invalid API key")
  })

  it("a billing change through one replica's operations gates the next request on the other", async () => {
    const { apiKey, workspaceId } = await first.admin.createWorkspace()
    await warm(apiKey)
    await first.admin.setBilling({ workspaceId, event: "ended" })
    const ended = await isConnected(second, apiKey)
    expect(ended.status).toBe(401)
    expect(errorOf(ended).code).toBe("no_subscription")
    await first.admin.setBilling({ workspaceId, event: "activated" })
    expect((await isConnected(second, apiKey)).status).toBe(200)
  })

  it("a replica whose invalidation connection was cut does not answer from what it held", async () => {
    const { apiKey, workspaceId } = await first.admin.createWorkspace()
    await warm(apiKey)
    // every gateway's LISTEN connection: cut, then the key rotated before they are back
    await withDb(world, (c) =>
      c.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'post-scheduler-auth-listener' AND datname = current_database()"
      )
    )
    await first.admin.rotateKey(workspaceId)
    expect((await isConnected(second, apiKey)).status).toBe(401)
    expect((await isConnected(first, apiKey)).status).toBe(401)
  })
})
