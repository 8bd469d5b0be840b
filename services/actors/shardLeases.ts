import { Effect, Schema } from "effect"
import type { KV, KvEntry } from "nats"
import { fairShare } from "../../domain/shards.js"

/**
 * Shard ownership through leases in a NATS KV bucket whose TTL expires keys that are
 * not renewed. `create` fails when the key exists and `update` fails on a stale
 * revision, so at most one host believes it holds a lease at any revision.
 */

const LeaseValue = Schema.parseJson(Schema.Struct({ host: Schema.String, at: Schema.Number }))
const encodeLease = Schema.encodeSync(LeaseValue)
const decodeLease = Schema.decodeUnknownOption(LeaseValue)

export interface LeaseCallbacks {
  /** The shard is ours: start taking its commands. */
  readonly acquired: (shard: number) => Promise<void>
  /** The shard must go (balance or shutdown): stop taking commands, finish what runs. */
  readonly releasing: (shard: number) => Promise<void>
  /** The lease was lost (another host has it): stop at once. */
  readonly lost: (shard: number) => void
}

export interface LeaseManagerOptions {
  readonly hostId: string
  readonly shardCount: number
  readonly leases: KV
  readonly hosts: KV
  readonly callbacks: LeaseCallbacks
}

const isLive = (e: KvEntry | null): e is KvEntry => e !== null && e.operation === "PUT"

export const makeLeaseManager = (options: LeaseManagerOptions) => {
  const { hostId, shardCount, leases, hosts, callbacks } = options
  const owned = new Map<number, number>() // shard → revision of our lease
  const value = () => encodeLease({ host: hostId, at: Date.now() })
  let stopping = false

  const liveHostCount = async () => {
    let count = 0
    const keys = await hosts.keys()
    for await (const _ of keys) count++
    return Math.max(1, count)
  }

  const renew = async (shard: number, revision: number) => {
    try {
      owned.set(shard, await leases.update(String(shard), value(), revision))
    } catch {
      owned.delete(shard)
      callbacks.lost(shard)
    }
  }

  const release = async (shard: number) => {
    const revision = owned.get(shard)
    owned.delete(shard)
    await callbacks.releasing(shard)
    if (revision !== undefined) await leases.delete(String(shard), { previousSeq: revision }).catch(() => undefined)
  }

  /** One round: announce ourselves, renew what we hold, take free shards up to a fair share. */
  const tick = async () => {
    if (stopping) return
    await hosts.put(hostId, value())
    for (const [shard, revision] of [...owned]) await renew(shard, revision)
    const target = fairShare(shardCount, await liveHostCount())
    // give back the excess so a new host gets its share
    for (const shard of [...owned.keys()].slice(target)) await release(shard)
    if (owned.size >= target) return
    const start = Math.floor(Math.random() * shardCount)
    for (let i = 0; i < shardCount && owned.size < target && !stopping; i++) {
      const shard = (start + i) % shardCount
      if (owned.has(shard)) continue
      const current = await leases.get(String(shard))
      if (isLive(current) && decodeLease(current.string())._tag === "Some") continue
      try {
        const revision = await leases.create(String(shard), value())
        owned.set(shard, revision)
        await callbacks.acquired(shard)
      } catch {
        // another host was faster
      }
    }
  }

  const stop = async () => {
    stopping = true
    for (const shard of [...owned.keys()]) await release(shard)
    await hosts.delete(hostId).catch(() => undefined)
  }

  return { tick, stop, owned: () => [...owned.keys()].sort((a, b) => a - b) }
}

export type LeaseManager = ReturnType<typeof makeLeaseManager>

export const tickSafely = (manager: LeaseManager) =>
  Effect.tryPromise(() => manager.tick()).pipe(
    Effect.catchAll((e) => Effect.logWarning("shard lease round failed", e))
  )
