import type { KV, NatsConnection } from "nats"
import { names } from "../../protocol/names.js"
import type { ServiceProcess } from "./processes.js"
import type { TestWorld } from "./system.js"
import { decodeLease } from "../../services/sharding/shardLeases.js"
import { sleep } from "./wait.js"

/** Reads who owns which shard from the lease bucket, as the actor hosts see it. */
export const leaseReader = (leases: KV, shardCount: number) => {
  /** shard → owning host id (only live leases). */
  const owners = async () => {
    const result = new Map<number, string>()
    for (let shard = 0; shard < shardCount; shard++) {
      const entry = await leases.get(String(shard))
      if (entry === null || entry.operation !== "PUT") continue
      const lease = decodeLease(entry.string())
      if (lease._tag === "Some") result.set(shard, lease.value.host)
    }
    return result
  }

  /** Polls the lease bucket until `done` holds (or fails the test after `timeoutMs`). */
  const waitForOwners = async (done: (map: Map<number, string>) => boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs
    let last = new Map<number, string>()
    while (Date.now() < deadline) {
      last = await owners()
      if (done(last)) return last
      await sleep(100)
    }
    throw new Error(`${what} within ${timeoutMs} ms; leases: ${JSON.stringify([...last])}`)
  }

  return { owners, waitForOwners }
}

/**
 * Two actor hosts as processes of a test world, waited for until they share the shards
 * evenly: the hosts and which host owns which shard.
 */
export const startTwoActorHosts = async (
  hosts: { readonly start: (world: TestWorld, services: ReadonlyArray<string>, options: { label: string }) => Promise<ServiceProcess> },
  world: TestWorld,
  nc: NatsConnection,
  shardCount: number
) => {
  const [first, second] = await Promise.all([
    hosts.start(world, ["actors"], { label: "host 1" }),
    hosts.start(world, ["actors"], { label: "host 2" })
  ])
  const leases = await nc.jetstream().views.kv(names(world.namespace).shardLeasesBucket, { bindOnly: true })
  const owners = await leaseReader(leases, shardCount).waitForOwners(
    (m) => m.size === shardCount && [...m.values()].filter((h) => h === first.id).length === shardCount / 2,
    30_000,
    "the two hosts did not share the shards"
  )
  return { first, second, owners }
}
