import { connect, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shardOf } from "../../domain/shards.js"
import { created, present, wholePost } from "../support/answers.js"
import { answerFrom, type Answer } from "../support/http.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { startTwoActorHosts } from "../support/shardLeases.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { sleep } from "../support/wait.js"

/**
 * A stalled actor host (docs/architecture.md, "Fencing and commands that run once"; a host that lost its lease can no longer
 * commit). The host that owns the workspaces is paused with SIGSTOP for longer than its
 * lease while un-keyed creates, moves and deletes keep coming, then resumed: it wakes up
 * with commands buffered that the new owner has run meanwhile.
 *
 * Outcomes: no request made two posts; every 200 has its post (or its change, or its
 * deletion); every request is answered.
 */

const SHARDS = 8 // world.env SHARD_COUNT
const PAUSE_MS = 12_000 // the lease lives 6 s

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection
const hosts = processGroup()

beforeAll(async () => {
  world = await createWorld("actorpause")
  sys = await startServices(world, ["gateway"])
  nc = await connect({ servers: world.natsUrl })
}, 60_000)

afterAll(async () => {
  await hosts.stopAll()
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

type Reply = Answer | null

const call = async (apiKey: string, method: string, path: string, body?: unknown): Promise<Reply> => {
  try {
    const res = await fetch(`${sys.url}${path}`, {
      method,
      headers: { authorization: apiKey, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000)
    })
    return await answerFrom(res)
  } catch {
    return null
  }
}

describe("an actor host paused longer than its lease, then resumed", () => {
  it("runs no command twice: 0 duplicated posts, every 200 answer has its post, every request answered", async () => {
    const { first, owners: map } = await startTwoActorHosts(hosts, world, nc, SHARDS)

    // workspaces on the paused host's shards (POST /posts allows 90 an hour per workspace)
    const victim: ServiceProcess = first
    const workspaces: Array<{ apiKey: string; channelId: string; drafts: Array<string> }> = []
    while (workspaces.length < 4) {
      const { apiKey, workspaceId } = await sys.admin.createWorkspace()
      if (map.get(shardOf(workspaceId, SHARDS)) !== victim.id) continue
      const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Paused", customerId: null, postingTimes: [] })
      workspaces.push({ apiKey, channelId, drafts: [] })
    }
    const later = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString()
    // drafts to move and delete during the pause
    for (const w of workspaces) {
      for (let i = 0; i < 12; i++) {
        const res = await call(w.apiKey, "POST", "/public/v1/posts", {
          type: "draft",
          date: later(10),
          content: `draft ${i}`,
          channels: [w.channelId]
        })
        expect(res?.status).toBe(200)
        w.drafts.push(created(present(res ?? undefined, "the draft's answer")).group)
      }
    }

    const creates: Array<{ marker: string; answer: Promise<Reply> }> = []
    const moves: Array<{ apiKey: string; group: string; date: string; answer: Promise<Reply> }> = []
    const deletes: Array<{ group: string; answer: Promise<Reply> }> = []
    let running = true
    const stream = (async () => {
      for (let round = 0; running; round++) {
        for (const [n, w] of workspaces.entries()) {
          const marker = `create ${n}-${round}`
          creates.push({
            marker,
            answer: call(w.apiKey, "POST", "/public/v1/posts", { type: "draft", date: later(20), content: marker, channels: [w.channelId] })
          })
          const group = w.drafts.shift()
          if (group !== undefined && round % 2 === 0) {
            const date = later(30 + round)
            moves.push({ apiKey: w.apiKey, group, date, answer: call(w.apiKey, "PUT", `/public/v1/posts/${group}/date`, { date }) })
          } else if (group !== undefined) {
            deletes.push({ group, answer: call(w.apiKey, "DELETE", `/public/v1/posts/${group}`) })
          }
        }
        await sleep(250)
      }
    })()

    await sleep(1500)
    process.kill(victim.pid, "SIGSTOP")
    await sleep(PAUSE_MS)
    process.kill(victim.pid, "SIGCONT")
    await sleep(4000)
    running = false
    await stream

    const settledCreates = await Promise.all(creates.map(async (c) => ({ ...c, res: await c.answer })))
    const settledMoves = await Promise.all(moves.map(async (m) => ({ ...m, res: await m.answer })))
    const settledDeletes = await Promise.all(deletes.map(async (d) => ({ ...d, res: await d.answer })))
    const statuses = [...settledCreates, ...settledMoves, ...settledDeletes].map((r) => r.res?.status ?? "no answer")
    console.log(`${creates.length} creates, ${moves.length} moves, ${deletes.length} deletes; statuses: ${JSON.stringify(count(statuses))}`)

    const stored = await withDb(
      world,
      async (c) =>
        (
          await c.query(
            `SELECT i.content, p.id FROM post_items i JOIN posts p ON p.id = i.post_id WHERE i.content LIKE 'create %' AND p.deleted_at IS NULL`
          )
        ).rows
    )
    const byMarker = new Map<string, Array<string>>()
    for (const row of stored) byMarker.set(row.content, [...(byMarker.get(row.content) ?? []), row.id])
    const duplicated = [...byMarker].filter(([, ids]) => ids.length > 1).map(([marker]) => marker)
    expect(duplicated).toEqual([])
    for (const c of settledCreates) {
      if (c.res?.status === 200) expect(byMarker.get(c.marker)).toEqual([created(c.res).postId])
    }
    for (const m of settledMoves) {
      if (m.res?.status !== 200) continue
      const post = await call(m.apiKey, "GET", `/public/v1/posts/${m.group}`)
      expect(wholePost(present(post ?? undefined, "the moved post")).publishAt).toBe(m.date)
    }
    for (const d of settledDeletes) {
      if (d.res?.status !== 200) continue
      const gone = await withDb(world, async (c) => (await c.query("SELECT deleted_at FROM post_groups WHERE id = $1", [d.group])).rows[0])
      expect(gone.deleted_at).not.toBeNull()
    }
    // every request was answered, and none with a server error
    expect(statuses.filter((s) => s !== 200)).toEqual([])
  }, 120_000)
})

const count = (values: ReadonlyArray<unknown>) => {
  const counts: Record<string, number> = {}
  for (const v of values) counts[String(v)] = (counts[String(v)] ?? 0) + 1
  return counts
}
