import { Config, Effect, Layer } from "effect"
import { PublishJobJson } from "../../protocol/jobs.js"
import { consumeJobs } from "../platform/jetstreamConsumer.js"
import { Nats } from "../platform/nats.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { ShortLinksRepo } from "../shortLinks/shortLinksRepo.js"
import { AttemptsRepo } from "./attemptsRepo.js"
import { publishItem } from "./publishItem.js"
import { PublishBatches } from "./publishBatches.js"
import { PublishLimiter } from "./publishLimiter.js"
import { RepeatsRepo } from "../posts/repeatsRepo.js"
import { runTokenRefresher } from "./tokenRefresher.js"
import { DEFAULT_EXPIRY_WARNING_DAYS } from "../../domain/channelHealth.js"
import { PreparationWorkerLive } from "../media/preparationWorker.js"
import { RenditionsRepo } from "../media/renditionsRepo.js"

/**
 * Jobs one publisher process holds at once (PUBLISHER_CONCURRENCY's default): enough that the
 * calls in flight never wait for a job, few enough that the jobs held do not cost the thread
 * more than they save (the rest of a burst waits in JetStream at no cost; docs/performance.md).
 */
export const DEFAULT_PUBLISHER_CONCURRENCY = 512

/** Unacknowledged PUBLISH messages across every publisher process. */
const PUBLISH_MAX_ACK_PENDING = 50_000

/**
 * The publisher: consumes PUBLISH with the platform's consumer (bounded concurrency,
 * heartbeats while a network answers slowly, drain on shutdown). A job that fails
 * unexpectedly is redelivered after a pause; its attempt row makes the next delivery
 * search instead of sending again.
 */
const publisher = Layer.scopedDiscard(
  Effect.gen(function* () {
    const nats = yield* Nats
    // jobs held at once: most wait for their due second or their network's slot (PUBLISH_LIMITS bounds the calls)
    const concurrency = yield* Config.integer("PUBLISHER_CONCURRENCY").pipe(Config.withDefault(DEFAULT_PUBLISHER_CONCURRENCY))
    const ackWaitMs = yield* Config.integer("PUBLISHER_ACK_WAIT_MS").pipe(Config.withDefault(30_000))
    const networkTimeoutMs = yield* Config.integer("PUBLISH_TIMEOUT_MS").pipe(Config.withDefault(60_000))
    // an attempt's lease lasts as long as a message's ack wait: a dead job loses both together
    // a job due within two thirds of the ack wait waits for it here: its heartbeat keeps the message
    const settings = { leaseMs: ackWaitMs, networkTimeoutMs, holdUntilDueMs: Math.floor((ackWaitMs * 2) / 3) }
    yield* consumeJobs({
      stream: nats.names.publishStream,
      durable: nats.names.publisherConsumer,
      schema: PublishJobJson,
      concurrency,
      ackWaitMs,
      // every publisher process may hold its jobs at once; the same figure in every process (one consumer's setting)
      maxAckPending: PUBLISH_MAX_ACK_PENDING,
      handle: (job) => publishItem(job.itemId, settings)
    })
    // X tokens last 2 hours and are refreshed in their last 5 minutes: a pass every 4 minutes catches each
    const refreshEveryMs = yield* Config.integer("TOKEN_REFRESH_INTERVAL_MS").pipe(Config.withDefault(240_000))
    // channel.expiring this many days ahead of a token's expiry (docs/networks.md, "Channel health and expiry warnings")
    const warningDays = yield* Config.number("CHANNEL_EXPIRY_WARNING_DAYS").pipe(
      Config.validate({ message: "CHANNEL_EXPIRY_WARNING_DAYS must be 0 or more", validation: (days) => days >= 0 }),
      Config.withDefault(DEFAULT_EXPIRY_WARNING_DAYS)
    )
    yield* Effect.forkScoped(runTokenRefresher(refreshEveryMs, warningDays))
    yield* Effect.logInfo("publisher started")
  })
)

// media preparation (PREPARE) runs beside publishing as a consumer of its own: services/media/preparationWorker.ts
export const PublisherLive = Layer.merge(publisher, PreparationWorkerLive).pipe(
  Layer.provide(
    Layer.mergeAll(
      NetworkAdapters.Default,
      // the grouped statements share the repositories the jobs use
      PublishBatches.Live.pipe(Layer.provideMerge(Layer.merge(AttemptsRepo.Live, RepeatsRepo.Live))),
      ShortLinksRepo.Live,
      PublishLimiter.Live,
      RenditionsRepo.Live
    )
  )
)
