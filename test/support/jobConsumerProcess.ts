import { NodeRuntime } from "@effect/platform-node"
import { Config, Effect, Layer } from "effect"
import { AppConfigLive } from "../../services/platform/config.js"
import { consumeJobs, JobOutcome } from "../../services/platform/jetstreamConsumer.js"
import { NatsLive } from "../../services/platform/nats.js"
import { TestJobJson } from "./testJob.js"

/**
 * A process that consumes a test stream with the platform's consumer, for fault tests:
 * each job writes `handling <id> delivery <n>`, holds for its `holdMs`, then writes
 * `handled <id>`. Killing it mid-job shows what happens to the message.
 */

const program = Effect.gen(function* () {
  const stream = yield* Config.string("JOB_STREAM")
  const durable = yield* Config.string("JOB_DURABLE")
  const filterSubject = yield* Config.string("JOB_SUBJECT")
  const ackWaitMs = yield* Config.integer("JOB_ACK_WAIT_MS")
  yield* consumeJobs({
    stream,
    durable,
    filterSubject,
    schema: TestJobJson,
    concurrency: 2,
    ackWaitMs,
    handle: (job, delivery) =>
      Effect.gen(function* () {
        yield* Effect.sync(() => process.stdout.write(`handling ${job.id} delivery ${delivery.count}\n`))
        yield* Effect.sleep(job.holdMs)
        yield* Effect.sync(() => process.stdout.write(`handled ${job.id}\n`))
        return JobOutcome.Done()
      })
  })
  yield* Effect.sync(() => process.stdout.write("consumer ready\n"))
  return yield* Effect.never
})

Effect.scoped(program).pipe(Effect.provide(NatsLive.pipe(Layer.provide(AppConfigLive))), NodeRuntime.runMain)
