/**
 * Webhook delivery: deliveries per second to a local receiver and the delay from an
 * event's commit to its first attempt arriving (p50/p99), next to a plain HTTP POST loop
 * to the same receiver in the same run (the floor: no database, no signing, no policy).
 *   npm run bench -- webhooks          (EVENTS=…, WEBHOOKS=…, SAMPLES=… to change the load;
 *                                       WEBHOOK_CONCURRENCY=…, WEBHOOK_PER_RECEIVER=…, WEBHOOK_FANOUT_CONCURRENCY=…)
 *
 * The dispatcher runs in this process with its defaults (64 attempts in flight, 8 per
 * webhook); events are written with Outbox.transaction, as every producer writes them.
 */
import { createServer, request, Agent } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, ManagedRuntime } from "effect"
import { WorkspaceId } from "../../domain/ids.js"
import { makeOutboundHttp } from "../../services/platform/outbound/outboundHttp.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { makeAdminOperations } from "../../services/admin/operations.js"
import * as Outbox from "../../services/platform/outbox.js"
import { authorize } from "../../services/platform/policy.js"
import { WebhooksLive } from "../../services/webhooks/main.js"
import { Webhooks } from "../../services/webhooks/Webhooks.js"
import { urlsFromEnv } from "../support/servers.js"
import { createWorld, infrastructure } from "../support/system.js"

const EVENTS = Number(process.env["EVENTS"] ?? 300)
const WEBHOOKS = Number(process.env["WEBHOOKS"] ?? 10)
const SAMPLES = Number(process.env["SAMPLES"] ?? 200)
const CONCURRENCY = 64
const WARMUP = 500
/** Events per producer transaction; the transactions run at once. */
const PER_TRANSACTION = 10

// the receiver: 200 at once; tells who waits for a delivery (by the event's name field) when it arrives
const waiting = new Map<string, (at: number) => void>()
let received = 0
let onReceived: (() => void) | undefined
const server = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    const at = performance.now()
    received++
    onReceived?.()
    const body = Buffer.concat(chunks).toString("utf8")
    if (body !== "") {
      const name = (JSON.parse(body) as { data?: { name?: string } }).data?.name
      if (name !== undefined) waiting.get(name)?.(at)
    }
    res.writeHead(200).end()
  })
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = (server.address() as AddressInfo).port
const url = `http://127.0.0.1:${port}/hook`

const world = await createWorld("benchwebhooks", urlsFromEnv())
// the dispatcher's settings may be varied from the environment (docs/webhooks.md, "Configuration")
const passed = ["WEBHOOK_PER_RECEIVER", "WEBHOOK_CONCURRENCY", "WEBHOOK_FANOUT_CONCURRENCY"].flatMap((name) => {
  const value = process.env[name]
  return value === undefined ? [] : [[name, value] as const]
})
const extra: Record<string, string> = { OUTBOUND_ALLOW: `127.0.0.1:${port}`, ...Object.fromEntries(passed) }
const runtime = ManagedRuntime.make(Layer.mergeAll(WebhooksLive, Webhooks.Default).pipe(Layer.provideMerge(infrastructure(world, extra))))

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (xs: ReadonlyArray<number>, p: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}
const latency = (label: string, xs: ReadonlyArray<number>) =>
  console.log(
    label.padEnd(60),
    `p50 ${percentile(xs, 50).toFixed(2).padStart(8)} ms   p99 ${percentile(xs, 99).toFixed(2).padStart(8)} ms   (n=${xs.length})`
  )
const rate = (label: string, count: number, ms: number) =>
  console.log(label.padEnd(60), `${((count / ms) * 1000).toFixed(0).padStart(7)} per s   (${count} in ${ms.toFixed(0)} ms)`)

/** A workspace with `n` webhooks that picked channel.disconnected (one event, n deliveries). */
const workspaceWith = async (n: number) => {
  const admin = await runtime.runPromise(makeAdminOperations)
  const { workspaceId } = await runtime.runPromise(admin.createWorkspace({ name: "Bench", plan: "ultimate" }))
  const asOwner = Effect.provideService(CurrentPrincipal, {
    workspaceId: WorkspaceId.make(workspaceId),
    userId: null,
    role: "owner",
    tokenKind: "live",
    actor: "bench"
  })
  for (let i = 0; i < n; i++) {
    await runtime.runPromise(
      Effect.flatMap(Webhooks, (w) => w.create({ name: `hook ${i}`, url, events: ["channel.disconnected"], channelIds: [], active: true })).pipe(
        authorize("webhooks.manage"),
        asOwner
      )
    )
  }
  return workspaceId
}

const event = (name: string) => ({ event: "channel.disconnected" as const, data: { channelId: crypto.randomUUID(), provider: "x", name } })

// ---- commit → first attempt, one event at a time to one webhook ----
const single = await workspaceWith(1)
const commitToAttempt = async (name: string) => {
  const arrived = new Promise<number>((resolve) => waiting.set(name, resolve))
  let committedAt = 0
  await runtime.runPromise(
    Outbox.transaction(
      Effect.gen(function* () {
        yield* Outbox.write(single, [event(name)])
        committedAt = performance.now()
      })
    )
  )
  const at = await Promise.race([arrived, sleep(10_000).then(() => NaN)])
  waiting.delete(name)
  return at - committedAt
}
for (let i = 0; i < 20; i++) await commitToAttempt(`warm-${i}`)
const delays: Array<number> = []
for (let i = 0; i < SAMPLES; i++) delays.push(await commitToAttempt(`sample-${i}`))

// ---- the plain loop: one POST at a time, then CONCURRENCY at once, keep-alive ----
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY })
const post = () =>
  new Promise<void>((resolve, reject) => {
    const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json" } }, (res) => {
      res.resume()
      res.on("end", () => resolve())
    })
    req.on("error", reject)
    req.end('{"event":"plain","data":{}}')
  })
const plainDelays: Array<number> = []
for (let i = 0; i < SAMPLES; i++) {
  const started = performance.now()
  await post()
  plainDelays.push(performance.now() - started)
}
const total = EVENTS * WEBHOOKS
// both loops first run a warm-up round (connections opened, code compiled), as the dispatcher had its latency samples
const plainLoop = async (count: number) => {
  let next = 0
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) await post()
    })
  )
}
await plainLoop(WARMUP)
const plainStarted = performance.now()
await plainLoop(total)
const plainMs = performance.now() - plainStarted

// ---- the one outbound client alone (SSRF checks, kept-alive connections pinned to checked addresses), same load ----
const outbound = makeOutboundHttp({ allow: [{ address: "127.0.0.1", port }], keepAlive: true })
const outboundLoop = (count: number) =>
  Effect.runPromise(
    Effect.forEach(
      Array.from({ length: count }),
      () => outbound.fetch({ url, method: "POST", body: '{"event":"plain","data":{}}', timeoutMs: 15_000 }),
      {
        concurrency: CONCURRENCY,
        discard: true
      }
    )
  )
await outboundLoop(WARMUP)
const outboundStarted = performance.now()
await outboundLoop(total)
const outboundMs = performance.now() - outboundStarted

// ---- throughput: EVENTS events fanned out to WEBHOOKS webhooks ----
const many = await workspaceWith(WEBHOOKS)
received = 0
const allDelivered = new Promise<void>((resolve) => (onReceived = () => received >= total && resolve()))
const started = performance.now()
// producers commit side by side, as concurrent API requests do (a single producer would
// measure its own one-at-a-time JetStream publishes, not the dispatcher)
await Promise.all(
  Array.from({ length: Math.ceil(EVENTS / PER_TRANSACTION) }, (_, t) =>
    runtime.runPromise(
      Outbox.transaction(
        Outbox.write(
          many,
          Array.from({ length: Math.min(PER_TRANSACTION, EVENTS - t * PER_TRANSACTION) }, (_, j) => event(`burst-${t * PER_TRANSACTION + j}`))
        )
      )
    )
  )
)
const producedMs = performance.now() - started
const finished = await Promise.race([allDelivered.then(() => true), sleep(120_000).then(() => false)])
const dispatcherMs = performance.now() - started

console.log(`webhook delivery (${EVENTS} events × ${WEBHOOKS} webhooks = ${total} deliveries; ${SAMPLES} latency samples)`)
latency("commit → first attempt at the receiver (dispatcher)", delays)
latency("baseline: one plain POST round trip", plainDelays)
rate(`deliveries per second (dispatcher)${finished ? "" : " — NOT all arrived in 120 s"}`, received, dispatcherMs)
rate(`  (events committed and published by ${Math.ceil(EVENTS / PER_TRANSACTION)} producers)`, EVENTS, producedMs)
rate(`baseline: plain POST loop, ${CONCURRENCY} in flight, keep-alive`, total, plainMs)
rate(`baseline: the outbound client alone, ${CONCURRENCY} in flight`, total, outboundMs)

agent.destroy()
await runtime.dispose()
server.closeAllConnections()
server.close()
await world.drop()
process.exit(0)
