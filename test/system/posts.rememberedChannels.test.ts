import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client } from "../support/http.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { created } from "../support/answers.js"

/**
 * The post writer remembers the channel rows a new post was checked against
 * (services/posts/channelMemory.ts), so the next post of the channel costs no read. A
 * channel changed by anything (an API call, the publisher's token refresh, an operator's
 * SQL) must answer exactly what it answers when nothing is remembered: every change below
 * is made behind the actor's back, straight in Postgres, after the row was remembered.
 */

let world: TestWorld
let sys: RunningServices

beforeAll(async () => {
  world = await createWorld("remembered-channels")
  sys = await startServices(world, ["gateway", "actors"])
})
afterAll(async () => {
  await sys?.stop()
  await world?.drop()
})

const newWorkspace = async (customer?: { approval: boolean }) => {
  const { workspaceId, apiKey } = await sys.admin.createWorkspace()
  const customerId =
    customer === undefined ? null : (await sys.admin.createCustomer({ workspaceId, name: "Client", approval: customer.approval })).customerId
  const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Remembered", customerId, postingTimes: [] })
  return { workspaceId, channelId, customerId, api: () => client(sys.url, apiKey) }
}

const schedule = (channelId: string, content: string) => ({
  type: "schedule",
  date: new Date(Date.now() + 3600_000).toISOString(),
  shortLink: false,
  tags: [],
  posts: [{ integration: { id: channelId }, value: [{ content }], settings: { __type: "test" } }]
})

const sql = (text: string, params: ReadonlyArray<unknown>) => withDb(world, (c) => c.query(text, [...params]))

const groupCount = async (workspaceId: string) =>
  (await withDb(world, (c) => c.query("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1", [workspaceId]))).rows[0].n as number

describe("POST /posts against remembered channel rows", () => {
  it("a channel that needs reconnecting since its row was remembered is refused, and allowed again once reconnected", async () => {
    const w = await newWorkspace()
    expect((await w.api().post("/public/v1/posts", schedule(w.channelId, "first"))).status).toBe(200)
    // what the publisher's failed token refresh does (services/networks/credentials.ts)
    await sql("UPDATE channels SET refresh_needed = true WHERE id = $1", [w.channelId])
    const refused = await w.api().post("/public/v1/posts", schedule(w.channelId, "while it needs reconnecting"))
    expect(refused.status).toBe(400)
    expect(JSON.stringify(refused.json)).toContain("Remembered")
    // the refusal's row (refresh needed) is the remembered one now: it must not refuse a reconnected channel
    await sql("UPDATE channels SET refresh_needed = false WHERE id = $1", [w.channelId])
    expect((await w.api().post("/public/v1/posts", schedule(w.channelId, "reconnected"))).status).toBe(200)
    expect(await groupCount(w.workspaceId)).toBe(2)
  })

  it("a channel disconnected since: the post is refused as for an unknown channel, and nothing is written", async () => {
    const w = await newWorkspace()
    expect((await w.api().post("/public/v1/posts", schedule(w.channelId, "before"))).status).toBe(200)
    await sql("UPDATE channels SET deleted_at = now() WHERE id = $1", [w.channelId])
    const gone = await w.api().post("/public/v1/posts", schedule(w.channelId, "after"))
    const unknown = await w.api().post("/public/v1/posts", schedule(crypto.randomUUID(), "never a channel"))
    expect(gone.status).toBe(unknown.status)
    expect(gone.json).toEqual(unknown.json)
    expect(await groupCount(w.workspaceId)).toBe(1)
  })

  it("a customer who turned approval on since (a change of another row than the channel's): the post waits as one of an approving customer", async () => {
    const approving = await newWorkspace({ approval: true })
    const waits = created(await approving.api().post("/public/v1/posts", schedule(approving.channelId, "approval from the start"))).status
    const w = await newWorkspace({ approval: false })
    const before = await w.api().post("/public/v1/posts", schedule(w.channelId, "no approval yet"))
    expect(created(before).status).toBe("queued")
    expect(waits).not.toBe("queued")
    await sql("UPDATE customers SET approval = true WHERE id = $1", [w.customerId])
    const after = await w.api().post("/public/v1/posts", schedule(w.channelId, "approval now"))
    expect(after.status).toBe(200)
    expect(created(after).status).toBe(waits)
  })

  it("a renamed channel: a refusal names the channel as it is now, not as remembered", async () => {
    const w = await newWorkspace()
    expect((await w.api().post("/public/v1/posts", schedule(w.channelId, "old name"))).status).toBe(200)
    await sql("UPDATE channels SET name = 'Renamed' WHERE id = $1", [w.channelId])
    const res = await w.api().post("/public/v1/posts", { ...schedule(w.channelId, "x".repeat(5000)) })
    // the test network's length rule names the channel in its message
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.json)).toContain("Renamed")
    expect(JSON.stringify(res.json)).not.toContain("Remembered")
  })
})
