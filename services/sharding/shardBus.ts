import { Effect } from "effect"
import type { MsgHdrs, NatsConnection } from "nats"
import { type ActorRequests, NoAnswer, NoOwner } from "./actorRequests.js"

/** A command as a host takes it (a NATS message is one): its body, its headers, and the way back. */
export interface ShardMessage {
  readonly string: () => string
  readonly respond: (reply: string) => boolean
  readonly headers?: { readonly get: (key: string) => string } | undefined
}

export interface ShardSubscription {
  /** Stops taking new commands; those already sent are still taken. */
  readonly drain: () => Promise<void>
  readonly unsubscribe: () => void
}

/** Where a host takes the commands of the shards it serves: NATS subjects, or memory in tests. */
export interface ShardBus {
  readonly subscribe: (subject: string, onMessage: (msg: ShardMessage) => void) => ShardSubscription
  /** Resolves once the server knows of every subscription made so far. */
  readonly flush: () => Promise<void>
}

export const natsShardBus = (connection: NatsConnection): ShardBus => ({
  subscribe: (subject, onMessage) => connection.subscribe(subject, { callback: (_e, msg) => onMessage(msg) }),
  flush: () => connection.flush()
})

/**
 * Subjects in memory, for tests of hosts and the client without NATS: a request goes to
 * every subscriber of its subject (as a plain NATS subscription does) and the first reply
 * answers it; nobody subscribed is NoOwner at once ("no responders"), no reply within the
 * timeout is NoAnswer. Delivery is asynchronous, as on a network. `connect()` gives one host
 * its view; a paused view keeps what is sent to it until it resumes (a paused process).
 */
export const makeMemoryBus = () => {
  const subscribers = new Map<string, Set<(msg: ShardMessage) => void>>()

  const connect = () => {
    let paused = false
    const held: Array<() => void> = []
    const bus: ShardBus = {
      subscribe: (subject, onMessage) => {
        // each subscription is its own entry (the same callback may subscribe twice)
        const entry = (msg: ShardMessage) => (paused ? held.push(() => onMessage(msg)) : onMessage(msg))
        const set = subscribers.get(subject) ?? new Set()
        set.add(entry)
        subscribers.set(subject, set)
        const unsubscribe = () => {
          set.delete(entry)
          if (set.size === 0 && subscribers.get(subject) === set) subscribers.delete(subject)
        }
        return { drain: async () => unsubscribe(), unsubscribe }
      },
      flush: async () => {}
    }
    return {
      bus,
      /** From now on what is sent to this host waits. */
      pause: () => {
        paused = true
      },
      /** Delivers what waited, in order. */
      resume: () => {
        paused = false
        for (const deliver of held.splice(0)) deliver()
      }
    }
  }

  const requests: ActorRequests = {
    request: (subject: string, payload: string, headers: MsgHdrs | undefined, timeoutMs: number) =>
      Effect.async<{ readonly string: () => string }, NoOwner | NoAnswer>((resume) => {
        const taking = [...(subscribers.get(subject) ?? [])]
        if (taking.length === 0) {
          resume(Effect.fail(new NoOwner()))
          return
        }
        let answered = false
        const timer = setTimeout(() => {
          answered = true
          resume(Effect.fail(new NoAnswer()))
        }, timeoutMs)
        const msg: ShardMessage = {
          string: () => payload,
          headers,
          respond: (reply) => {
            if (answered) return false
            answered = true
            clearTimeout(timer)
            // the reply crosses the network too
            setImmediate(() => resume(Effect.succeed({ string: () => reply })))
            return true
          }
        }
        for (const take of taking) setImmediate(() => take(msg))
        return Effect.sync(() => {
          answered = true
          clearTimeout(timer)
        })
      }),
    waiting: () => 0
  }

  return { connect, requests }
}
