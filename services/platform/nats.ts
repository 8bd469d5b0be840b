import { Context, Data, Duration, Effect, Layer, Schedule, Stream } from "effect"
import {
  connect,
  DebugEvents,
  Events,
  type JetStreamClient,
  type JetStreamManager,
  type KV,
  type NatsConnection,
  NatsError,
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
  /** NATS_REPLICAS: consumers are created with it too (jetstreamConsumer.ts). */
  readonly replicas: number
  readonly shardLeases: KV
  readonly actorHosts: KV
}

export class Nats extends Context.Tag("Nats")<Nats, NatsShape>() {}

/** Lease lifetime: a host that stops renewing loses its shards after this. */
export const LEASE_TTL_MS = 6_000

/** The servers of NATS_URL: one address, or the nodes of a cluster separated by commas. */
export const natsServers = (natsUrl: string): ReadonlyArray<string> =>
  natsUrl
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")

/**
 * Creates the stream, or brings an existing one to the wanted settings. A replica count the
 * server will not change (NATS_REPLICAS=3 on a single server, or a 2.9 server refusing a
 * move) is not fatal: the stream keeps the copies it has, the other settings are applied,
 * and a warning names both counts, since a cluster whose streams kept one copy loses them
 * with that copy's node.
 */
const ensureStream = (jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }, replicas: number) =>
  Effect.gen(function* () {
    const failure = (cause: unknown) => new NatsFailure({ message: `stream ${config.name}: ${String(cause)}`, cause })
    const existing = yield* Effect.tryPromise({ try: () => jsm.streams.info(config.name).catch(() => null), catch: failure })
    if (existing === null) {
      yield* Effect.tryPromise({ try: () => jsm.streams.add({ ...config, num_replicas: replicas }), catch: failure })
      return
    }
    const updated = yield* Effect.tryPromise({
      try: () => jsm.streams.update(config.name, { ...existing.config, ...config, num_replicas: replicas }),
      catch: failure
    }).pipe(Effect.either)
    if (updated._tag === "Right") return
    if (existing.config.num_replicas === replicas) return yield* Effect.fail(updated.left)
    yield* Effect.logWarning(
      `stream ${config.name} has ${existing.config.num_replicas} replica(s), NATS_REPLICAS asks ${replicas}: the server refused the change ` +
        `(${updated.left.message}); it keeps ${existing.config.num_replicas}`
    )
    yield* Effect.tryPromise({ try: () => jsm.streams.update(config.name, { ...existing.config, ...config }), catch: failure })
  })

/**
 * Creates (idempotently) the streams and KV buckets every service needs. Consumers are
 * created by the service that reads them (jetstreamConsumer.ts).
 */
const ensureTopology = (nc: NatsConnection, n: Names, replicas: number) =>
  Effect.gen(function* () {
    const jsm = yield* Effect.tryPromise({
      try: () => nc.jetstreamManager(),
      catch: (cause) => new NatsFailure({ message: `JetStream is not enabled on the NATS server (${String(cause)})`, cause })
    })
    yield* ensureStream(
      jsm,
      {
        name: n.eventsStream,
        subjects: [n.eventsSubjects],
        retention: RetentionPolicy.Limits,
        storage: StorageType.File,
        max_age: 7 * 24 * 3600 * 1e9,
        duplicate_window: 2 * 60 * 1e9
      },
      replicas
    )
    // the work queues (jobs each taken by one worker): publishing, media preparation, webhook deliveries
    for (const [name, subjects] of [
      [n.publishStream, n.publishSubjects],
      [n.prepareStream, n.prepareSubjects],
      [n.deliveriesStream, n.deliveriesSubjects]
    ] as const) {
      yield* ensureStream(
        jsm,
        { name, subjects: [subjects], retention: RetentionPolicy.Workqueue, storage: StorageType.File, duplicate_window: 2 * 60 * 1e9 },
        replicas
      )
    }
    const js = nc.jetstream()
    // lease calls give up sooner than other JetStream calls: a round held by a call sent to a
    // node that went silent would outlast the leases it renews
    const leasesJs = nc.jetstream({ timeout: LEASE_CALL_TIMEOUT_MS })
    // a bucket is a stream (KV_<bucket>): an existing one is attached as it is, then its
    // lifetime and copies are set again, since a bucket without a lifetime would never
    // expire a dead host's leases
    const kv = (bucket: string) =>
      Effect.gen(function* () {
        const view = yield* Effect.tryPromise({
          // reads ask the bucket's leader (allow_direct off): a direct get goes to any copy, and one
          // on a paused node holds a lease round until the node is back (a follower may also be behind)
          try: () => leasesJs.views.kv(bucket, { ttl: LEASE_TTL_MS, history: 1, replicas, allow_direct: false }),
          catch: (cause) => new NatsFailure({ message: `KV ${bucket}: ${String(cause)}`, cause })
        })
        const stream = `KV_${bucket}`
        const info = yield* Effect.tryPromise({
          try: () => jsm.streams.info(stream),
          catch: (cause) => new NatsFailure({ message: `KV ${bucket}: ${String(cause)}`, cause })
        })
        if (info.config.max_age !== LEASE_TTL_MS * 1e6 || info.config.num_replicas !== replicas) {
          const { name: _name, ...kept } = info.config
          yield* ensureStream(jsm, { ...kept, name: stream, max_age: LEASE_TTL_MS * 1e6 }, replicas)
        }
        return view
      })
    return {
      jetstream: js,
      manager: jsm,
      shardLeases: yield* kv(n.shardLeasesBucket),
      actorHosts: yield* kv(n.actorHostsBucket)
    }
  })

/**
 * A JetStream API call that timed out, found no responder, or found too few peers for the
 * copies: a cluster that has just started (no meta leader yet, or not every node known to it
 * yet), or several processes creating the same streams at once.
 */
const transient = (e: NatsFailure) =>
  e.cause instanceof NatsError &&
  (e.cause.code === "TIMEOUT" || e.cause.code === "503" || e.cause.message.includes("no suitable peers for placement"))

/** How often the client pings its server, and how many pings may go unanswered: see NatsLive. */
const PING_INTERVAL_MS = 1_000
const MAX_PINGS_OUT = 3

/** How long a connection to one node may take before the next is tried: see NatsLive. */
const DIAL_TIMEOUT_MS = 2_000

/** How long a shard lease call (KV) may take: a third of a lease's life. */
export const LEASE_CALL_TIMEOUT_MS = 2_000

/** How long a start waits for JetStream to answer its topology calls. */
const TOPOLOGY_WAIT = Duration.seconds(60)

/**
 * The connection's losses and returns, in the log: which node was left (its pings went
 * unanswered, or it closed) and which one took over, so an operator sees a failover.
 */
const logConnectionChanges = (connection: NatsConnection) =>
  Stream.fromAsyncIterable(connection.status(), (cause) => cause).pipe(
    Stream.runForEach((status) => {
      const server = typeof status.data === "string" ? status.data : ""
      switch (status.type) {
        case DebugEvents.StaleConnection:
          return Effect.logWarning("NATS server stopped answering pings; leaving it")
        case Events.Disconnect:
          return Effect.logWarning(`NATS connection to ${server} lost; reconnecting`)
        case Events.Reconnect:
          return Effect.logInfo(`NATS connection re-established to ${server}`)
        default:
          return Effect.void
      }
    }),
    Effect.ignore
  )

export const NatsLive = Layer.scoped(
  Nats,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const n = names(config.namespace)
    const connection = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          connect({
            servers: [...natsServers(config.natsUrl)],
            name: `post-scheduler-${process.pid}`,
            maxReconnectAttempts: -1,
            // a server that stops answering (a frozen VM, SIGSTOP) is left for another of the
            // cluster after 3 unanswered pings, 3 to 4 s, instead of the client's default 4 minutes
            // (a server whose pongs a busy moment delays a second or two is kept)
            pingInterval: PING_INTERVAL_MS,
            maxPingOut: MAX_PINGS_OUT,
            // a node that accepts the connection but never answers (paused) is given up after this
            // instead of 20 s: the client's first reconnection may dial the node it just left again
            timeout: DIAL_TIMEOUT_MS,
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
    yield* Effect.forkScoped(logConnectionChanges(connection))
    const topology = yield* ensureTopology(connection, n, config.natsReplicas).pipe(
      Effect.tapError((e) => (transient(e) ? Effect.logWarning(`JetStream not ready (${e.message}); trying again`) : Effect.void)),
      Effect.retry({ while: transient, schedule: Schedule.spaced(Duration.seconds(1)).pipe(Schedule.upTo(TOPOLOGY_WAIT)) })
    )
    return { connection, names: n, replicas: config.natsReplicas, ...topology }
  })
)
