import { Effect, Exit, Schema } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { InvalidRequest } from "../../../domain/errors.js"
import type { Principal } from "../../../domain/roles.js"
import { ActorReplyJson, ActorRequestJson, DeletePost, RetryPost, SetPostSettings } from "../../../protocol/actors.js"
import { causeToResponse } from "../../../services/gateway/errorResponse.js"
import { DatabaseOutage } from "../../../services/platform/databaseOutage.js"
import { makeMemorySharding } from "../../support/memorySharding.js"

/**
 * The sharding engine's rules on its memory stores (no NATS, no Postgres): real hosts,
 * lease manager, mailboxes, fences, payloads by reference and client
 * (services/sharding/), with a small entity (test/support/memorySharding.ts).
 */

const TTL = 1_500
const ROUND = 200
const SHARDS = 4

let sharding: ReturnType<typeof makeMemorySharding> | undefined
afterEach(async () => {
  await sharding?.close()
  sharding = undefined
})

const start = (workMs?: () => number) => {
  sharding = makeMemorySharding({ shardCount: SHARDS, leaseTtlMs: TTL, roundMs: ROUND, ...(workMs === undefined ? {} : { workMs }) })
  return sharding
}

const deletePost = (s: ReturnType<typeof makeMemorySharding>, principal: Principal) =>
  Effect.runPromise(s.client.send(principal, new DeletePost({ postId: crypto.randomUUID() })))

describe("shard hosts on memory stores", () => {
  it("a command runs on the host that holds its shard's lease, once, under that lease's epoch", async () => {
    const s = start(() => Math.random() * 3)
    const first = await s.startHost()
    const second = await s.startHost()
    const owners = await s.waitFor(
      s.owners,
      (m) => m.size === SHARDS && [...m.values()].filter((h) => h === first.hostId).length === SHARDS / 2,
      10_000,
      "the two hosts did not share the shards"
    )
    const principals = [...s.workspaces(3).values()].flat()
    const answers = await Promise.all(principals.flatMap((p) => [deletePost(s, p), deletePost(s, p)]))
    expect(answers).toEqual(
      principals.flatMap(() => [
        { error: false, success: true },
        { error: false, success: true }
      ])
    )

    expect(s.ran).toHaveLength(principals.length * 2)
    expect(new Set(s.ran.map((r) => r.commandId)).size).toBe(s.ran.length)
    for (const r of s.ran) expect(r.host).toBe(owners.get(r.shard))
    expect(new Set(s.ran.map((r) => r.host))).toEqual(new Set([first.hostId, second.hostId]))
    // each shard's epoch is the one its owner raised it to when it took the shard
    for (const r of s.ran) await Effect.runPromise(s.fences.check(r.shard, r.epoch))
  })

  it("a workspace's commands run one at a time, in the order they reached its host", async () => {
    const s = start(() => 1 + Math.random() * 4)
    await s.startHost()
    await s.waitFor(s.owners, (m) => m.size === SHARDS, 10_000, "the host did not take every shard")
    const [one, other] = [...s.workspaces(1).values()].flat()
    if (one === undefined || other === undefined) throw new Error("two workspaces expected")
    await Promise.all([...Array.from({ length: 12 }, () => deletePost(s, one)), ...Array.from({ length: 12 }, () => deletePost(s, other))])

    for (const workspace of [one, other]) {
      const runs = s.ran.filter((r) => r.workspaceId === workspace.workspaceId)
      expect(runs).toHaveLength(12)
      // in arrival order, each ended before the next started
      const arrival = s.arrived.filter((id) => runs.some((r) => r.commandId === id))
      expect(runs.map((r) => r.commandId)).toEqual(arrival)
      runs.slice(1).forEach((run, i) => {
        expect(run.started).toBeGreaterThanOrEqual(runs[i]?.ended ?? Number.POSITIVE_INFINITY)
      })
    }
    // two workspaces are not one line: their commands overlapped
    const spans = (id: string) => s.ran.filter((r) => r.workspaceId === id)
    const overlaps = spans(one.workspaceId).some((a) => spans(other.workspaceId).some((b) => a.started < b.ended && b.started < a.ended))
    expect(overlaps).toBe(true)
  })

  it("a host that lost its lease answers NotOwner and runs nothing; back, it takes the shard under a new epoch", async () => {
    const s = start()
    const host = await s.startHost()
    await s.waitFor(s.owners, (m) => m.size === SHARDS, 10_000, "the host did not take every shard")
    const [principal] = s.workspaces(1).get(0) ?? []
    if (principal === undefined) throw new Error("a workspace on shard 0 expected")
    await deletePost(s, principal)
    const before = s.ran[0]?.epoch
    expect(before).toBe(1)

    // cut from the lease store: nothing renewed, the leases expire, the host stays subscribed
    host.pauseLeases()
    await s.waitFor(s.owners, (m) => m.size === 0, 5_000, "the leases did not expire")
    expect(host.holds(0)).toBe(false)
    const reply = await Effect.runPromise(
      s.bus.requests.request(
        s.subjectOf(0),
        Schema.encodeSync(ActorRequestJson)({
          _tag: "Inline",
          envelope: { commandId: crypto.randomUUID(), attempt: 1, principal, command: new DeletePost({ postId: "p" }) }
        }),
        undefined,
        2_000
      )
    )
    expect(Schema.decodeUnknownSync(ActorReplyJson)(reply.string())).toEqual({ _tag: "NotOwner" })
    expect(s.ran).toHaveLength(1)

    host.resumeLeases()
    await s.waitFor(s.owners, (m) => m.size === SHARDS, 5_000, "the host did not take its shards back")
    await deletePost(s, principal)
    expect(s.ran).toHaveLength(2)
    expect(s.ran[1]?.epoch).toBe(2)
    // the first epoch can commit no more
    expect(Exit.isFailure(await Effect.runPromiseExit(s.fences.check(0, 1)))).toBe(true)
  })

  it("shards move when a paused host's leases expire; its stale epoch commits nothing and it runs nothing when it wakes", async () => {
    const s = start()
    const paused = await s.startHost()
    const survivor = await s.startHost()
    const shared = await s.waitFor(
      s.owners,
      (m) => m.size === SHARDS && [...m.values()].filter((h) => h === paused.hostId).length === SHARDS / 2,
      10_000,
      "the two hosts did not share the shards"
    )
    const pausedShards = [...shared].filter(([, h]) => h === paused.hostId).map(([shard]) => shard)
    const principals = [...s.workspaces(2).values()].flat()

    paused.pause()
    const sent = Date.now()
    // commands sent now wait for the paused host's leases to expire, then the survivor answers them
    const answers = await Promise.all(principals.map((p) => deletePost(s, p)))
    expect(answers).toHaveLength(principals.length)
    expect(Date.now() - sent).toBeGreaterThanOrEqual(TTL / 2)
    const after = await s.owners()
    expect([...after.values()]).toEqual(Array(SHARDS).fill(survivor.hostId))
    expect(s.ran.every((r) => r.host === survivor.hostId)).toBe(true)
    expect(s.ran).toHaveLength(principals.length)

    // the paused host's epochs are stale: a write under them is refused
    for (const shard of pausedShards) {
      const moved = s.ran.find((r) => r.shard === shard)
      expect(moved?.epoch).toBe(2)
      expect(Exit.isFailure(await Effect.runPromiseExit(s.fences.check(shard, 1)))).toBe(true)
    }

    // awake: what was sent to it meanwhile is answered NotOwner (nothing of it runs); it finds
    // its leases gone, and takes its share again under new epochs
    const duringPause = new Set(s.ran.map((r) => r.commandId))
    paused.resume()
    const reshared = await s.waitFor(
      s.owners,
      (m) => m.size === SHARDS && [...m.values()].filter((h) => h === paused.hostId).length === SHARDS / 2,
      10_000,
      "the woken host did not get its share back"
    )
    expect(s.ran.filter((r) => r.host === paused.hostId && duringPause.has(r.commandId))).toEqual([])
    await Promise.all(principals.map((p) => deletePost(s, p)))
    const later = s.ran.filter((r) => !duringPause.has(r.commandId))
    expect(later).toHaveLength(principals.length)
    for (const r of later) {
      expect(r.host).toBe(reshared.get(r.shard))
      await Effect.runPromise(s.fences.check(r.shard, r.epoch))
    }
  })

  it("a command and an answer over the message limit travel by reference and come back whole", async () => {
    const s = start()
    await s.startHost()
    await s.waitFor(s.owners, (m) => m.size === SHARDS, 10_000, "the host did not take every shard")
    const [principal] = [...s.workspaces(1).values()].flat()
    if (principal === undefined) throw new Error("a workspace expected")

    const settings = { text: "é".repeat(300_000), nested: { list: Array.from({ length: 1000 }, (_, i) => i) } }
    const exit = await Effect.runPromiseExit(s.client.send(principal, new SetPostSettings({ postId: "p", settings })))
    expect(exit).toEqual(Exit.fail(new InvalidRequest({ error: JSON.stringify(settings) })))
    // the command and its answer were stored, and both removed once read
    expect(s.payloads.written()).toBe(2)
    expect(s.payloads.kept()).toBe(0)

    // a small one travels inline
    await deletePost(s, principal)
    expect(s.payloads.written()).toBe(2)
  })
})

describe("Postgres out of reach under an actor's command", () => {
  it("the host answers a command that met it so that the gateway answers 503 with Retry-After", async () => {
    const s = start()
    await s.startHost()
    await s.waitFor(s.owners, (m) => m.size === SHARDS, 10_000, "the host did not take every shard")
    const [principal] = [...s.workspaces(1).values()].flat()
    if (principal === undefined) throw new Error("a workspace expected")
    const exit = await Effect.runPromiseExit(s.client.send(principal, new RetryPost({ postId: crypto.randomUUID() })))
    if (Exit.isSuccess(exit)) throw new Error("the command should have failed")
    const response = await Effect.runPromise(causeToResponse(exit.cause, "support@example.com"))
    expect(response.status).toBe(503)
    expect(response.headers["retry-after"]).toBe("5")
  })

  it("the Exit dispatch sends for it keeps the outage through the command's own schemas", async () => {
    const command = new DeletePost({ postId: crypto.randomUUID() })
    const encoded = await Effect.runPromise(Schema.serializeExit(command, Exit.die(new DatabaseOutage({ message: "m" }))))
    const exit = await Effect.runPromise(Schema.deserializeExit(command, JSON.parse(JSON.stringify(encoded))))
    if (Exit.isSuccess(exit)) throw new Error("a failure expected")
    expect((await Effect.runPromise(causeToResponse(exit.cause, "support@example.com"))).status).toBe(503)
  })
})
