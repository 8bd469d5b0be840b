import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import { connect, headers as natsHeaders, type NatsConnection, RetentionPolicy } from "nats"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppConfigLive } from "../../services/platform/config.js"
import { consumeJobs, type Delivery, JobOutcome } from "../../services/platform/jetstreamConsumer.js"
import { type Nats, NatsLive } from "../../services/platform/nats.js"
import { TestJobJson } from "../support/testJob.js"
import { processGroup } from "../support/processes.js"
import { createWorld, worldConfig, type TestWorld } from "../support/system.js"
import { sleep, waitFor } from "../support/wait.js"

/**
 * The platform's JetStream consumer (services/platform/jetstreamConsumer.ts) against the
 * real server: what happens to a message that cannot be decoded, to a job slower than the
 * ack wait, to a job whose process is SIGKILLed, and to a job in flight at shutdown.
 * Outcomes are read from the handlers and from the server's own counts.
 */

const ACK_WAIT_MS = 1000

let world: TestWorld
let nc: NatsConnection
let runtime: ManagedRuntime.ManagedRuntime<Nats, unknown>
let stream: string
let subjectOf: (name: string) => string
const children = processGroup()

beforeAll(async () => {
  world = await createWorld("jobconsumer")
  nc = await connect({ servers: world.natsUrl })
  stream = `${world.namespace.toUpperCase()}_JOBTEST`
  subjectOf = (name) => `${world.namespace}.jobtest.${name}`
  const jsm = await nc.jetstreamManager()
  await jsm.streams.add({ name: stream, subjects: [`${world.namespace}.jobtest.>`], retention: RetentionPolicy.Workqueue })
  runtime = ManagedRuntime.make(NatsLive.pipe(Layer.provide(AppConfigLive), Layer.provide(worldConfig(world))))
  await runtime.runPromise(Effect.void)
}, 60_000)

afterAll(async () => {
  await children.stopAll()
  await runtime?.dispose()
  if (nc !== undefined) {
    const jsm = await nc.jetstreamManager()
    await jsm.streams.delete(stream).catch(() => false)
    await nc.close()
  }
  await world?.drop()
})

const send = async (name: string, body: string) => {
  const h = natsHeaders()
  h.set("Nats-Msg-Id", crypto.randomUUID())
  await nc.jetstream().publish(subjectOf(name), body, { headers: h })
}

const consumerInfo = async (durable: string) => (await nc.jetstreamManager()).consumers.info(stream, durable)
const messagesOn = async (name: string) => {
  const info = await (await nc.jetstreamManager()).streams.info(stream, { subjects_filter: subjectOf(name) })
  return info.state.subjects?.[subjectOf(name)] ?? 0
}

/** Starts a consumer in its own scope; closing the scope is the shutdown. */
const startConsumer = async (
  name: string,
  handle: (job: typeof TestJobJson.Type, delivery: Delivery) => Effect.Effect<JobOutcome>,
  concurrency = 2
) => {
  const scope = await runtime.runPromise(Scope.make())
  await runtime.runPromise(
    consumeJobs({
      stream,
      durable: `${world.namespace}_${name}`,
      filterSubject: subjectOf(name),
      schema: TestJobJson,
      concurrency,
      ackWaitMs: ACK_WAIT_MS,
      handle
    }).pipe(Scope.extend(scope))
  )
  return { durable: `${world.namespace}_${name}`, stop: () => runtime.runPromise(Scope.close(scope, Exit.void)) }
}

describe("a message that cannot be decoded", () => {
  it("is terminated: the handler never sees it and it is not redelivered", async () => {
    const seen: Array<string> = []
    const consumer = await startConsumer("undecodable", (job) => Effect.sync(() => seen.push(job.id)).pipe(Effect.as(JobOutcome.Done())))
    await send("undecodable", "this is not json")
    await send("undecodable", JSON.stringify({ id: "after", holdMs: 0 }))
    await waitFor("the good message was not handled", async () => (seen.includes("after") ? true : undefined))
    // longer than the ack wait: a message still pending would have come back by now
    await sleep(ACK_WAIT_MS * 2)
    const info = await consumerInfo(consumer.durable)
    expect(seen).toEqual(["after"])
    expect(info.num_redelivered).toBe(0)
    expect(info.num_ack_pending).toBe(0)
    expect(await messagesOn("undecodable")).toBe(0)
    await consumer.stop()
  })
})

describe("a job slower than the ack wait", () => {
  it("is not redelivered while it runs (heartbeats), and is acknowledged once done", async () => {
    const deliveries: Array<number> = []
    let finished = 0
    const consumer = await startConsumer("slow", (job, delivery) =>
      Effect.gen(function* () {
        deliveries.push(delivery.count)
        yield* Effect.sleep(job.holdMs)
        finished++
        return JobOutcome.Done()
      })
    )
    await send("slow", JSON.stringify({ id: "slow", holdMs: ACK_WAIT_MS * 4 }))
    await waitFor("the slow job did not finish", async () => (finished === 1 ? true : undefined), 20_000)
    await sleep(ACK_WAIT_MS * 2)
    const info = await consumerInfo(consumer.durable)
    expect(deliveries).toEqual([1])
    expect(info.num_redelivered).toBe(0)
    expect(info.num_ack_pending).toBe(0)
    expect(await messagesOn("slow")).toBe(0)
    await consumer.stop()
  })
})

describe("handler outcomes", () => {
  it("Retry naks with the delay and the job comes back; Drop terminates it", async () => {
    const calls: Array<string> = []
    const consumer = await startConsumer("outcomes", (job, delivery) =>
      Effect.sync(() => {
        calls.push(`${job.id}#${delivery.count}`)
        if (job.id === "retry") return delivery.count === 1 ? JobOutcome.Retry({ delayMs: 200 }) : JobOutcome.Done()
        return JobOutcome.Drop({ reason: "cannot succeed" })
      })
    )
    await send("outcomes", JSON.stringify({ id: "retry", holdMs: 0 }))
    await send("outcomes", JSON.stringify({ id: "drop", holdMs: 0 }))
    await waitFor("the retried job did not come back", async () => (calls.includes("retry#2") ? true : undefined))
    await sleep(ACK_WAIT_MS * 2)
    expect(calls.filter((c) => c.startsWith("retry"))).toEqual(["retry#1", "retry#2"])
    expect(calls.filter((c) => c.startsWith("drop"))).toEqual(["drop#1"])
    expect(await messagesOn("outcomes")).toBe(0)
    await consumer.stop()
  })
})

describe("a consumer process SIGKILLed in the middle of a job", () => {
  it("its message is redelivered to another consumer and handled there, once", async () => {
    const name = "killed"
    const env = {
      JOB_STREAM: stream,
      JOB_DURABLE: `${world.namespace}_${name}`,
      JOB_SUBJECT: subjectOf(name),
      JOB_ACK_WAIT_MS: String(ACK_WAIT_MS)
    }
    const child = await children.start(world, [], { script: "test/support/jobConsumerProcess.ts", env, ready: /consumer ready/, label: "consumer" })
    await send(name, JSON.stringify({ id: "k1", holdMs: 600_000 }))
    await child.waitForOutput(/handling k1 delivery 1/)
    const exit = await child.kill("SIGKILL")
    expect(exit.signal).toBe("SIGKILL")
    expect(child.output()).not.toMatch(/handled k1/)

    const handled: Array<string> = []
    const survivor = await startConsumer(name, (job, delivery) =>
      Effect.sync(() => handled.push(`${job.id}#${delivery.count}`)).pipe(Effect.as(JobOutcome.Done()))
    )
    await waitFor("the message of the killed process was not redelivered", async () => (handled.length > 0 ? true : undefined), 20_000)
    await sleep(ACK_WAIT_MS * 2)
    expect(handled).toEqual(["k1#2"])
    expect(await messagesOn(name)).toBe(0)
    await survivor.stop()
  })
})

describe("shutdown", () => {
  it("waits for the job in flight, which finishes and is acknowledged", async () => {
    let started = 0
    let finished = 0
    const consumer = await startConsumer("shutdown", (job) =>
      Effect.gen(function* () {
        started++
        yield* Effect.sleep(job.holdMs)
        finished++
        return JobOutcome.Done()
      })
    )
    await send("shutdown", JSON.stringify({ id: "inflight", holdMs: ACK_WAIT_MS * 2 }))
    await waitFor("the job did not start", async () => (started === 1 ? true : undefined))
    await consumer.stop()
    expect(finished).toBe(1)
    // the ack is on its way once stop returns
    await waitFor("the finished job was not acknowledged", async () => ((await messagesOn("shutdown")) === 0 ? true : undefined))
    expect((await consumerInfo(consumer.durable)).num_redelivered).toBe(0)
  })
})
