import { Context, Data, Effect, Layer } from "effect"
import {
  connect,
  type JetStreamClient,
  type JetStreamManager,
  type KV,
  type NatsConnection,
  RetentionPolicy,
  StorageType,
  type StreamConfig
} from "nats"
import { names, type Names } from "../../protocol/names.js"
import { AppConfig } from "./config.js"

export class NatsUnavailable extends Data.TaggedError("NatsUnavailable")<{ readonly message: string }> {}
export class NatsFailure extends Data.TaggedError("NatsFailure")<{ readonly message: string; readonly cause?: unknown }> {}

export interface NatsShape {
  readonly connection: NatsConnection
  readonly jetstream: JetStreamClient
  readonly manager: JetStreamManager
  readonly names: Names
  readonly shardLeases: KV
  readonly actorHosts: KV
}

export class Nats extends Context.Tag("Nats")<Nats, NatsShape>() {}

/** Lease lifetime: a host that stops renewing loses its shards after this. */
export const LEASE_TTL_MS = 6_000

const ensureStream = (jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }) =>
  Effect.tryPromise({
    try: async () => {
      const existing = await jsm.streams.info(config.name).catch(() => null)
      if (existing === null) await jsm.streams.add(config)
      else await jsm.streams.update(config.name, { ...existing.config, ...config })
    },
    catch: (cause) => new NatsFailure({ message: `stream ${config.name}: ${String(cause)}`, cause })
  })

/**
 * Creates (idempotently) the streams and KV buckets every service needs. Consumers are
 * created by the service that reads them (jetstreamConsumer.ts).
 */
const ensureTopology = (nc: NatsConnection, n: Names) =>
  Effect.gen(function* () {
    const jsm = yield* Effect.tryPromise({
      try: () => nc.jetstreamManager(),
      catch: (cause) => new NatsFailure({ message: `JetStream is not enabled on the NATS server (${String(cause)})`, cause })
    })
    yield* ensureStream(jsm, {
      name: n.eventsStream,
      subjects: [n.eventsSubjects],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: 7 * 24 * 3600 * 1e9,
      duplicate_window: 2 * 60 * 1e9
    })
    yield* ensureStream(jsm, {
      name: n.publishStream,
      subjects: [n.publishSubjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1e9
    })
    yield* ensureStream(jsm, {
      name: n.prepareStream,
      subjects: [n.prepareSubjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1e9
    })
    yield* ensureStream(jsm, {
      name: n.deliveriesStream,
      subjects: [n.deliveriesSubjects],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: 2 * 60 * 1e9
    })
    const js = nc.jetstream()
    // an existing bucket is attached as it is: its lifetime is set again, since a bucket
    // without one would never expire a dead host's leases
    const kv = (bucket: string) =>
      Effect.tryPromise({
        try: async () => {
          const view = await js.views.kv(bucket, { ttl: LEASE_TTL_MS, history: 1 })
          const stream = `KV_${bucket}`
          const info = await jsm.streams.info(stream)
          if (info.config.max_age !== LEASE_TTL_MS * 1e6) await jsm.streams.update(stream, { ...info.config, max_age: LEASE_TTL_MS * 1e6 })
          return view
        },
        catch: (cause) => new NatsFailure({ message: `KV ${bucket}: ${String(cause)}`, cause })
      })
    return {
      jetstream: js,
      manager: jsm,
      shardLeases: yield* kv(n.shardLeasesBucket),
      actorHosts: yield* kv(n.actorHostsBucket)
    }
  })

export const NatsLive = Layer.scoped(
  Nats,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const n = names(config.namespace)
    const connection = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          connect({
            servers: config.natsUrl.split(",").map((s) => s.trim()),
            name: `post-scheduler-${process.pid}`,
            maxReconnectAttempts: -1,
            // no stack trace captured on every request and publish, in case it times out: our errors say which call it was
            noAsyncTraces: true
          }),
        catch: (cause) =>
          new NatsUnavailable({
            message:
              `NATS is not reachable at ${config.natsUrl} (${String(cause)}). Start it with: ` +
              "start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log"
          })
      }),
      (nc) => Effect.promise(() => nc.drain().catch(() => undefined))
    )
    const topology = yield* ensureTopology(connection, n)
    return { connection, names: n, ...topology }
  })
)
