import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { Schema } from "effect"
import { answerFrom, client, decode, errorOf, type Answer } from "../support/http.js"
import { everyItemSettles, testNetworkCopies } from "../support/publishingProcesses.js"
import { privatePostgres } from "../support/privatePostgres.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { notExactlyOnePost, postStream, resendUnavailable } from "../support/resentPosts.js"
import { sleep } from "../support/wait.js"

/**
 * Postgres stopped (a fast stop: sessions ended with 57P01, new connections refused) for
 * about six seconds under a steady stream of POST /posts, then started again (issue 37).
 * Every service runs in this process on a PRIVATE cluster (its own port and files; the
 * shared server is never touched). Every answer meanwhile is 200 or 503 with Retry-After,
 * never a 500 and never a hang; each 503'd request sent again with its Idempotency-Key
 * after the restart makes its post, and every request ends with exactly one post; posts
 * that fell due during the outage go out after it, each once.
 */

/** A tools/call answer, as far as this test reads it. */
const ToolResult = Schema.Struct({
  jsonrpc: Schema.Literal("2.0"),
  id: Schema.Number,
  result: Schema.Struct({ isError: Schema.Boolean, structuredContent: Schema.Struct({ code: Schema.optional(Schema.String) }) })
})

let pg: Awaited<ReturnType<typeof privatePostgres>>
let world: TestWorld
let services: RunningServices

beforeAll(async () => {
  pg = await privatePostgres()
  world = await createWorld("pgdown", { ...inject("servers"), databaseUrl: pg.url })
  services = await startServices(world)
}, 120_000)
afterAll(async () => {
  await services?.stop()
  await world?.drop().catch(() => undefined)
  await pg?.remove()
})

describe("Postgres stopped and started again under POST /posts", () => {
  it("answers 200 or 503 with Retry-After, never 500; a resent 503 makes its post once; due posts go out once after", async () => {
    const channels: Array<{ api: ReturnType<typeof client>; key: string; channelId: string; workspaceId: string }> = []
    // three workspaces share the stream: each stays under the 90-an-hour window of POST /posts
    for (let n = 0; n < 3; n++) {
      const ws = await services.admin.createWorkspace(`Outage ${n}`, "ultimate")
      const { channelId } = await services.admin.createChannel({
        workspaceId: ws.workspaceId,
        network: "test",
        name: `Test ${n}`,
        customerId: null,
        postingTimes: []
      })
      channels.push({ api: client(services.url, ws.apiKey), key: ws.apiKey, channelId, workspaceId: ws.workspaceId })
    }
    const run = crypto.randomUUID().slice(0, 8)

    // due while Postgres is down (the scheduler claims up to 2 s ahead: it will find nothing to claim with)
    const dueAt = new Date(Date.now() + 7_000)
    const due = await Promise.all(
      channels.map(async ({ api, channelId }, n) => {
        const content = `due in the outage ${n} ${run}`
        const r = await api.post("/public/v1/posts", {
          type: "schedule",
          date: dueAt.toISOString(),
          posts: [{ integration: { id: channelId }, value: [{ content }] }]
        })
        expect(r.status).toBe(200)
        return content
      })
    )

    const stream = postStream("outage", run, (n) => channels[n % channels.length]!)
    const { sent } = stream

    await sleep(1_500)
    await pg.stop()
    await sleep(3_000)
    // MCP meanwhile: the REST 503 (the key could not be checked) or the tool's service_unavailable, never an internal error
    const mcp = await answerFrom(
      await fetch(`${services.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${channels[0]!.key}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_channels", arguments: {} } })
      })
    )
    await sleep(3_000)
    await pg.start()
    // the stream goes on a while after the restart: the pool and the listener come back
    await sleep(4_000)
    await stream.stop()

    const first = sent.map((s) => s.answers[0]!)
    const statuses = first.map((a) => (a === "no answer" ? "no answer" : a.status))
    // none hung, none was a 500: each is a success or a retryable 503
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([])
    const unavailable = first.filter((a): a is Answer => a !== "no answer" && a.status === 503)
    // the outage was seen (the test would prove nothing otherwise)
    expect(unavailable.length).toBeGreaterThan(0)
    for (const a of unavailable) {
      expect(Number(a.headers.get("retry-after"))).toBeGreaterThan(0)
      const body = errorOf(a)
      expect(body.msg).toBe(body.error)
      expect(body.code).toBe("service_unavailable")
      expect(body.fix).toMatch(/retry after \d+ seconds/)
    }
    if (mcp.status === 503) {
      expect(Number(mcp.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(errorOf(mcp).code).toBe("service_unavailable")
    } else {
      expect(mcp.status).toBe(200)
      expect(decode(ToolResult, mcp.json, "the MCP answer", { exact: false }).result).toMatchObject({
        isError: true,
        structuredContent: { code: "service_unavailable" }
      })
    }
    // requests after the restart are answered again
    expect(statuses.slice(-5)).toEqual([200, 200, 200, 200, 200])

    // every 503'd request sent again with its key: it makes its post (or answers the one it made)
    await resendUnavailable(sent)

    const contents = sent.map((s) => s.content)
    // exactly one post for every request of the stream, none twice, none lost
    expect(await notExactlyOnePost(world, sent)).toEqual([])

    // everything goes out: due posts once, after the restart; nothing twice
    const items = await everyItemSettles(
      world,
      channels.map((c) => c.workspaceId),
      120_000
    )
    for (const content of due) expect(items.find((i) => i.content === content)?.status).toBe("published")
    const copies = await testNetworkCopies(world, [...due, ...contents])
    for (const content of due) expect(copies.get(content)).toBe(1)
    expect([...copies.values()].filter((n) => n > 1)).toEqual([])
  }, 240_000)
})
