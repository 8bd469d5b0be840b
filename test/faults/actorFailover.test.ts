import { Schema } from "effect"
import { connect, createInbox, type KV, type NatsConnection } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { shardOf } from "../../domain/shards.js"
import { ActorRequestJson, DeleteChannel } from "../../protocol/actors.js"
import { names } from "../../protocol/names.js"
import { LEASE_TTL_MS } from "../../services/platform/nats.js"
import { client } from "../support/http.js"
import { leaseReader } from "../support/shardLeases.js"
import { sleep } from "../support/wait.js"
import { processGroup, type ServiceProcess } from "../support/processes.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"
import { WorkspaceId } from "../../domain/ids.js"

/**
 * Workspace actors across processes: the gateway runs here, two actor hosts run as
 * separate processes and share the shards through leases in NATS KV. Killing one
 * (SIGKILL) moves its shards to the other once its leases expire; stopping one
 * (SIGTERM) hands them over at once. Requests keep being answered throughout.
 */

const SHARDS = 8 // world.env SHARD_COUNT
const encodeRequest = Schema.encodeSync(ActorRequestJson)

interface Workspace {
  readonly workspaceId: string
  readonly apiKey: string
  readonly shard: number
  /** One channel per phase, each deleted once through the actors. */
  readonly channels: ReadonlyArray<string>
}

let world: TestWorld
let sys: RunningServices
let nc: NatsConnection
let leases: KV
let owners: ReturnType<typeof leaseReader>["owners"]
let waitForOwners: ReturnType<typeof leaseReader>["waitForOwners"]
const hosts = processGroup()
const workspaces: Array<Workspace> = []

const shardsOf = (map: Map<number, string>, hostId: string) => [...map].filter(([, h]) => h === hostId).map(([s]) => s)

/**
 * How many hosts answer a command sent straight to a shard's subject: exactly one
 * owner must be subscribed. The command asks to delete a channel that does not
 * exist, so it changes nothing and each subscriber answers with a failure.
 */
const respondersOf = async (shard: number) => {
  const workspace = workspaces.find((w) => w.shard === shard)
  if (workspace === undefined) throw new Error(`no workspace on shard ${shard}`)
  const inbox = createInbox()
  let replies = 0
  const sub = nc.subscribe(inbox, { callback: () => replies++ })
  nc.publish(
    names(world.namespace).shardCommands(shard),
    encodeRequest({
      _tag: "Inline",
      envelope: {
        commandId: crypto.randomUUID(),
        attempt: 1,
        principal: { workspaceId: WorkspaceId.make(workspace.workspaceId), userId: null, role: "admin", tokenKind: "live", actor: "API" },
        command: new DeleteChannel({ channelId: crypto.randomUUID() })
      }
    }),
    { reply: inbox }
  )
  await nc.flush()
  await sleep(400)
  sub.unsubscribe()
  return replies
}

const deleteChannel = async (w: Workspace, phase: number) => {
  const started = Date.now()
  const res = await client(sys.url, w.apiKey).del(`/public/v1/integrations/${w.channels[phase]}`)
  return { status: res.status, body: res.json, ms: Date.now() - started, shard: w.shard }
}

const startHost = (label: string) => hosts.start(world, ["actors"], { label })

beforeAll(async () => {
  world = await createWorld("actorfailover")
  sys = await startServices(world, ["gateway"])
  nc = await connect({ servers: world.natsUrl })
  // the gateway created the bucket (with its TTL); only bind to it here
  leases = await nc.jetstream().views.kv(names(world.namespace).shardLeasesBucket, { bindOnly: true })
  ;({ owners, waitForOwners } = leaseReader(leases, SHARDS))
  // workspaces until every shard has at least three
  const perShard = new Map<number, number>()
  while ([...Array(SHARDS).keys()].some((s) => (perShard.get(s) ?? 0) < 3) && workspaces.length < 200) {
    const { workspaceId, apiKey } = await sys.admin.createWorkspace(`Workspace ${workspaces.length}`)
    const channels: Array<string> = []
    for (let phase = 0; phase < 3; phase++) {
      const { channelId } = await sys.admin.createChannel({
        workspaceId,
        network: "test",
        name: `Channel ${phase}`,
        customerId: null,
        postingTimes: []
      })
      channels.push(channelId)
    }
    const shard = shardOf(workspaceId, SHARDS)
    perShard.set(shard, (perShard.get(shard) ?? 0) + 1)
    workspaces.push({ workspaceId, apiKey, shard, channels })
  }
})

afterAll(async () => {
  await hosts.stopAll()
  await nc?.close()
  await sys?.stop()
  await world?.drop()
})

describe("Actor hosts in separate processes", () => {
  let first: ServiceProcess
  let second: ServiceProcess

  it("two hosts share the shards: each shard has exactly one owner", async () => {
    const startedAt = Date.now()
    ;[first, second] = await Promise.all([startHost("host 1"), startHost("host 2")])
    const upMs = Date.now() - startedAt
    expect(first.id).not.toBe(second.id)
    const map = await waitForOwners(
      (m) => m.size === SHARDS && shardsOf(m, first.id).length === SHARDS / 2 && shardsOf(m, second.id).length === SHARDS / 2,
      20_000,
      "the two hosts did not share the shards evenly"
    )
    expect(new Set(map.values())).toEqual(new Set([first.id, second.id]))
    console.log(
      `host 1 owns ${shardsOf(map, first.id)}, host 2 owns ${shardsOf(map, second.id)}; ` +
        `processes up after ${upMs} ms, shards shared ${Date.now() - startedAt - upMs} ms later`
    )
    // exactly one host is subscribed to each shard's subject
    const responders = await Promise.all([...Array(SHARDS).keys()].map(respondersOf))
    expect(responders).toEqual(Array(SHARDS).fill(1))
  }, 45_000)

  it("DELETE /integrations/{id} travels to the owning host for workspaces on both hosts", async () => {
    const map = await owners()
    const onHosts = new Set(workspaces.map((w) => map.get(w.shard)))
    expect(onHosts).toEqual(new Set([first.id, second.id]))
    const results = await Promise.all(workspaces.map((w) => deleteChannel(w, 0)))
    for (const r of results) expect(r).toMatchObject({ status: 200, body: { success: true } })
    // applied once: the channel is gone
    const again = await Promise.all(workspaces.slice(0, 8).map((w) => deleteChannel(w, 0)))
    for (const r of again) expect(r).toMatchObject({ status: 404, body: { error: "Channel not found" } })
  }, 30_000)

  it("SIGKILL of a host: its shards move and its workspaces are answered again within seconds", async () => {
    const before = await owners()
    const victimShards = new Set(shardsOf(before, first.id))
    const onVictim = workspaces.filter((w) => victimShards.has(w.shard))
    const onSurvivor = workspaces.filter((w) => !victimShards.has(w.shard))
    expect(onVictim.length).toBeGreaterThan(0)

    const killedAt = Date.now()
    const exit = await first.kill("SIGKILL")
    expect(exit.signal).toBe("SIGKILL")
    // every request is sent at once, right after the crash; the gateway waits for a new owner
    const [victimResults, survivorResults] = await Promise.all([
      Promise.all(onVictim.map((w) => deleteChannel(w, 1))),
      Promise.all(onSurvivor.map((w) => deleteChannel(w, 1)))
    ])
    const recoveryMs = Math.max(...victimResults.map((r) => r.ms))
    const survivorMs = Math.max(...survivorResults.map((r) => r.ms))
    console.log(
      `after SIGKILL: the ${onVictim.length} workspaces on the killed host's shards ${[...victimShards]} were answered ` +
        `within ${recoveryMs} ms (lease TTL ${LEASE_TTL_MS} ms); the other host's ${onSurvivor.length} within ${survivorMs} ms`
    )
    // the outcome: every request across the crash is answered, each applied once (timings are printed, not asserted)
    for (const r of [...victimResults, ...survivorResults]) expect(r).toMatchObject({ status: 200, body: { success: true } })

    const after = await waitForOwners(
      (m) => m.size === SHARDS && shardsOf(m, second.id).length === SHARDS,
      10_000,
      "the survivor did not take every shard"
    )
    expect(after.size).toBe(SHARDS)
    console.log(`the survivor owned all ${SHARDS} shards ${Date.now() - killedAt} ms after the kill`)
    expect(await Promise.all([...Array(SHARDS).keys()].map(respondersOf))).toEqual(Array(SHARDS).fill(1))
  }, 45_000)

  it("SIGTERM of a host hands its shards over at once, without failing requests", async () => {
    const third = await startHost("host 3")
    const balanced = await waitForOwners(
      (m) => m.size === SHARDS && shardsOf(m, third.id).length === SHARDS / 2 && shardsOf(m, second.id).length === SHARDS / 2,
      20_000,
      "the new host did not get its share"
    )
    const leaving = new Set(shardsOf(balanced, third.id))
    const onLeaving = workspaces.filter((w) => leaving.has(w.shard))
    expect(onLeaving.length).toBeGreaterThan(0)

    // clients keep deleting (200 the first time, 404 after) through the whole hand-over
    const results: Array<Awaited<ReturnType<typeof deleteChannel>> & { workspaceId: string }> = []
    let load = true
    const worker = async (offset: number) => {
      for (let i = offset; load; i += 4) {
        const w = onLeaving[i % onLeaving.length]!
        results.push({ ...(await deleteChannel(w, 2)), workspaceId: w.workspaceId })
      }
    }
    const workers = [0, 1, 2, 3].map(worker)
    await sleep(300)

    const stoppedAt = Date.now()
    const exited = third.kill("SIGTERM")
    const after = await waitForOwners(
      (m) => m.size === SHARDS && shardsOf(m, second.id).length === SHARDS,
      15_000,
      "the remaining host did not take every shard"
    )
    const handOverMs = Date.now() - stoppedAt
    const exit = await exited
    const exitMs = Date.now() - stoppedAt
    await sleep(300)
    load = false
    await Promise.all(workers)
    // and once more for every workspace, so each has been asked at least once
    for (const w of onLeaving) results.push({ ...(await deleteChannel(w, 2)), workspaceId: w.workspaceId })

    const maxMs = Math.max(...results.map((r) => r.ms))
    console.log(
      `after SIGTERM: the remaining host owned all shards after ${handOverMs} ms, the stopped host exited after ${exitMs} ms; ` +
        `${results.length} requests during the hand-over, slowest ${maxMs} ms`
    )
    expect(after.size).toBe(SHARDS)
    // a graceful stop exits cleanly, and releases its leases instead of letting them expire
    expect(exit).toEqual({ code: 0, signal: null })
    expect(third.output()).toContain(`actor host ${third.id} handed its shards over`)
    expect(third.output()).not.toMatch(/\b(ERROR|FATAL)\b|"level":"(error|fatal)"/)
    // it left the list of live hosts (the killed one has expired from it by now)
    const hostsBucket = await nc.jetstream().views.kv(names(world.namespace).actorHostsBucket, { bindOnly: true })
    const live: Array<string> = []
    for await (const key of await hostsBucket.keys()) live.push(key)
    expect(live).toEqual([second.id])
    // every request was answered as appropriate: one success per channel, then not found
    for (const r of results) expect([200, 404]).toContain(r.status)
    const successes = results.filter((r) => r.status === 200).map((r) => r.workspaceId)
    expect(new Set(successes).size).toBe(successes.length)
    expect(new Set(successes)).toEqual(new Set(onLeaving.map((w) => w.workspaceId)))
    expect(await Promise.all([...Array(SHARDS).keys()].map(respondersOf))).toEqual(Array(SHARDS).fill(1))
  }, 45_000)
})
