import { isMainThread, parentPort, Worker, type WorkerOptions, workerData } from "node:worker_threads"
import { Data, Effect, Option, Schema } from "effect"
import { addMetricsSource, registry } from "./metrics.js"

/**
 * `npm start` (every service in one process) runs on three threads: the gateway on the main
 * thread, the actor host, scheduler and webhook dispatcher on a worker thread, the publisher
 * on another. They talk as separate processes do (NATS, Postgres, Redis); the threads only
 * let the second core do the actors' half of each request and the publisher's work at the
 * top of the hour (docs/operations.md, "Worker threads"). One thread was the limit of POST
 * /posts on a 2-core machine while the other core sat half idle.
 *
 * Between the threads: `up` once the worker's services have started (or the worker exits,
 * having said why it cannot start), `stop` to stop them cleanly, and its /metrics
 * (prom-client's JSON) when the gateway is scraped, summed into one answer.
 */

/** The worker's own services (main.ts starts them) and whether the main thread's stdout is a terminal (for the log format). */
const ServiceThreadData = Schema.Struct({
  serviceThread: Schema.Array(Schema.String),
  terminal: Schema.Boolean
})
export type ServiceThreadData = typeof ServiceThreadData.Type

const ToWorker = Schema.Union(Schema.TaggedStruct("Stop", {}), Schema.TaggedStruct("Metrics", { id: Schema.Number }))
const FromWorker = Schema.Union(
  Schema.TaggedStruct("Up", {}),
  Schema.TaggedStruct("Metrics", { id: Schema.Number, metrics: Schema.Array(Schema.Object) })
)
const decodeToWorker = Schema.decodeUnknownOption(ToWorker)
const decodeFromWorker = Schema.decodeUnknownOption(FromWorker)

/** The worker thread ended: before its services were up (it said why), or later, unasked. */
export class ServiceThreadStopped extends Data.TaggedError("ServiceThreadStopped")<{ readonly exitCode: number }> {}

/** How long a stop may take before the thread is terminated (the actor host hands its shards over first). */
const STOP_TIMEOUT_MS = 30_000
/** A scrape does not wait longer than this for the worker's metrics (it answers without them). */
const METRICS_TIMEOUT_MS = 2_000

/** This thread's part, when it is the services' worker thread (else none). */
export const serviceThreadData: ServiceThreadData | null = isMainThread
  ? null
  : Option.getOrNull(Schema.decodeUnknownOption(ServiceThreadData)(workerData))

/**
 * Main thread: starts `script` (main.ts) on a worker thread with `services`, and answers
 * once they are up; the scope's end stops them (and waits). `stopped` fails when the
 * thread ends without being asked to.
 */
export const startServiceThread = (script: URL, services: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly worker: Worker; readonly exited: Promise<number> }, ServiceThreadStopped>((resume) => {
      const options = { workerData: { serviceThread: [...services], terminal: process.stdout.isTTY === true } satisfies ServiceThreadData }
      const worker = script.pathname.endsWith(".ts") ? typeScriptWorker(script, options) : new Worker(script, options)
      // a failure the worker could not report itself (its module did not load): said here; its exit follows
      worker.on("error", (e) => process.stderr.write(`${e.stack ?? String(e)}\n`))
      const exited = new Promise<number>((done) => worker.once("exit", done))
      const onMessage = (message: unknown) => {
        const decoded = decodeFromWorker(message)
        if (decoded._tag === "Some" && decoded.value._tag === "Up") {
          worker.off("message", onMessage)
          resume(Effect.succeed({ worker, exited }))
        }
      }
      worker.on("message", onMessage)
      void exited.then((exitCode) => resume(Effect.fail(new ServiceThreadStopped({ exitCode }))))
    }),
    ({ worker, exited }) =>
      Effect.promise(() => {
        worker.postMessage(Schema.encodeSync(ToWorker)({ _tag: "Stop" }))
        const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS)
        return exited.finally(() => clearTimeout(timer))
      })
  ).pipe(
    Effect.map(({ worker, exited }) => {
      addMetricsSource(workerMetrics(worker))
      return {
        /** Fails once the thread ends on its own (a crash): the process stops too. */
        stopped: Effect.flatMap(
          Effect.promise(() => exited),
          (exitCode) => Effect.fail(new ServiceThreadStopped({ exitCode }))
        )
      }
    })
  )

/**
 * In development (tsx services/main.ts) the worker has to load TypeScript too: Node 20 does
 * not carry `--import tsx` into worker threads, so the worker registers tsx itself first.
 * tsx is a dev dependency, looked for only here, for a .ts entry: dist/ (npm start, the
 * image, which has no tsx) never gets here. Without tsx (a Node that strips types itself)
 * the worker loads the script as it is.
 */
const typeScriptWorker = (script: URL, options: WorkerOptions) => {
  const tsx = resolveTsx()
  return tsx === null
    ? new Worker(script, options)
    : new Worker(`import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(script.href)}) })`, {
        ...options,
        eval: true
      })
}

const resolveTsx = (): string | null => {
  try {
    return import.meta.resolve("tsx/esm/api")
  } catch {
    return null
  }
}

/** The worker's registry as JSON, asked over its port; nothing when it does not answer in time. */
const workerMetrics = (worker: Worker) => {
  let next = 0
  return () =>
    new Promise<ReadonlyArray<object>>((resolve) => {
      const id = next++
      const done = (metrics: ReadonlyArray<object>) => {
        clearTimeout(timer)
        worker.off("message", onMessage)
        resolve(metrics)
      }
      const onMessage = (message: unknown) => {
        const decoded = decodeFromWorker(message)
        if (decoded._tag === "Some" && decoded.value._tag === "Metrics" && decoded.value.id === id) done(decoded.value.metrics)
      }
      const timer = setTimeout(() => done([]), METRICS_TIMEOUT_MS)
      worker.on("message", onMessage)
      worker.postMessage(Schema.encodeSync(ToWorker)({ _tag: "Metrics", id }))
    })
}

/**
 * Worker thread: says its services are up, answers metrics questions, and returns when
 * the main thread asks it to stop (the caller's scope then stops the services).
 */
export const serveUntilStopped = Effect.async<void>((resume) => {
  const port = parentPort
  if (port === null) return resume(Effect.void)
  const onMessage = (message: unknown) => {
    const decoded = decodeToWorker(message)
    if (decoded._tag === "None") return
    if (decoded.value._tag === "Stop") {
      port.off("message", onMessage)
      resume(Effect.void)
      return
    }
    const { id } = decoded.value
    void registry.getMetricsAsJSON().then((metrics) => port.postMessage(Schema.encodeSync(FromWorker)({ _tag: "Metrics", id, metrics })))
  }
  port.on("message", onMessage)
  port.postMessage(Schema.encodeSync(FromWorker)({ _tag: "Up" }))
})
