import { Config, Effect, Layer } from "effect"
import { PublishJobJson } from "../../protocol/jobs.js"
import { consumeJobs, JobOutcome } from "../platform/jetstreamConsumer.js"
import { Nats } from "../platform/nats.js"
import { publishItem } from "./publishItem.js"

/**
 * The publisher: consumes PUBLISH with the platform's consumer (bounded concurrency,
 * heartbeats while a network answers slowly, drain on shutdown). A job that fails
 * unexpectedly is redelivered after a pause; its attempt row makes the next delivery
 * search instead of sending again.
 */
export const PublisherLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const nats = yield* Nats
    const concurrency = yield* Config.integer("PUBLISHER_CONCURRENCY").pipe(Config.withDefault(4))
    const ackWaitMs = yield* Config.integer("PUBLISHER_ACK_WAIT_MS").pipe(Config.withDefault(30_000))
    yield* consumeJobs({
      stream: nats.names.publishStream,
      durable: nats.names.publisherConsumer,
      schema: PublishJobJson,
      concurrency,
      ackWaitMs,
      handle: (job) => publishItem(job.itemId).pipe(Effect.as(JobOutcome.Done()))
    })
    yield* Effect.logInfo("publisher started")
  })
)
