import { NodeRuntime } from "@effect/platform-node"
import { Context, Effect, Either, Layer, Schema } from "effect"
import { ActorHostLive } from "./actors/host.js"
import { seedDemoWorkspace } from "./admin/demo.js"
import { GatewayLive } from "./gateway/server.js"
import { AppConfig, AppConfigLive } from "./platform/config.js"
import { DatabaseLive } from "./platform/db.js"
import { fiberRootRegistryNotInstalled, installFiberRootRegistry } from "./platform/fiberRoots.js"
import { natsCheck, postgresCheck, redisCheck } from "./platform/health.js"
import { listenForHealth } from "./platform/healthListener.js"
import { markReady, partUp, waitFor } from "./platform/readiness.js"
import { LoggingLive } from "./platform/logging.js"
import { TracingLive } from "./platform/tracing.js"
import { NatsLive } from "./platform/nats.js"
import { RedisLive } from "./platform/redis.js"
import { serveUntilStopped, serviceThreadData, startServiceThread } from "./platform/serviceThread.js"
import { PublisherLive } from "./publisher/main.js"
import { SchedulerLive } from "./scheduler/main.js"
import { WebhooksLive } from "./webhooks/main.js"

/**
 * Runs any subset of the five services in one process:
 *   node dist/services/main.js                 all of them (npm start builds dist/ first): the
 *                                              gateway on this thread, the publisher on a worker thread,
 *                                              the others on another
 *   node dist/services/main.js gateway actors  just these, on this thread (tsx services/main.ts … in development)
 */
// before any fiber runs on this thread (both threads run this module); said at start when it could not be done
const fiberRootRegistryInstalled = installFiberRootRegistry()

const services = {
  gateway: GatewayLive.pipe(Layer.annotateLogs("service", "gateway")),
  actors: ActorHostLive.pipe(Layer.annotateLogs("service", "actors")),
  scheduler: SchedulerLive.pipe(Layer.annotateLogs("service", "scheduler")),
  publisher: PublisherLive.pipe(Layer.annotateLogs("service", "publisher")),
  webhooks: WebhooksLive.pipe(Layer.annotateLogs("service", "webhooks"))
} as const
type ServiceName = keyof typeof services
const isServiceName = (s: string): s is ServiceName => s in services

/** On the services' worker thread: the services the main thread gave it. */
const requested = serviceThreadData?.serviceThread ?? process.argv.slice(2)
const unknown = requested.filter((s) => !isServiceName(s))
if (unknown.length > 0) {
  process.stderr.write(`Unknown service ${unknown.join(", ")}. Services: ${Object.keys(services).join(", ")}.\n`)
  process.exit(2)
}
const selected: ReadonlyArray<ServiceName> = requested.length > 0 ? requested.filter(isServiceName) : Object.keys(services).filter(isServiceName)
/** PUBLISHER_THREADS: publisher threads under npm start (each one consumer of PUBLISH with its own limits, like a replica). */
const publisherThreadsGiven = Schema.decodeUnknownEither(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 16)))(
  process.env["PUBLISHER_THREADS"] ?? "1"
)
if (Either.isLeft(publisherThreadsGiven)) {
  process.stderr.write("Cannot start: PUBLISHER_THREADS must be a whole number from 1 to 16.\n")
  process.exit(1)
}
const publisherThreads = publisherThreadsGiven.right
/**
 * No service named (npm start): every one but the gateway goes to a worker thread
 * (services/platform/serviceThread.ts), the publisher to one of its own: at the top of the
 * hour its sends and outcomes would otherwise share one core with the claims and the webhooks.
 */
const workerThreads: ReadonlyArray<ReadonlyArray<ServiceName>> =
  requested.length === 0
    ? [
        selected.filter((s) => s !== "gateway" && s !== "publisher"),
        ...Array.from({ length: publisherThreads }, () => selected.filter((s) => s === "publisher"))
      ].filter((t) => t.length > 0)
    : []
const onWorker: ReadonlyArray<ServiceName> = workerThreads.flat()
const here = selected.filter((s) => !onWorker.includes(s))
const isWorker = serviceThreadData !== null

// Postgres and NATS for every service; Redis only for the gateway and the actor hosts, which connect to it themselves.
// Each says when it is up, for /readyz's reason while start waits (services/platform/readiness.ts)
const Infrastructure = Layer.mergeAll(DatabaseLive.pipe(Layer.tap(() => partUp("postgres"))), NatsLive.pipe(Layer.tap(() => partUp("nats"))))
/** SEED_DEMO (default on): the demo workspace on the first start with an empty database (the main thread's task). */
const Seed = isWorker ? Layer.empty : Layer.effectDiscard(Effect.flatMap(AppConfig, (config) => (config.seedDemo ? seedDemoWorkspace : Effect.void)))
const Services = Layer.mergeAll(Seed, ...here.map((name) => services[name]))
/** What /readyz asks once started: the servers this process uses (Redis only with the gateway or an actor host). */
const usesRedis = selected.includes("gateway") || selected.includes("actors")

const cannotStart = (e: { readonly message: string }) =>
  Effect.sync(() => {
    process.stderr.write(`Cannot start: ${e.message}\n`)
    process.exitCode = 1
  })

/**
 * Starts every selected service, then says so (`all services up`, after the demo workspace).
 * A server that cannot be reached, a port that cannot be used, production without
 * its own SECRET_KEY, or no usable PUBLIC_URL: say what and how to fix it in one line, exit 1.
 */
const program = Effect.gen(function* () {
  const config = yield* Layer.build(AppConfigLive)
  // the health listener first, before any server is asked: /healthz 200 and /readyz 503 (with what start
  // waits for) from here until the process exits (services/platform/healthListener.ts). The worker thread
  // has none: its process's main thread answers for it
  if (!isWorker) yield* listenForHealth(Context.get(config, AppConfig).healthPort)
  yield* waitFor(["postgres", "nats"])
  // configuration, Postgres and NATS first: a start they refuse is said once, before any worker thread
  const infrastructure = Context.merge(config, yield* Layer.build(Infrastructure).pipe(Effect.provide(config)))
  yield* waitFor([...here, ...onWorker])
  // then the worker threads, before the gateway, so that they stop after the gateway (whose requests may wait for their actors)
  const threads = yield* Effect.forEach(workerThreads, (services) => startServiceThread(new URL(import.meta.url), services))
  yield* Layer.build(Services).pipe(Effect.provide(infrastructure))
  if (isWorker) return yield* serveUntilStopped
  const servers = yield* Effect.all([postgresCheck, natsCheck]).pipe(Effect.provide(infrastructure))
  const redis = usesRedis ? [yield* redisCheck.pipe(Effect.provide(yield* Layer.build(RedisLive).pipe(Effect.provide(infrastructure))))] : []
  yield* markReady([...servers, ...redis])
  yield* Effect.logInfo(`all services up: ${selected.join(", ")}`)
  return yield* threads.length === 0 ? Effect.never : Effect.raceAll(threads.map((t) => t.stopped))
}).pipe(
  Effect.scoped,
  Effect.catchTags({
    // the worker thread has said why (Cannot start: …, or its failure); this one stops too
    ServiceThreadStopped: (e) =>
      Effect.logError(`the thread of ${onWorker.join(", ")} stopped (exit code ${e.exitCode}); stopping`).pipe(
        Effect.zipRight(
          Effect.sync(() => {
            process.exitCode = 1
          })
        )
      ),
    SecretKeyMissing: cannotStart,
    PublicUrlInvalid: cannotStart,
    DatabaseUnavailable: cannotStart,
    NatsUnavailable: cannotStart,
    RedisUnavailable: cannotStart,
    HealthServerUnavailable: cannotStart
  })
)

Effect.logInfo(`starting ${here.join(", ")}${workerThreads.map((t) => ` (and ${t.join(", ")} on a worker thread)`).join("")}`).pipe(
  Effect.zipRight(fiberRootRegistryInstalled ? Effect.void : Effect.logWarning(fiberRootRegistryNotInstalled)),
  Effect.zipRight(program),
  // JSON lines or pretty (LOG_FORMAT, LOG_LEVEL), secrets redacted: services/platform/logging.ts
  Effect.provide(LoggingLive({ service: here.join("+"), ...(serviceThreadData === null ? {} : { terminal: serviceThreadData.terminal }) })),
  // OpenTelemetry over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: services/platform/tracing.ts
  Effect.provide(TracingLive(here.join("+"))),
  NodeRuntime.runMain({ disableErrorReporting: false, disablePrettyLogger: true })
)
