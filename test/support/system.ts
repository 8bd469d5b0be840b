import { HttpServer } from "@effect/platform"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { connect } from "nats"
import pg from "pg"
import { names } from "../../protocol/names.js"
import type { ServerUrls } from "./servers.js"
import { ActorHostLive } from "../../services/actors/host.js"
import { makeAdminOperations } from "../../services/admin/operations.js"
import { GatewayLive } from "../../services/gateway/server.js"
import { AppConfigLive } from "../../services/platform/config.js"
import { DatabaseLive } from "../../services/platform/db.js"
import { NatsLive } from "../../services/platform/nats.js"
import { PublisherLive } from "../../services/publisher/main.js"
import { SchedulerLive } from "../../services/scheduler/main.js"
import { WebhooksLive } from "../../services/webhooks/main.js"

/**
 * A test file's own world: a fresh database and NATS/Redis namespace on the shared
 * servers, so files run in parallel without seeing each other.
 */
export interface TestWorld {
  readonly databaseUrl: string
  readonly natsUrl: string
  readonly redisUrl: string
  readonly namespace: string
  readonly env: Readonly<Record<string, string>>
  readonly drop: () => Promise<void>
}

const randomName = () => Math.random().toString(36).slice(2, 10)

/**
 * Removes the namespace's JetStream streams and KV buckets, so test runs do not pile
 * them up on a shared server (every test file makes its own).
 */
export const dropNamespaceStreams = async (natsUrl: string, namespace: string) => {
  const n = names(namespace)
  const owned = (stream: string) =>
    [n.eventsStream, n.publishStream, n.prepareStream, n.deliveriesStream, `KV_${n.shardLeasesBucket}`, `KV_${n.actorHostsBucket}`].includes(stream)
  const nc = await connect({ servers: natsUrl.split(",") })
  try {
    const jsm = await nc.jetstreamManager()
    for await (const info of jsm.streams.list()) {
      if (owned(info.config.name)) await jsm.streams.delete(info.config.name).catch(() => false)
    }
  } finally {
    await nc.close()
  }
}

/** `servers` defaults to what the test run's global setup found (benchmarks pass their own). */
export const createWorld = async (label: string, given?: ServerUrls): Promise<TestWorld> => {
  // vitest is only loaded inside a test run; benchmarks pass the servers themselves
  const servers = given ?? (await import("vitest")).inject("servers")
  if (servers === undefined) {
    throw new Error("No servers were provided: a test that needs Postgres, NATS or Redis belongs in test/system, not test/unit")
  }
  const suffix = `${label
    .replace(/[^a-z0-9]/gi, "")
    .toLowerCase()
    .slice(0, 20)}_${randomName()}`
  const database = `t_${suffix}`
  const admin = new pg.Client({ connectionString: servers.databaseUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE "${database}"`)
  await admin.end()
  const url = new URL(servers.databaseUrl)
  url.pathname = `/${database}`
  const namespace = `t${suffix}`
  const env = {
    DATABASE_URL: url.toString(),
    NATS_URL: servers.natsUrl,
    REDIS_URL: servers.redisUrl,
    NAMESPACE: namespace,
    PORT: "0",
    SHARD_COUNT: "8",
    SECRET_KEY: "test-secret-key",
    PUBLIC_URL: "http://127.0.0.1",
    SUPPORT_EMAIL: "support@example.com"
  }
  return {
    databaseUrl: url.toString(),
    natsUrl: servers.natsUrl,
    redisUrl: servers.redisUrl,
    namespace,
    env,
    drop: async () => {
      const c = new pg.Client({ connectionString: servers.databaseUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`).catch(() => undefined)
      await c.end()
      await dropNamespaceStreams(servers.natsUrl, namespace)
    }
  }
}

export type ServiceName = "gateway" | "actors" | "scheduler" | "publisher" | "webhooks"

const serviceLayers = {
  gateway: GatewayLive,
  actors: ActorHostLive,
  scheduler: SchedulerLive,
  publisher: PublisherLive,
  webhooks: WebhooksLive
}

/** The world's configuration, as the services read it from the environment. */
export const worldConfig = (world: TestWorld, extra: Record<string, string> = {}) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ ...world.env, ...extra }))))

/** Postgres and NATS, as every service needs them (the gateway connects to Redis itself). */
export const infrastructure = (world: TestWorld, extra: Record<string, string> = {}) =>
  Layer.mergeAll(DatabaseLive, NatsLive).pipe(Layer.provideMerge(AppConfigLive), Layer.provide(worldConfig(world, extra)))

/** Services running in this process against the world, with the gateway's base URL. */
export const startServices = async (
  world: TestWorld,
  services: ReadonlyArray<ServiceName> = ["gateway", "actors", "scheduler", "publisher", "webhooks"],
  extra: Record<string, string> = {}
) => {
  const infra = infrastructure(world, extra)
  const selected = services.filter((s) => s !== "gateway").map((s) => serviceLayers[s])
  const runtime = ManagedRuntime.make(Layer.mergeAll(GatewayLive, ...selected).pipe(Layer.provideMerge(infra)))
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (s) => s.address))
  const port = address._tag === "TcpAddress" ? address.port : 0
  const admin = await runtime.runPromise(makeAdminOperations)
  return {
    url: `http://127.0.0.1:${port}`,
    runtime,
    admin: {
      createWorkspace: (name = "Test workspace", plan: "standard" | "team" | "pro" | "ultimate" = "standard") =>
        runtime.runPromise(admin.createWorkspace({ name, plan })),
      createUser: (input: Parameters<typeof admin.createUser>[0]) => runtime.runPromise(admin.createUser(input)),
      createCustomer: (input: Parameters<typeof admin.createCustomer>[0]) => runtime.runPromise(admin.createCustomer(input)),
      createChannel: (input: Parameters<typeof admin.createChannel>[0]) => runtime.runPromise(admin.createChannel(input)),
      rotateKey: (workspaceId: string) => runtime.runPromise(admin.rotateKey(workspaceId)),
      setBilling: (input: Parameters<typeof admin.setBilling>[0]) => runtime.runPromise(admin.setBilling(input))
    },
    stop: () => runtime.dispose()
  }
}

export type RunningServices = Awaited<ReturnType<typeof startServices>>
