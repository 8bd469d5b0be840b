import { Config, ConfigError, Context, Effect, Either, Layer, Option, Schema } from "effect"
import { publishLimitsOf, windowWaitMs, type PublishLimits } from "../../domain/networks/publishLimits.js"

/** What the limiter says about a call: go (and give the slot back when done), or come back later. */
export type Admission = { readonly _tag: "Admitted"; readonly release: Effect.Effect<void> } | { readonly _tag: "Wait"; readonly delayMs: number }

/** A job turned away for a full slot comes back after this (plus jitter), without holding a worker slot. */
export const SLOT_RETRY_MS = 200

/** Jobs of one network that may wait for a slot in one process; more go back to JetStream for QUEUE_FULL_RETRY_MS. */
export const MAX_WAITING_PER_NETWORK = 4096
const QUEUE_FULL_RETRY_MS = 1000

const LimitsOverride = Schema.Record({
  key: Schema.String,
  value: Schema.partial(
    Schema.Struct({
      concurrency: Schema.Number.pipe(Schema.int(), Schema.positive()),
      channelConcurrency: Schema.Number.pipe(Schema.int(), Schema.positive()),
      channelPerMinute: Schema.Number.pipe(Schema.int(), Schema.nonNegative())
    })
  )
})

const decodeOverrides = Schema.decodeUnknownEither(Schema.parseJson(LimitsOverride))

/**
 * PUBLISH_LIMITS: JSON overrides by network identifier (`default` for every network), e.g.
 * `{"default":{"channelConcurrency":2},"mastodon":{"channelPerMinute":30}}`.
 */
export const publishLimitsConfig = Config.string("PUBLISH_LIMITS").pipe(
  Config.withDefault("{}"),
  Config.mapOrFail((text) =>
    Either.mapLeft(decodeOverrides(text), () =>
      ConfigError.InvalidData(["PUBLISH_LIMITS"], `must be JSON like {"default":{"concurrency":32,"channelConcurrency":4,"channelPerMinute":0}}`)
    )
  )
)

/**
 * The publisher's per-network and per-channel limits in this process (domain/networks/publishLimits.ts).
 * A call that does not fit is not waited for here: the job goes back to JetStream with a
 * delay, so a busy network never holds a worker slot that another network could use.
 */
export const makePublishLimiter = (overrides: Readonly<Record<string, Partial<PublishLimits>>>, now: () => number = Date.now) => {
  const inFlight = new Map<string, number>()
  const started = new Map<string, Array<number>>()
  const limitsByNetwork = new Map<string, PublishLimits>()
  const limitsOf = (network: string) => {
    let limits = limitsByNetwork.get(network)
    if (limits === undefined) {
      limits = publishLimitsOf(network, overrides)
      limitsByNetwork.set(network, limits)
    }
    return limits
  }
  const jitter = () => Math.floor(Math.random() * SLOT_RETRY_MS)

  /** A slot now, "full" when the network's or the channel's calls in flight are at their limit, or the per-minute window's wait. */
  const tryAdmit = (network: string, channelId: string): Admission | "full" => {
    const limits = limitsOf(network)
    const networkKey = `n:${network}`
    const channelKey = `c:${channelId}`
    if ((inFlight.get(networkKey) ?? 0) >= limits.concurrency || (inFlight.get(channelKey) ?? 0) >= limits.channelConcurrency) return "full"
    const at = now()
    const recent = (started.get(channelKey) ?? []).filter((t) => t > at - 60_000)
    const waitMs = windowWaitMs(recent, limits.channelPerMinute, at)
    if (waitMs > 0) return { _tag: "Wait", delayMs: waitMs + jitter() }
    if (limits.channelPerMinute > 0) started.set(channelKey, [...recent, at])
    inFlight.set(networkKey, (inFlight.get(networkKey) ?? 0) + 1)
    inFlight.set(channelKey, (inFlight.get(channelKey) ?? 0) + 1)
    let released = false
    const release = Effect.sync(() => {
      if (released) return
      released = true
      for (const key of [networkKey, channelKey]) {
        const left = (inFlight.get(key) ?? 1) - 1
        if (left <= 0) inFlight.delete(key)
        else inFlight.set(key, left)
      }
      wake(network)
    })
    return { _tag: "Admitted", release }
  }

  /** Jobs waiting in this process for a slot of their network, oldest first. */
  interface Waiter {
    readonly channelId: string
    readonly resume: (admission: Admission) => void
  }
  const waiting = new Map<string, Array<Waiter>>()

  /**
   * A slot of `network` was given back: the oldest waiters that now fit get theirs. Only
   * this network's waiters can fit now; the scan stops once the network is full again.
   */
  const wake = (network: string) => {
    const queue = waiting.get(network)
    if (queue === undefined) return
    const limit = limitsOf(network).concurrency
    for (let i = 0; i < queue.length && (inFlight.get(`n:${network}`) ?? 0) < limit; ) {
      const waiter = queue[i]!
      const admission = tryAdmit(network, waiter.channelId)
      if (admission === "full") {
        i++
        continue
      }
      queue.splice(i, 1)
      waiter.resume(admission)
    }
    if (queue.length === 0) waiting.delete(network)
  }

  /** Now or never: a full slot turns the job away with a short delay (it goes back to JetStream). */
  const admit = (network: string, channelId: string): Effect.Effect<Admission> =>
    Effect.sync(() => {
      const admission = tryAdmit(network, channelId)
      return admission === "full" ? ({ _tag: "Wait", delayMs: SLOT_RETRY_MS + jitter() } as const) : admission
    })

  /**
   * A slot, waited for in this process when the network's or the channel's calls in flight
   * are full (first come, first served, woken when a slot is given back): a burst of due
   * jobs queues here instead of going back and forth to JetStream. The per-minute window's
   * wait is still answered as `Wait`: the job goes back with that delay.
   */
  const acquire = (network: string, channelId: string): Effect.Effect<Admission> =>
    Effect.suspend(() => {
      // a free slot now is no queue-jumping: every release gives the waiters that fit theirs first
      const now = tryAdmit(network, channelId)
      if (now !== "full") return Effect.succeed(now)
      // the cap on waiting jobs is checked before the job opens its attempt (`queueFull`): past it, the job queues
      return Effect.async<Admission>((resume) => {
        const waiter: Waiter = { channelId, resume: (admission) => resume(Effect.succeed(admission)) }
        const queue = waiting.get(network) ?? []
        queue.push(waiter)
        waiting.set(network, queue)
        // interrupted while waiting: out of the queue
        return Effect.sync(() => {
          const list = waiting.get(network)
          const at = list?.indexOf(waiter) ?? -1
          if (list !== undefined && at >= 0) list.splice(at, 1)
        })
      })
    })

  /** Jobs of `network` waiting for a slot in this process (tests, metrics). */
  const waitingFor = (network: string) => waiting.get(network)?.length ?? 0

  /**
   * Whether a job of `network` must go back instead of opening its attempt and queueing for a slot (Some: after this delay): one slow
   * network does not hold every job slot of the process. Past MAX_WAITING_PER_NETWORK jobs
   * waiting, the job goes back to JetStream with this delay before anything is written (a
   * job already past the check always queues: the cap is exceeded by the opens in flight at most).
   */
  const queueFull = (network: string): Option.Option<number> =>
    waitingFor(network) >= MAX_WAITING_PER_NETWORK ? Option.some(QUEUE_FULL_RETRY_MS + jitter()) : Option.none()

  return { admit, acquire, waitingFor, queueFull }
}

export class PublishLimiter extends Context.Tag("publisher/PublishLimiter")<PublishLimiter, ReturnType<typeof makePublishLimiter>>() {
  static readonly Live = Layer.effect(
    PublishLimiter,
    Effect.map(publishLimitsConfig, (overrides) => makePublishLimiter(overrides))
  )
}
