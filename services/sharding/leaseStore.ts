import { KvWatchInclude, type KV, type KvEntry } from "nats"
import { LEASE_CALL_TIMEOUT_MS } from "../platform/nats.js"

/**
 * Where shard leases and the list of live hosts are kept: keys that expire when not
 * renewed within the store's TTL, written only at the revision last read, so at most one
 * host believes it holds a lease at any revision. Live: two NATS KV buckets
 * (natsLeaseStore). Tests: memory (makeMemoryLeases), with a host's view that can be
 * paused like a paused process.
 */
export interface LeaseStore {
  /** The value of the shard's live lease, or null when none (never taken, handed over, expired). */
  readonly read: (shard: number) => Promise<string | null>
  /** Takes a free shard: the lease's revision. Rejects when the shard has a lease. */
  readonly create: (shard: number, value: string) => Promise<number>
  /**
   * Renews a lease held at `revision`: its new revision, or "taken" when the lease changed
   * or expired since. Rejects on a transient failure (a timeout, a reconnect).
   */
  readonly renew: (shard: number, value: string, revision: number) => Promise<number | "taken">
  /** Deletes the lease if it is still at `revision` (a hand-over). */
  readonly remove: (shard: number, revision: number) => Promise<void>
  /** Puts the host on the live list (renewed every round, expires like a lease). */
  readonly announce: (hostId: string, value: string) => Promise<void>
  readonly hostCount: () => Promise<number>
  readonly leave: (hostId: string) => Promise<void>
  /** Calls `onRemoved` for every lease deleted from now on (expiries are found by the rounds). */
  readonly watchRemovals: (onRemoved: () => void) => Promise<{ readonly stop: () => void; readonly ended: Promise<void> }>
}

const isLive = (e: KvEntry | null): e is KvEntry => e !== null && e.operation === "PUT"

/** JetStream "wrong last sequence": the key changed (taken over) or expired since our revision. */
const isRevisionConflict = (e: unknown) =>
  typeof e === "object" && e !== null && "api_error" in e && (e as { api_error?: { err_code?: number } }).api_error?.err_code === 10071

/** How long listing the live hosts may take (as long as any other lease call may). */
const LIST_TIMEOUT_MS = LEASE_CALL_TIMEOUT_MS

/** Leases and hosts in NATS KV buckets whose TTL (services/platform/nats.ts LEASE_TTL_MS) expires what is not renewed. */
export const natsLeaseStore = (leases: KV, hosts: KV): LeaseStore => ({
  read: async (shard) => {
    const entry = await leases.get(String(shard))
    return isLive(entry) ? entry.string() : null
  },
  create: (shard, value) => leases.create(String(shard), value),
  renew: (shard, value, revision) =>
    leases.update(String(shard), value, revision).catch((e: unknown) => (isRevisionConflict(e) ? ("taken" as const) : Promise.reject(e))),
  remove: async (shard, revision) => {
    await leases.delete(String(shard), { previousSeq: revision })
  },
  announce: async (hostId, value) => {
    await hosts.put(hostId, value)
  },
  hostCount: async () => {
    // the listing is a consumer of the bucket: one that stops delivering (its node killed or
    // paused) would hold the round, and every renewal after it, for ever
    const keys = await hosts.keys()
    const timer = setTimeout(() => keys.stop(new Error(`listing the live hosts took over ${LIST_TIMEOUT_MS} ms`)), LIST_TIMEOUT_MS)
    try {
      let count = 0
      for await (const _ of keys) count++
      return count
    } finally {
      clearTimeout(timer)
    }
  },
  leave: (hostId) => hosts.delete(hostId),
  watchRemovals: async (onRemoved) => {
    const watcher = await leases.watch({ include: KvWatchInclude.UpdatesOnly })
    const ended = (async () => {
      for await (const entry of watcher) if (entry.operation !== "PUT") onRemoved()
    })()
    return { stop: () => watcher.stop(), ended }
  }
})

interface Kept {
  readonly value: string
  readonly revision: number
  readonly writtenAt: number
}

/** A key in memory that expires `ttlMs` after its last write, like a KV bucket with a TTL. */
const expiringMap = (ttlMs: number) => {
  const keys = new Map<string, Kept>()
  const live = (key: string) => {
    const kept = keys.get(key)
    if (kept !== undefined && Date.now() - kept.writtenAt >= ttlMs) keys.delete(key)
    return keys.get(key)
  }
  return { keys, live }
}

/**
 * Leases in memory with the same rules as the bucket: create fails on a live key, a renewal
 * at a stale revision (or after expiry) is "taken", keys expire `ttlMs` after their last
 * write. `connect()` gives one host its view; a paused view holds the host's calls until it
 * resumes (a paused process, a partition), while the keys go on expiring.
 */
export const makeMemoryLeases = (ttlMs: number) => {
  const leases = expiringMap(ttlMs)
  const hosts = expiringMap(ttlMs)
  const watchers = new Set<() => void>()
  let sequence = 0

  const store: LeaseStore = {
    read: async (shard) => leases.live(String(shard))?.value ?? null,
    create: async (shard, value) => {
      if (leases.live(String(shard)) !== undefined) throw new Error(`shard ${shard} has a lease`)
      const revision = ++sequence
      leases.keys.set(String(shard), { value, revision, writtenAt: Date.now() })
      return revision
    },
    renew: async (shard, value, revision) => {
      if (leases.live(String(shard))?.revision !== revision) return "taken"
      const next = ++sequence
      leases.keys.set(String(shard), { value, revision: next, writtenAt: Date.now() })
      return next
    },
    remove: async (shard, revision) => {
      if (leases.live(String(shard))?.revision !== revision) throw new Error(`shard ${shard} is not at revision ${revision}`)
      leases.keys.delete(String(shard))
      sequence++
      for (const removed of watchers) removed()
    },
    announce: async (hostId, value) => {
      hosts.keys.set(hostId, { value, revision: ++sequence, writtenAt: Date.now() })
    },
    hostCount: async () => [...hosts.keys.keys()].filter((id) => hosts.live(id) !== undefined).length,
    leave: async (hostId) => {
      hosts.keys.delete(hostId)
    },
    watchRemovals: async (onRemoved) => {
      let stop!: () => void
      const ended = new Promise<void>((resolve) => (stop = resolve))
      const watcher = () => onRemoved()
      watchers.add(watcher)
      return {
        stop: () => {
          watchers.delete(watcher)
          stop()
        },
        ended
      }
    }
  }

  const connect = () => {
    let resumed: Promise<void> | null = null
    let resume = () => {}
    const held =
      <A extends ReadonlyArray<unknown>, B>(f: (...args: A) => Promise<B>) =>
      async (...args: A): Promise<B> => {
        while (resumed !== null) await resumed
        return f(...args)
      }
    const view: LeaseStore = {
      read: held(store.read),
      create: held(store.create),
      renew: held(store.renew),
      remove: held(store.remove),
      announce: held(store.announce),
      hostCount: held(store.hostCount),
      leave: held(store.leave),
      watchRemovals: store.watchRemovals
    }
    return {
      store: view,
      /** From now on this host's calls wait (and its leases expire unrenewed). */
      pause: () => {
        resumed ??= new Promise<void>((resolve) => (resume = resolve))
      },
      resume: () => {
        resumed = null
        resume()
      }
    }
  }

  return {
    connect,
    /** The shard's live lease value, as any host would read it. */
    read: store.read
  }
}
