import { Effect, Layer, Schema } from "effect"
import { PublishJobJson } from "../../protocol/jobs.js"
import { consumeDurable, Nats } from "../platform/nats.js"
import { publishItem } from "./publishItem.js"

const decodeJob = Schema.decodeUnknown(PublishJobJson)

/**
 * The publisher: consumes PUBLISH. A job that fails unexpectedly is redelivered after a
 * pause; its attempt row makes the next delivery search instead of sending again.
 */
export const PublisherLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const nats = yield* Nats
    yield* consumeDurable({
      stream: nats.names.publishStream,
      durable: nats.names.publisherConsumer,
      ackWaitMs: 60_000,
      handle: (msg) =>
        decodeJob(msg.string()).pipe(
          Effect.flatMap((job) => publishItem(job.itemId)),
          Effect.matchCauseEffect({
            onSuccess: () => Effect.sync(() => msg.ack()),
            onFailure: (cause) =>
              Effect.logWarning("publish job failed; redelivering", cause).pipe(Effect.zipRight(Effect.sync(() => msg.nak(5_000))))
          })
        )
    })
    yield* Effect.logInfo("publisher started")
  })
)
