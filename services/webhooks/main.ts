import { Chunk, Effect, FiberSet, Layer, Queue } from "effect"
import { EventMessageJson } from "../../protocol/events.js"
import { AppConfig } from "../platform/config.js"
import { consumeJobs, JobOutcome } from "../platform/jetstreamConsumer.js"
import { Nats } from "../platform/nats.js"
import { KeptAliveOutboundHttpLive, OutboundHttp } from "../platform/outbound/outboundHttp.js"
import { runAttempt } from "./attempt.js"
import { makeAttemptRecorder } from "./attemptRecorder.js"
import { type ClaimedDelivery, makeDeliveriesRepo } from "./deliveriesRepo.js"
import { fanOut } from "./fanout.js"
import { leaseMsOf, webhookSettings } from "./settings.js"
import { makeWebhooksRepo } from "./webhooksRepo.js"

/**
 * The webhook dispatcher (docs/architecture.md, "Webhook dispatcher"):
 * - consumes EVENTS with a durable consumer (replicas share it) and records one delivery
 *   per matching webhook in Postgres before any attempt, then acknowledges the event;
 * - one poller claims what is due with FOR UPDATE SKIP LOCKED, in one statement for every
 *   free slot: new deliveries (a fan-out wakes it), due retries, deliveries a dead
 *   dispatcher left; outcomes are written in batches (attemptRecorder.ts);
 * - at most WEBHOOK_CONCURRENCY attempts in flight, at most WEBHOOK_PER_RECEIVER per
 *   webhook, each bounded by the 15 s timeout, so one slow receiver delays no other;
 * The log and the event log are kept 30 days by the scheduler's retention jobs
 * (services/scheduler/retention.ts).
 */
/** How long the poller lets finished attempts gather before it claims for their slots. */
const CLAIM_BATCH_MS = 5

const dispatcher = Layer.scopedDiscard(
  Effect.gen(function* () {
    const nats = yield* Nats
    const settings = yield* webhookSettings
    const { secretKey } = yield* AppConfig
    const outbound = yield* OutboundHttp
    const store = yield* makeDeliveriesRepo
    const repo = yield* makeWebhooksRepo
    const leaseMs = leaseMsOf(settings)
    // outcomes are written in batches; created before the shutdown finalizer below, so it outlives the attempts
    const recordAttempt = yield* makeAttemptRecorder(store, { maxBatch: settings.concurrency, writers: 4 })
    const deps = { store: { ...store, recordAttempt }, outbound, secretKey, settings }

    // one token per free attempt slot
    const slots = yield* Queue.bounded<true>(settings.concurrency)
    yield* Queue.offerAll(
      slots,
      Array.from({ length: settings.concurrency }, () => true as const)
    )
    const attempts = yield* FiberSet.make<void, never>()
    // a finished attempt wakes the poller: deliveries held back by the per-webhook limit go next
    const wake = yield* Queue.sliding<true>(1)

    /**
     * The slot is freed as soon as the receiver has answered: writing the outcome (batched)
     * holds the delivery's lease, which the per-webhook limit counts, but no slot.
     */
    const start = (d: ClaimedDelivery) => {
      let freed = false
      const free = Effect.suspend(() => {
        if (freed) return Effect.void
        freed = true
        return Effect.zipRight(Queue.offer(slots, true), Queue.offer(wake, true))
      })
      return FiberSet.run(
        attempts,
        runAttempt(d, { ...deps, sent: free }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.logWarning(`webhook delivery ${d.id}: attempt failed; the lease expires and it is tried again`, cause)
          ),
          Effect.asVoid,
          // wakes the poller again once the lease is released: the webhook has room again
          Effect.ensuring(Effect.zipRight(free, Queue.offer(wake, true)))
        )
      )
    }

    /** Claims up to the free slots and starts their attempts; answers how many slots it had and filled. */
    const claimAndStart = () =>
      Effect.gen(function* () {
        const tokens = Chunk.toReadonlyArray(yield* Queue.takeUpTo(slots, settings.concurrency))
        if (tokens.length === 0) return { slots: 0, started: 0 }
        const claimed = yield* store
          .claim({ limit: tokens.length, leaseMs, perWebhook: settings.perWebhook })
          .pipe(Effect.onError(() => Queue.offerAll(slots, tokens)))
        yield* Queue.offerAll(slots, tokens.slice(claimed.length))
        yield* Effect.forEach(claimed, start, { discard: true })
        return { slots: tokens.length, started: claimed.length }
      })

    yield* consumeJobs({
      stream: nats.names.eventsStream,
      durable: nats.names.webhookFanoutConsumer,
      schema: EventMessageJson,
      concurrency: settings.fanoutConcurrency,
      handle: (message) =>
        Effect.gen(function* () {
          const ids = yield* fanOut(message, { repo, store })
          // recorded: the poller claims them, together with those of the events fanned out
          // meanwhile (one claim for many events rather than one per event)
          if (ids.length > 0) yield* Queue.offer(wake, true)
          return JobOutcome.Done()
        })
    })

    // due retries, deliveries held back by the per-webhook limit and those a dead dispatcher
    // left: claimed again at once while every free slot finds one, else after a finished
    // attempt (a few ms later, so one claim serves the slots freed meanwhile) or pollMs
    const poll = claimAndStart().pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("claiming due webhook deliveries failed", cause).pipe(Effect.as({ slots: 0, started: 0 }))),
      Effect.flatMap(({ slots: free, started }) =>
        free > 0 && started === free
          ? Effect.void
          : Queue.take(wake).pipe(Effect.timeout(settings.pollMs), Effect.ignore, Effect.zipRight(Effect.sleep(CLAIM_BATCH_MS)))
      ),
      Effect.forever
    )
    yield* Effect.forkScoped(poll)

    // shutdown: attempts in flight finish (each bounded by the timeout); the rest wait for their lease
    yield* Effect.addFinalizer(() => FiberSet.awaitEmpty(attempts).pipe(Effect.timeout(settings.timeoutMs + 1000), Effect.ignore))
    yield* Effect.logInfo("webhook dispatcher started")
  })
)

export const WebhooksLive = dispatcher.pipe(Layer.provide(Layer.orDie(KeptAliveOutboundHttpLive)), Layer.orDie)
