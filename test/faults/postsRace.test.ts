import { connect, type KV, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shardOf } from "../../domain/shards.js"
import { names } from "../../protocol/names.js"
import { leaseReader } from "../support/shardLeases.js"
import { sleep } from "../support/wait.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { withDb } from "../support/tokens.js"
import { created } from "../support/answers.js"
import { errorOf } from "../support/http.js"

/**
 * POST /posts with Idempotency-Keys while the actor host that owns the workspace's
 * shard is SIGKILLed (spec: rule 4, "Publishing never sends one post twice", security
 * notes: "a crash between commit and answer -> the retry replays, no second post").
 * The gateway runs here; two actor hosts run as separate processes.
 *
 * Invariants: every acknowledged (200) request's post exists exactly once; retrying
 * every key, also the ones that failed or timed out, gives exactly one post per key.
 */

const SHARDS = 8 // world.env SHARD_COUNT
const CLIENT_TIMEOUT_MS = 10_000

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection
let leases: KV
let owners: ReturnType<typeof leaseReader>["owners"]
let waitForOwners: ReturnType<typeof leaseReader>["waitForOwners"]
const hosts = processGroup()

/** POST /posts with a client-side timeout; a timeout or a broken connection is `null`. */
const postWithKey = async (apiKey: string, body: unknown, key: string) => {
  try {
    const res = await fetch(`${sys.url}/public/v1/posts`, {
      method: "POST",
      headers: { authorization: apiKey, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS)
    })
    const text = await res.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { status: res.status, json, replayed: res.headers.get("idempotent-replayed") === "true" }
  } catch {
    return null
  }
}

beforeAll(async () => {
  world = await createWorld("postsrace")
  sys = await startServices(world, ["gateway"])
  nc = await connect({ servers: world.natsUrl })
  leases = await nc.jetstream().views.kv(names(world.namespace).shardLeasesBucket, { bindOnly: true })
  ;({ owners, waitForOwners } = leaseReader(leases, SHARDS))
}, 60_000)

afterAll(async () => {
  await hosts.stopAll()
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

describe("POST /posts while the owning actor host is SIGKILLed", () => {
  it("acknowledged writes exist exactly once; retrying every key yields exactly one post per key", async () => {
    const [first, second] = await Promise.all([
      hosts.start(world, ["actors"], { label: "host 1" }),
      hosts.start(world, ["actors"], { label: "host 2" })
    ])
    const { workspaceId, apiKey } = await sys.admin.createWorkspace("Racing workspace")
    const { channelId } = await sys.admin.createChannel({ workspaceId, network: "test", name: "Race", customerId: null, postingTimes: [] })
    const shard = shardOf(workspaceId, SHARDS)
    const map = await waitForOwners(
      (m) =>
        m.size === SHARDS &&
        [...m.values()].filter((h) => h === first.id).length === SHARDS / 2 &&
        [...m.values()].filter((h) => h === second.id).length === SHARDS / 2,
      30_000,
      "the two hosts did not share the shards"
    )
    const victim: ServiceProcess = map.get(shard) === first.id ? first : second
    const survivor: ServiceProcess = victim === first ? second : first
    expect(map.get(shard)).toBe(victim.id)

    const bodyFor = (i: number) => ({ type: "draft", posts: [{ integration: { id: channelId }, value: [{ content: `race ${i}` }] }] })
    const keyFor = (i: number) => `race-key-${i}`
    // warm-up: the path works before the crash
    const warm = await postWithKey(apiKey, bodyFor(-1), keyFor(-1))
    expect(warm?.status).toBe(200)

    // keyed requests go out at a steady pace, not waiting for answers, so some are
    // queued in the owner's mailbox, some in flight and some sent after the kill
    const results = new Map<number, Awaited<ReturnType<typeof postWithKey>>>()
    const pending: Array<Promise<void>> = []
    let next = 0
    let acknowledged = 0
    // POST /posts allows 90 requests an hour per workspace, counted by the owner:
    // at most 30 before the kill and 10 after it, so the retries below stay under it
    const send = async (count: number) => {
      for (let n = 0; n < count; n++) {
        const i = next++
        pending.push(
          postWithKey(apiKey, bodyFor(i), keyFor(i)).then((res) => {
            results.set(i, res)
            if (res?.status === 200) acknowledged++
          })
        )
        await sleep(40)
      }
    }
    const beforeKill = send(22)
    const killDeadline = Date.now() + 20_000
    while (acknowledged < 10 && Date.now() < killDeadline) await sleep(5)
    expect(acknowledged).toBeGreaterThanOrEqual(10)
    // the owner has not changed since it was looked up
    expect((await owners()).get(shard)).toBe(victim.id)
    // a burst right before the kill: these are queued in the owner's mailbox or running
    // when it dies, however fast the machine answers
    for (let n = 0; n < 8; n++) {
      const i = next++
      pending.push(
        postWithKey(apiKey, bodyFor(i), keyFor(i)).then((res) => {
          results.set(i, res)
          if (res?.status === 200) acknowledged++
        })
      )
    }
    // long enough to reach the owner, too short for its mailbox to finish all of them
    await sleep(25)
    const sentBeforeKill = next
    const inFlightAtKill = sentBeforeKill - results.size
    const exit = await victim.kill("SIGKILL")
    expect(exit.signal).toBe("SIGKILL")
    await beforeKill
    // more requests during the hand-over, then wait for every answer (or timeout)
    await send(10)
    await Promise.all(pending)
    const total = next
    const firstRound = [...results.entries()]
    const ok = firstRound.filter(([, r]) => r?.status === 200)
    const failed = firstRound.filter(([, r]) => r?.status !== 200)
    console.log(
      `${total} keyed requests: ${sentBeforeKill} sent before the kill (${inFlightAtKill} in flight at the kill), ` +
        `${ok.length} answered 200, ${failed.length} failed or timed out (` +
        `${failed.map(([, r]) => (r === null ? "timeout" : r.status)).join(",")})`
    )
    expect(inFlightAtKill).toBeGreaterThan(0)
    // every answer was 200, a server error, 409 still running, or nothing (timeout/reset)
    for (const [, r] of failed) {
      if (r !== null) expect([409, 500, 502, 503, 504]).toContain(r.status)
    }

    const postsByContent = () =>
      withDb(world, async (c) => {
        const rows = await c.query(
          `SELECT i.content, count(DISTINCT p.group_id)::int AS groups, count(*)::int AS posts
           FROM posts p JOIN post_items i ON i.post_id = p.id AND i.position = 0
           WHERE p.workspace_id = $1 AND p.deleted_at IS NULL GROUP BY i.content`,
          [workspaceId]
        )
        return new Map(rows.rows.map((r) => [r.content as string, { groups: r.groups as number, posts: r.posts as number }]))
      })

    // every acknowledged write exists, once
    const afterCrash = await postsByContent()
    const committedUnacknowledged = failed.filter(([i]) => afterCrash.has(`race ${i}`)).length
    console.log(`${committedUnacknowledged} of the failed requests had been committed before the crash`)
    for (const [i, r] of ok) {
      expect({ i, found: afterCrash.get(`race ${i}`) }).toEqual({ i, found: { groups: 1, posts: 1 } })
      const group = created(r!).group
      const stored = await withDb(world, (c) => c.query("SELECT 1 FROM post_groups WHERE id = $1 AND deleted_at IS NULL", [group]))
      expect(stored.rowCount).toBe(1)
    }

    // retry every key once the survivor owns the shard. POST /posts allows 90 requests an
    // hour per workspace (in the owner's memory), so keys are retried once each, and
    // again only while an abandoned request with that key is still running there.
    await waitForOwners((m) => m.get(shard) === survivor.id, 20_000, "the survivor did not take the shard")
    const retryUntilAnswered = async (i: number) => {
      for (let attempt = 1; ; attempt++) {
        const r = await postWithKey(apiKey, bodyFor(i), keyFor(i))
        if (r?.status === 200) return r
        const stillRunning = r?.status === 409 && errorOf(r).error === "A request with this Idempotency-Key is still running."
        if (!stillRunning || attempt >= 8) {
          throw new Error(`key ${i} was not answered 200 on retry ${attempt}: ${r === null ? "timeout" : `${r.status} ${JSON.stringify(r.json)}`}`)
        }
        await sleep(1000)
      }
    }
    const retried = await Promise.all(Array.from({ length: total }, (_, i) => retryUntilAnswered(i).then((r) => [i, r] as const)))
    for (const [i, r] of retried) {
      const original = results.get(i)
      if (original?.status === 200) {
        // an acknowledged write replays its first answer
        expect({ i, replayed: r.replayed, body: r.json }).toEqual({ i, replayed: true, body: original.json })
      }
    }
    // abandoned gateway requests may still land on the survivor; let them settle
    await sleep(1000)
    const final = await postsByContent()
    for (let i = 0; i < total; i++) {
      expect({ i, found: final.get(`race ${i}`) }).toEqual({ i, found: { groups: 1, posts: 1 } })
      const answer = retried.find(([j]) => j === i)![1]
      const group = created(answer).group
      const stored = await withDb(world, (c) => c.query("SELECT 1 FROM post_groups WHERE id = $1 AND deleted_at IS NULL", [group]))
      expect({ i, stored: stored.rowCount }).toEqual({ i, stored: 1 })
    }
    // nothing beyond the keyed requests (and the warm-up) was created
    const groups = await withDb(
      world,
      async (c) =>
        (await c.query("SELECT count(*)::int AS n FROM post_groups WHERE workspace_id = $1 AND deleted_at IS NULL", [workspaceId])).rows[0].n
    )
    expect(groups).toBe(total + 1)
    const keys = await withDb(
      world,
      async (c) => (await c.query("SELECT count(*)::int AS n FROM idempotency_keys WHERE workspace_id = $1", [workspaceId])).rows[0].n
    )
    expect(keys).toBe(total + 1)
    expect(survivor.running()).toBe(true)
  }, 120_000)
})
