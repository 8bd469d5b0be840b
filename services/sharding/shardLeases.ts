import { Effect, Schema } from "effect"
import { fairShare } from "../../domain/shards.js"
import { LEASE_TTL_MS } from "../platform/nats.js"
import type { LeaseStore } from "./leaseStore.js"

/**
 * Shard ownership through leases in a store whose TTL expires keys that are not renewed
 * (leaseStore.ts: NATS KV, or memory in tests). `create` fails when the key exists and a
 * renewal fails on a stale revision, so at most one host believes it holds a lease at any
 * revision.
 *
 * A host renews its leases every round (well inside the TTL), takes free shards up
 * to a fair share of the live hosts, and gives back the excess when hosts join.
 * Rounds, hand-overs and the stop run one at a time (a lock), so a stop never races
 * a round that is still acquiring or renewing.
 */

/** How often a host renews its leases and looks for free shards. */
export const LEASE_ROUND_MS = 1_500

/** A lease's value in the bucket: the owning host and when it was last renewed. */
export const LeaseValue = Schema.parseJson(Schema.Struct({ host: Schema.String, at: Schema.Number }))
const encodeLease = Schema.encodeSync(LeaseValue)
export const decodeLease = Schema.decodeUnknownOption(LeaseValue)

export interface LeaseCallbacks {
  /** The shard is ours: start taking its commands. */
  readonly acquired: (shard: number) => Promise<void>
  /** The shard must go (balance or shutdown): stop taking commands, finish what runs. */
  readonly releasing: (shard: number) => Promise<void>
  /** The lease was lost (another host has it, or it may have expired): stop at once. */
  readonly lost: (shard: number) => void
}

export interface LeaseManagerOptions {
  readonly hostId: string
  readonly shardCount: number
  readonly store: LeaseStore
  readonly callbacks: LeaseCallbacks
  /** The store's TTL (defaults to LEASE_TTL_MS). */
  readonly leaseTtlMs?: number
  /** How often the host runs a round (defaults to LEASE_ROUND_MS). */
  readonly roundMs?: number
}

interface Held {
  revision: number
  /** Until when the lease is surely ours: last successful renewal (send time) + TTL − margin. */
  validUntil: number
  /** Being handed over: still renewed, no longer served or counted. */
  releasing: boolean
}

export const makeLeaseManager = (options: LeaseManagerOptions) => {
  const { hostId, shardCount, store, callbacks } = options
  const ttl = options.leaseTtlMs ?? LEASE_TTL_MS
  const roundMs = options.roundMs ?? LEASE_ROUND_MS
  // stop serving a shard one round before its lease could expire on the server
  const margin = Math.min(roundMs, ttl / 3)
  const held = new Map<number, Held>()
  const handOvers = new Set<Promise<void>>()
  const value = () => encodeLease({ host: hostId, at: Date.now() })
  let stopping = false

  // rounds, hand-overs and the stop take turns
  let turn: Promise<unknown> = Promise.resolve()
  const exclusive = <A>(f: () => Promise<A>): Promise<A> => {
    const result = turn.then(f)
    turn = result.catch(() => undefined)
    return result
  }

  const serving = () => [...held].filter(([, h]) => !h.releasing).map(([shard]) => shard)

  const liveHostCount = async () => Math.max(1, await store.hostCount())

  const drop = (shard: number) => {
    const h = held.get(shard)
    held.delete(shard)
    if (h !== undefined && !h.releasing) callbacks.lost(shard)
  }

  const renew = async (shard: number, h: Held) => {
    const sentAt = Date.now()
    try {
      const revision = await store.renew(shard, value(), h.revision)
      // taken over or expired: gone
      if (revision === "taken") return drop(shard)
      h.revision = revision
      h.validUntil = sentAt + ttl - margin
    } catch {
      // a transient failure (timeout, reconnect) keeps the shard only while the lease is surely still ours
      if (Date.now() >= h.validUntil) drop(shard)
    }
  }

  const renewAll = () => Promise.all([...held].map(([shard, h]) => renew(shard, h)))

  /**
   * Hands a shard over: stop taking its commands and let those already taken finish
   * (the lease is still renewed meanwhile, so nobody else runs them concurrently),
   * then delete the lease so another host can take it at once.
   */
  const release = (shard: number) => {
    const h = held.get(shard)
    if (h === undefined || h.releasing) return
    h.releasing = true
    const handOver = callbacks
      .releasing(shard)
      .catch(() => undefined)
      .then(() =>
        exclusive(async () => {
          const current = held.get(shard)
          if (current !== h) return // lost meanwhile
          held.delete(shard)
          await store.remove(shard, h.revision).catch(() => undefined)
        })
      )
      .finally(() => handOvers.delete(handOver))
    handOvers.add(handOver)
  }

  const acquire = async (shard: number) => {
    const current = await store.read(shard)
    if (current !== null && decodeLease(current)._tag === "Some") return
    const sentAt = Date.now()
    let revision: number
    try {
      revision = await store.create(shard, value())
    } catch {
      return // another host was faster
    }
    const h: Held = { revision, validUntil: sentAt + ttl - margin, releasing: false }
    held.set(shard, h)
    try {
      await callbacks.acquired(shard)
    } catch {
      held.delete(shard)
      await store.remove(shard, h.revision).catch(() => undefined)
    }
  }

  /** One round: renew what we hold, announce ourselves, take free shards up to a fair share. */
  const round = async () => {
    if (stopping) return
    // renewals first: when NATS does not answer they fail, and leases that may have
    // expired are dropped, even if the rest of the round fails
    await renewAll()
    await store.announce(hostId, value())
    const target = fairShare(shardCount, await liveHostCount())
    // give back the excess so a new host gets its share
    const mine = serving()
    for (const shard of mine.slice(target)) release(shard)
    if (mine.length >= target) return
    let count = mine.length
    const start = Math.floor(Math.random() * shardCount)
    for (let i = 0; i < shardCount && count < target && !stopping; i++) {
      const shard = (start + i) % shardCount
      // never take back a shard we hold or are still handing over
      if (held.has(shard)) continue
      await acquire(shard)
      if (held.has(shard)) count++
    }
  }

  // rounds asked for while one is waiting for its turn are the same round
  let pending: Promise<void> | null = null
  const tick = (): Promise<void> => {
    if (pending !== null) return pending
    const next = exclusive(async () => {
      pending = null
      await round()
    })
    pending = next
    return next
  }

  /**
   * Graceful stop: leave the host list first (the others' fair share grows at once),
   * hand every shard over, renewing the leases until each hand-over is done.
   */
  const stop = async () => {
    await exclusive(async () => {
      stopping = true
      await store.leave(hostId).catch(() => undefined)
      for (const shard of serving()) release(shard)
    })
    while (handOvers.size > 0) {
      const all = Promise.all([...handOvers])
      const tooLong = new Promise((resolve) => setTimeout(resolve, roundMs).unref())
      if ((await Promise.race([all.then(() => "done"), tooLong])) === "done") break
      await exclusive(renewAll)
    }
  }

  /**
   * Whether this host may run a command of the shard now: it holds the lease and the lease
   * is surely still valid (a host that was paused finds it is not, before anything else).
   */
  const holds = (shard: number) => {
    const h = held.get(shard)
    return h !== undefined && Date.now() < h.validUntil
  }

  return {
    tick,
    stop,
    holds,
    /** The shards this host serves now (sorted). */
    owned: () => serving().sort((a, b) => a - b)
  }
}

export type LeaseManager = ReturnType<typeof makeLeaseManager>

export const tickSafely = (manager: LeaseManager) =>
  Effect.tryPromise({ try: () => manager.tick(), catch: (cause) => cause }).pipe(
    // the store's own error (TIMEOUT, 503 for no responders), not Effect's "unknown error" wrapper
    Effect.catchAll((cause) => Effect.logWarning(`shard lease round failed: ${cause instanceof Error ? cause.message : String(cause)}`))
  )
