import { Data, Duration, Effect, Fiber, FiberSet, Queue, Schema, type Scope } from "effect"
import { AckPolicy, type ConsumerConfig, type ConsumerInfo, type JsMsg } from "nats"
import { Nats, NatsFailure } from "./nats.js"
import { withRemoteParent } from "./tracing.js"

/**
 * The one JetStream consumer every worker uses (publisher, webhook dispatcher): a durable
 * pull consumer with explicit acks, read with bounded concurrency.
 *
 * - A message whose body does not decode is terminated (never redelivered) with a warning.
 * - While a handler runs, the message is kept alive with `working()` at a fraction of the
 *   server's ack wait, so a slow job is never redelivered while it still runs; a process
 *   that dies stops the heartbeat and the message goes to another consumer after ack wait.
 * - The handler's outcome decides: ack (`Done`), nak with a delay (`Retry`) or term (`Drop`).
 *   A failure or defect of the handler is logged and retried after `retryDelayMs`.
 * - Messages are pulled only for free slots, so none waits in a local buffer while its
 *   ack wait runs out.
 * - When the scope closes: no more pulls, messages arriving meanwhile are handed back
 *   (nak), jobs in flight are awaited up to `drainTimeoutMs`, the rest are interrupted and
 *   handed back.
 */

/** What a handler decides about its message. */
export type JobOutcome = Data.TaggedEnum<{
  /** Handled (or nothing to do): acknowledged, removed from a work queue. */
  Done: {}
  /** Try again later: nak with this delay. */
  Retry: { readonly delayMs: number }
  /** Can never succeed: terminated, not redelivered (the reason is for logs). */
  Drop: { readonly reason: string }
}>
export const JobOutcome = Data.taggedEnum<JobOutcome>()

/** Where a message stands in its redeliveries. */
export interface Delivery {
  /** 1 on the first delivery. */
  readonly count: number
  readonly streamSequence: number
  readonly subject: string
}

export interface ConsumerOptions<A, R> {
  readonly stream: string
  readonly durable: string
  readonly filterSubject?: string
  /** The body of a message, decoded from its text (e.g. `Schema.parseJson(Job)`). */
  readonly schema: Schema.Schema<A, string>
  readonly handle: (job: A, delivery: Delivery) => Effect.Effect<JobOutcome, unknown, R>
  /** Jobs in flight at once in this process. */
  readonly concurrency: number
  /** The consumer's ack wait: a job without a heartbeat for this long is redelivered. */
  readonly ackWaitMs?: number
  /** Unacknowledged messages across every process; at least processes × concurrency. */
  readonly maxAckPending?: number
  /** Deliveries before the server gives up on a message (default unlimited: sweepers repair from Postgres). */
  readonly maxDeliver?: number
  /** `working()` every ackWait × this while a job runs. */
  readonly heartbeatFraction?: number
  /** How long a pull waits for messages (at least 1 s); shutdown waits for the current one. */
  readonly pullExpiresMs?: number
  /** How long shutdown waits for jobs in flight before interrupting them. */
  readonly drainTimeoutMs?: number
  /** Delay before a job whose handler failed is redelivered. */
  readonly retryDelayMs?: number
}

const nanos = (ms: number) => ms * 1_000_000

/** Messages one pull asks for at most: a burst is taken in several pulls under way at once. */
const PULL_BATCH = 64
/** Pulls under way at once in one process. */
const MAX_PULLS = 4

const consumerFailure = (durable: string, cause: unknown) => new NatsFailure({ message: `consumer ${durable}: ${String(cause)}`, cause })

/**
 * Creates the durable consumer or updates it to the wanted settings, then reads back what
 * the server kept: nats-server 2.9 accepts and silently drops some fields (a dropped
 * filter would make the consumer read every subject), so a difference is an error.
 */
export const ensureConsumer = (options: {
  readonly stream: string
  readonly durable: string
  readonly filterSubject?: string
  readonly ackWaitMs: number
  readonly maxAckPending: number
  readonly maxDeliver?: number
}) =>
  Effect.gen(function* () {
    const nats = yield* Nats
    const wanted: Partial<ConsumerConfig> = {
      durable_name: options.durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: nanos(options.ackWaitMs),
      max_ack_pending: options.maxAckPending,
      max_deliver: options.maxDeliver ?? -1,
      ...(options.filterSubject !== undefined ? { filter_subject: options.filterSubject } : {})
    }
    const existing = yield* Effect.tryPromise({
      try: () => nats.manager.consumers.info(options.stream, options.durable).catch(() => null),
      catch: (cause) => consumerFailure(options.durable, cause)
    })
    if (existing === null) {
      // two processes starting at once: the second add of the same config succeeds too
      yield* Effect.promise(() => nats.manager.consumers.add(options.stream, { ...wanted, num_replicas: nats.replicas }).catch(() => undefined))
    } else {
      const { durable_name: _name, ack_policy: _policy, ...changeable } = wanted
      const update = (config: Partial<ConsumerConfig>) =>
        Effect.tryPromise({
          try: () => nats.manager.consumers.update(options.stream, options.durable, config),
          catch: (cause) => consumerFailure(options.durable, cause)
        })
      // 0 is "as many as the stream": a consumer made so follows its stream's copies
      const copies = existing.config.num_replicas ?? 0
      if (copies === 0 || copies === nats.replicas) yield* update(changeable)
      else {
        const moved = yield* update({ ...changeable, num_replicas: nats.replicas }).pipe(Effect.either)
        if (moved._tag === "Left") {
          yield* Effect.logWarning(
            `consumer ${options.durable} has ${copies} replica(s), NATS_REPLICAS asks ${nats.replicas}: the server refused the change ` +
              `(${moved.left.message}); it keeps ${copies}`
          )
          yield* update(changeable)
        }
      }
    }
    const info = yield* Effect.tryPromise({
      try: (): Promise<ConsumerInfo> => nats.manager.consumers.info(options.stream, options.durable),
      catch: (cause) => consumerFailure(options.durable, cause)
    })
    const kept = info.config
    const differences = [
      kept.ack_policy !== AckPolicy.Explicit ? `ack_policy ${kept.ack_policy}` : null,
      kept.ack_wait !== wanted.ack_wait ? `ack_wait ${kept.ack_wait}` : null,
      (kept.filter_subject ?? "") !== (options.filterSubject ?? "") ? `filter_subject "${kept.filter_subject ?? ""}"` : null,
      kept.max_ack_pending !== options.maxAckPending ? `max_ack_pending ${kept.max_ack_pending}` : null
    ].filter((d) => d !== null)
    if (differences.length > 0) {
      return yield* Effect.fail(consumerFailure(options.durable, `the server kept ${differences.join(", ")} instead of what was asked`))
    }
    return info
  })

/**
 * Runs the consumer in the current scope (see the module comment). Returns once the
 * consumer exists and the first pull is under way.
 */
export const consumeJobs = <A, R>(options: ConsumerOptions<A, R>): Effect.Effect<void, NatsFailure, Nats | Scope.Scope | R> =>
  Effect.gen(function* () {
    const nats = yield* Nats
    const ackWaitMs = options.ackWaitMs ?? 30_000
    const concurrency = Math.max(1, options.concurrency)
    const info = yield* ensureConsumer({
      stream: options.stream,
      durable: options.durable,
      ...(options.filterSubject !== undefined ? { filterSubject: options.filterSubject } : {}),
      ackWaitMs,
      maxAckPending: Math.max(options.maxAckPending ?? 1000, concurrency),
      ...(options.maxDeliver !== undefined ? { maxDeliver: options.maxDeliver } : {})
    })
    const heartbeatEvery = Duration.millis(
      Math.max(50, Math.floor(((info.config.ack_wait ?? nanos(ackWaitMs)) / 1_000_000) * (options.heartbeatFraction ?? 1 / 3)))
    )
    const pullExpiresMs = Math.max(1000, options.pullExpiresMs ?? 2000)
    const retryDelayMs = options.retryDelayMs ?? 5000
    const decode = Schema.decodeUnknown(options.schema)
    const consumer = yield* Effect.tryPromise({
      try: () => nats.jetstream.consumers.get(options.stream, options.durable),
      catch: (cause) => consumerFailure(options.durable, cause)
    })

    const log = Effect.annotateLogs({ consumer: options.durable })
    const settle = (msg: JsMsg, outcome: JobOutcome) =>
      Effect.sync(() =>
        JobOutcome.$match(outcome, {
          Done: () => msg.ack(),
          Retry: ({ delayMs }) => msg.nak(delayMs),
          // no reason on the wire: nats-server 2.9 reads "+TERM <reason>" as no ack at all
          Drop: () => msg.term()
        })
      )

    // the messages whose jobs run: one timer keeps them all alive (a fiber per job would cost a burst's thread)
    const running = new Set<JsMsg>()
    yield* Effect.forkScoped(
      Effect.sleep(heartbeatEvery).pipe(Effect.zipRight(Effect.sync(() => running.forEach((msg) => msg.working()))), Effect.forever)
    )

    const job = (msg: JsMsg) =>
      Effect.gen(function* () {
        const decoded = yield* decode(msg.string()).pipe(Effect.either)
        if (decoded._tag === "Left") {
          yield* Effect.logWarning(`message ${msg.seq} on ${msg.subject} does not decode; terminated`, decoded.left.message)
          return yield* settle(msg, JobOutcome.Drop({ reason: "undecodable message" }))
        }
        const delivery: Delivery = { count: msg.info.deliveryCount, streamSequence: msg.seq, subject: msg.subject }
        const outcome = yield* Effect.acquireUseRelease(
          Effect.sync(() => running.add(msg)),
          () => Effect.scoped(options.handle(decoded.right, delivery)),
          () => Effect.sync(() => running.delete(msg))
        ).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logWarning(`job of message ${msg.seq} failed; redelivered in ${retryDelayMs} ms`, cause).pipe(
              Effect.as(JobOutcome.Retry({ delayMs: retryDelayMs }))
            )
          )
        )
        if (outcome._tag === "Drop") yield* Effect.logWarning(`message ${msg.seq} dropped: ${outcome.reason}`)
        yield* settle(msg, outcome)
      }).pipe(
        // interrupted (shutdown past its drain time): handed back at once
        Effect.onInterrupt(() => Effect.sync(() => msg.nak())),
        log
      )

    // one token per free slot: a pull asks for as many messages as there are tokens
    const slots = yield* Queue.bounded<true>(concurrency)
    yield* Queue.offerAll(
      slots,
      Array.from({ length: concurrency }, () => true as const)
    )
    // read from the NATS callback, so a plain flag
    let stopping = false
    const jobs = yield* FiberSet.make<void, never>()
    const run = yield* FiberSet.runtime(jobs)<R>()
    // the pulls waiting for their messages (several at once: see pullOnce)
    const pulls = yield* FiberSet.make<void, never>()
    // a few pulls at most: the server keeps a bounded number of waiting pulls per consumer
    const pullPermits = yield* Effect.makeSemaphore(MAX_PULLS)

    /**
     * Takes the free slots (at least one, at most PULL_BATCH) and asks the server for as
     * many messages; the pull is waited for on a fiber of its own, so the next pull starts as
     * soon as more slots are free instead of after this one's expiry. Slots a pull did not
     * fill are given back when it ends; a failed pull keeps its slots a second first.
     */
    const pullOnce = Effect.gen(function* () {
      yield* pullPermits.take(1)
      yield* Queue.take(slots).pipe(Effect.onInterrupt(() => pullPermits.release(1)))
      const more = yield* Queue.takeUpTo(slots, Math.min(concurrency, PULL_BATCH) - 1)
      const asked = 1 + more.length
      let received = 0
      const pulled = Effect.tryPromise({
        try: async () => {
          const batch = await consumer.fetch({
            max_messages: asked,
            expires: pullExpiresMs,
            callback: (msg: JsMsg) => {
              received++
              if (stopping) {
                msg.nak()
                Effect.runSync(Queue.offer(slots, true))
                return
              }
              run(
                job(msg).pipe(
                  withRemoteParent(msg.headers?.get("traceparent"), `consume ${options.durable}`, { subject: msg.subject }),
                  Effect.ensuring(Queue.offer(slots, true))
                )
              )
            }
          } as Parameters<typeof consumer.fetch>[0])
          return batch.closed()
        },
        catch: (cause) => consumerFailure(options.durable, cause)
      }).pipe(
        Effect.either,
        Effect.flatMap((outcome) =>
          outcome._tag === "Left"
            ? Effect.logWarning("pull failed; trying again", outcome.left.message).pipe(log, Effect.zipRight(Effect.sleep("1 second")))
            : Effect.void
        ),
        Effect.ensuring(
          Effect.suspend(() =>
            Queue.offerAll(
              slots,
              Array.from({ length: Math.max(0, asked - received) }, () => true as const)
            )
          ).pipe(Effect.zipRight(pullPermits.release(1)))
        )
      )
      yield* FiberSet.run(pulls, pulled)
    })

    const loop = yield* Effect.forkScoped(pullOnce.pipe(Effect.repeat({ while: () => !stopping }), Effect.asVoid))

    // runs before the loop's and the FiberSet's own finalizers (which interrupt what is left)
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        stopping = true
        // the pulls under way end within their expiry; what arrives meanwhile is handed back
        yield* Fiber.interrupt(loop)
        yield* FiberSet.awaitEmpty(pulls).pipe(Effect.timeout(pullExpiresMs * 2), Effect.ignore)
        const drained = yield* FiberSet.awaitEmpty(jobs).pipe(Effect.timeout(options.drainTimeoutMs ?? 30_000), Effect.either)
        if (drained._tag === "Left") yield* Effect.logWarning("jobs still running at shutdown are handed back").pipe(log)
        yield* Effect.logInfo("consumer stopped").pipe(log)
      })
    )
  })
