import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { ActorHostLive } from "./actors/host.js"
import { seedDemoWorkspace } from "./admin/demo.js"
import { GatewayLive } from "./gateway/server.js"
import { AppConfig, AppConfigLive } from "./platform/config.js"
import { DatabaseLive } from "./platform/db.js"
import { HealthServerLive, natsCheck, postgresCheck, redisCheck } from "./platform/health.js"
import { LoggingLive } from "./platform/logging.js"
import { TracingLive } from "./platform/tracing.js"
import { NatsLive } from "./platform/nats.js"
import { RedisLive } from "./platform/redis.js"
import { PublisherLive } from "./publisher/main.js"
import { SchedulerLive } from "./scheduler/main.js"
import { WebhooksLive } from "./webhooks/main.js"

/**
 * Runs any subset of the five services in one process:
 *   node dist/services/main.js                 all of them (npm start builds dist/ first)
 *   node dist/services/main.js gateway actors  just these (tsx services/main.ts … in development)
 */
const services = {
  gateway: GatewayLive.pipe(Layer.annotateLogs("service", "gateway")),
  actors: ActorHostLive.pipe(Layer.annotateLogs("service", "actors")),
  scheduler: SchedulerLive.pipe(Layer.annotateLogs("service", "scheduler")),
  publisher: PublisherLive.pipe(Layer.annotateLogs("service", "publisher")),
  webhooks: WebhooksLive.pipe(Layer.annotateLogs("service", "webhooks"))
} as const
type ServiceName = keyof typeof services
const isServiceName = (s: string): s is ServiceName => s in services

const requested = process.argv.slice(2)
const unknown = requested.filter((s) => !isServiceName(s))
if (unknown.length > 0) {
  process.stderr.write(`Unknown service ${unknown.join(", ")}. Services: ${Object.keys(services).join(", ")}.\n`)
  process.exit(2)
}
const selected: ReadonlyArray<ServiceName> = requested.length > 0 ? requested.filter(isServiceName) : Object.keys(services).filter(isServiceName)

// Postgres and NATS for every service; Redis only for the gateway and the actor hosts, which connect to it themselves
const Infrastructure = Layer.mergeAll(DatabaseLive, NatsLive).pipe(Layer.provideMerge(AppConfigLive))
/** SEED_DEMO (default on): the demo workspace on the first start with an empty database. */
const Seed = Layer.effectDiscard(Effect.flatMap(AppConfig, (config) => (config.seedDemo ? seedDemoWorkspace : Effect.void)))
/** The gateway answers /healthz and /readyz on its port; any other process on HEALTH_PORT. */
const Health = selected.includes("gateway")
  ? Layer.empty
  : selected.includes("actors")
    ? HealthServerLive(Effect.all([postgresCheck, natsCheck, redisCheck])).pipe(Layer.provide(RedisLive))
    : HealthServerLive(Effect.all([postgresCheck, natsCheck]))
const Services = Layer.mergeAll(Seed, Health, ...selected.map((name) => services[name])).pipe(Layer.provide(Infrastructure))

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
const program = Layer.build(Services).pipe(
  Effect.zipRight(Effect.logInfo(`all services up: ${selected.join(", ")}`)),
  Effect.zipRight(Effect.never),
  Effect.scoped,
  Effect.catchTags({
    SecretKeyMissing: cannotStart,
    PublicUrlInvalid: cannotStart,
    DatabaseUnavailable: cannotStart,
    NatsUnavailable: cannotStart,
    RedisUnavailable: cannotStart,
    HealthServerUnavailable: cannotStart
  })
)

Effect.logInfo(`starting ${selected.join(", ")}`).pipe(
  Effect.zipRight(program),
  // JSON lines or pretty (LOG_FORMAT, LOG_LEVEL), secrets redacted: services/platform/logging.ts
  Effect.provide(LoggingLive({ service: selected.join("+") })),
  // OpenTelemetry over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set: services/platform/tracing.ts
  Effect.provide(TracingLive(selected.join("+"))),
  NodeRuntime.runMain({ disableErrorReporting: false, disablePrettyLogger: true })
)
