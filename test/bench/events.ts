/**
 * Commit → JetStream EVENTS delay of an outbox row: published right after the commit
 * (Outbox.transaction) next to the old 250 ms poller (the same relay query run every
 * 250 ms on every unpublished row), and what the after-commit publish adds to the
 * producing transaction.   npm run bench -- events
 *
 * The delay is measured in this process from the end of the transaction's body (the
 * COMMIT is issued next) to the message's arrival at a subscriber of the EVENTS subjects.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Fiber, ManagedRuntime, Schedule } from "effect"
import { connect } from "nats"
import { names } from "../../protocol/names.js"
import type { Nats } from "../../services/platform/nats.js"
import * as Outbox from "../../services/platform/outbox.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld, infrastructure } from "../support/system.js"

const samples = Number(process.env["SAMPLES"] ?? 300)
const world = await createWorld("benchevents", urlsFromEnv())
const runtime = ManagedRuntime.make(infrastructure(world))
const workspaceId = crypto.randomUUID()

const arrived = new Map<string, (at: number) => void>()
const nc = await connect({ servers: world.natsUrl.split(",") })
nc.subscribe(names(world.namespace).eventsSubjects, {
  callback: (_e, msg) => {
    const id = msg.headers?.get("Nats-Msg-Id")
    if (id !== undefined) arrived.get(id)?.(performance.now())
  }
})
await nc.flush()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}
const report = (label: string, xs: ReadonlyArray<number>) =>
  console.log(
    label.padEnd(58),
    `p50 ${percentile(xs, 50).toFixed(2).padStart(7)} ms   p99 ${percentile(xs, 99).toFixed(2).padStart(7)} ms   (n=${xs.length})`
  )

type Body = Effect.Effect<void, unknown, SqlClient.SqlClient | Outbox.OutboxTransaction>

/** One event written in `transaction`; answers [commit → on EVENTS, transaction duration]. */
const sample = async (transaction: (body: Body) => Effect.Effect<void, unknown, SqlClient.SqlClient | Nats>) => {
  let committedAt = 0
  let onStream: Promise<number> = Promise.resolve(NaN)
  let id = ""
  const body: Body = Effect.gen(function* () {
    id = (yield* Outbox.write(workspaceId, [{ event: "test", data: { message: "bench" } }]))[0]!
    // listen before the commit: the after-commit publish may arrive before `transaction` returns
    onStream = new Promise<number>((resolve) => arrived.set(id, resolve))
    committedAt = performance.now()
  })
  const started = performance.now()
  await runtime.runPromise(transaction(body))
  const duration = performance.now() - started
  const at = await Promise.race([onStream, sleep(10_000).then(() => NaN)])
  arrived.delete(id)
  return [at - committedAt, duration] as const
}

// the old relay: every 250 ms, every unpublished row (the sweeper's query with no age)
const oldPoller = Outbox.sweep({ olderThanSeconds: 0 }).pipe(Effect.repeat(Schedule.spaced("250 millis")), Effect.orDie)

// rows written in a plain transaction: nothing publishes them after the commit
const plainTransaction = (body: Body) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.provideService(body, Outbox.OutboxTransaction, { rowIds: [] })))

// warm up connections and JIT
for (let i = 0; i < 30; i++) await sample(Outbox.transaction)

const afterCommit: Array<number> = []
const withPublish: Array<number> = []
for (let i = 0; i < samples; i++) {
  const [delay, duration] = await sample(Outbox.transaction)
  afterCommit.push(delay)
  withPublish.push(duration)
}
const plainDurations: Array<number> = []
for (let i = 0; i < samples; i++) {
  const started = performance.now()
  await runtime.runPromise(plainTransaction(Effect.asVoid(Outbox.write(workspaceId, [{ event: "test", data: { message: "plain" } }]))))
  plainDurations.push(performance.now() - started)
}
// the rows just written are left for the poller below: publish them first so they do not count
await runtime.runPromise(Outbox.sweep({ olderThanSeconds: 0, batch: 10_000 }))

const poller = runtime.runFork(oldPoller)
const polled: Array<number> = []
const pollerSamples = Math.min(samples, 100)
for (let i = 0; i < pollerSamples; i++) {
  // writes land at a random phase of the poller's 250 ms period
  await sleep(Math.random() * 250)
  polled.push((await sample(plainTransaction))[0])
}
await runtime.runPromise(Fiber.interrupt(poller))

console.log(`outbox → EVENTS, one event per transaction, sequential (${samples} samples)`)
report("commit → on EVENTS, published right after commit", afterCommit)
report("commit → on EVENTS, old 250 ms poller (baseline)", polled)
report("producing transaction, Outbox.transaction (with publish)", withPublish)
report("producing transaction, plain sql.withTransaction", plainDurations)
console.log("rows left behind (failed publish, no NATS): the sweeper publishes them after 3-5 s (every 2 s, rows older than 3 s)")

await nc.close()
await runtime.dispose()
await world.drop()
process.exit(0)
