import { HttpServerResponse } from "@effect/platform"
import { Effect, Runtime } from "effect"
import type pg from "pg"
import { getHeapStatistics } from "node:v8"
import { isMainThread, threadId } from "node:worker_threads"
import client from "prom-client"

/**
 * The process's Prometheus metrics (docs/operations.md, "Metrics"), served as GET /metrics in the
 * text format by the gateway on PORT and by every other process on HEALTH_PORT. One
 * registry per process (prom-client's): a process running several services shows all
 * of theirs. Counters and histograms are updated where things happen; gauges that
 * need a question asked (due items, outbox lag, pool use) are read when scraped.
 * Under `npm start` the services' worker thread (platform/serviceThread.ts) has a
 * registry of its own: the gateway's answer sums both, and only the main thread reports
 * the process-wide default metrics (CPU, memory, event loop), which would count twice.
 */
export const registry = client.register

if (isMainThread) client.collectDefaultMetrics({ register: registry })

/**
 * Each thread's own V8 heap: prom-client's `nodejs_heap_*` describe the main thread's alone,
 * and a worker thread's heap is its own (under `npm start` the actor host's).
 */
const threadLabel = isMainThread ? "main" : `worker ${threadId}`
const heapGauge = (name: string, help: string, read: (h: ReturnType<typeof getHeapStatistics>) => number) =>
  new client.Gauge({
    name,
    help,
    labelNames: ["thread"] as const,
    registers: [registry],
    collect() {
      this.set({ thread: threadLabel }, read(getHeapStatistics()))
    }
  })
heapGauge("thread_heap_used_bytes", "V8 heap in use, by thread (main, or worker <id>)", (h) => h.used_heap_size)
heapGauge("thread_heap_size_bytes", "V8 heap size (in use and free), by thread (main, or worker <id>)", (h) => h.total_heap_size)

/** Other threads' registries (prom-client JSON), summed into this one's answer. */
const otherThreads = new Set<() => Promise<ReadonlyArray<object>>>()

/** Adds a thread's registry to GET /metrics. */
export const addMetricsSource = (source: () => Promise<ReadonlyArray<object>>) => {
  otherThreads.add(source)
}

const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export const httpRequests = new client.Counter({
  name: "http_requests_total",
  help: "HTTP requests answered, by route template, method and status",
  labelNames: ["route", "method", "status"] as const
})

export const httpRequestDuration = new client.Histogram({
  name: "http_request_duration_seconds",
  help: "Time from a request's arrival to the end of its answer, by route template, method and status",
  labelNames: ["route", "method", "status"] as const,
  buckets: latencyBuckets
})

export const actorCommandDuration = new client.Histogram({
  name: "actor_command_duration_seconds",
  help: "Time a workspace actor command takes, waiting in its mailbox included, by command and outcome (ok, failed)",
  labelNames: ["command", "outcome"] as const,
  buckets: latencyBuckets
})

export const publishAttempts = new client.Counter({
  name: "publish_attempts_total",
  help: "Publish attempts on the networks, by network and outcome (published, failed, unconfirmed, …)",
  labelNames: ["network", "outcome"] as const
})

/** The retention jobs count each row they remove here, by table (docs/operations.md, "Retention"). */
export const retentionRowsRemoved = new client.Counter({
  name: "retention_rows_removed_total",
  help: "Rows removed by the retention jobs, by table",
  labelNames: ["table"] as const
})

/** The webhook dispatcher counts each delivery attempt here: outcome delivered, failed (will retry), gave_up, … */
export const webhookDeliveries = new client.Counter({
  name: "webhook_deliveries_total",
  help: "Webhook delivery attempts, by outcome",
  labelNames: ["outcome"] as const
})

/** A gauge whose value is asked for when /metrics is scraped; the last `source` given wins. */
const askedGauge = (name: string, help: string) => {
  let source: (() => Promise<number> | number) | null = null
  new client.Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      if (source === null) return
      try {
        this.set(await source())
      } catch {
        // a server that does not answer: the gauge keeps its last value, /metrics still answers
      }
    }
  })
  return (read: () => Promise<number> | number) => {
    source = read
  }
}

/** Commands waiting in or running on this process's workspace mailboxes. */
export const observeMailboxDepth = askedGauge("actor_mailbox_depth", "Commands running or waiting in this process's workspace mailboxes")
/** Shards whose lease this process's actor host holds. */
export const observeShardsOwned = askedGauge("actor_shards_owned", "Shards whose lease this process's actor host holds")
/** Post items due now or earlier that wait to be claimed by the scheduler. */
export const observeDueItemsWaiting = askedGauge("scheduler_due_items_waiting", "Post items due now or earlier, not claimed yet")
/** Age of the oldest outbox row not published to JetStream yet (0 when none waits). */
export const observeOutboxLag = askedGauge("outbox_lag_seconds", "Age of the oldest outbox event not yet published to JetStream")

const pools = new Set<pg.Pool>()
const poolGauge = (name: string, help: string, read: (p: pg.Pool) => number) =>
  new client.Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      let total = 0
      for (const p of pools) total += read(p)
      this.set(total)
    }
  })
poolGauge("pg_pool_connections", "Postgres connections this process's pools hold", (p) => p.totalCount)
poolGauge("pg_pool_idle_connections", "Postgres connections of this process's pools that are idle", (p) => p.idleCount)
poolGauge("pg_pool_waiting_requests", "Queries waiting for a Postgres connection in this process's pools", (p) => p.waitingCount)

/** Counts the pool in the pg_pool_* gauges; the answer stops counting it. */
export const trackPool = (pool: pg.Pool) => {
  pools.add(pool)
  return () => void pools.delete(pool)
}

/** Runs `effect` from a scrape: with the context of the layer that registered it. */
export const scrapeWith =
  <R>(runtime: Runtime.Runtime<R>) =>
  <A, E>(effect: Effect.Effect<A, E, R>) =>
  () =>
    Runtime.runPromise(runtime)(effect)

/** GET /metrics: the Prometheus text format (this thread's registry, and the other threads' summed in). */
export const metricsText = async (): Promise<string> => {
  if (otherThreads.size === 0) return registry.metrics()
  const threads = await Promise.all([registry.getMetricsAsJSON(), ...[...otherThreads].map((source) => source())])
  return client.AggregatorRegistry.aggregate(threads).metrics()
}

export const metricsContentType = registry.contentType

export const metricsResponse = Effect.promise(metricsText).pipe(
  Effect.map((text) => HttpServerResponse.text(text, { contentType: registry.contentType }))
)
