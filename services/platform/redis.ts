import { Context, Data, Effect, Layer } from "effect"
import { Redis as IORedis } from "ioredis"
import { AppConfig } from "./config.js"

/** Redis cannot be reached: at start (the process refuses to start) or for one command (services/platform/redis.ts, "fail fast"). */
export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly message: string }> {}

export const isRedisUnavailable = (u: unknown): u is RedisUnavailable => u instanceof RedisUnavailable

/**
 * One Redis command that fails with RedisUnavailable instead of waiting: the client below
 * queues nothing while disconnected and gives each command at most COMMAND_TIMEOUT_MS
 * (docs/operations.md, "When Redis is lost").
 */
export const redisCommand = <A>(f: () => Promise<A>): Effect.Effect<A, RedisUnavailable> =>
  Effect.tryPromise({ try: f, catch: (cause) => new RedisUnavailable({ message: `Redis command failed: ${String(cause)}` }) })

/** A command that may not answer for longer than this (a Redis that hangs); 2 s, not less, so an event loop busy for a second does not time out answers already received. */
const COMMAND_TIMEOUT_MS = 2000
/** Reconnect attempts while Redis is away: every 100 ms at first, then every half second, so its return is seen at once. */
const reconnectDelayMs = (attempt: number) => Math.min(attempt * 100, 500)

export class Redis extends Context.Tag("Redis")<Redis, IORedis>() {}

export const RedisLive = Layer.scoped(
  Redis,
  Effect.gen(function* () {
    const config = yield* AppConfig
    return yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          // no auto-pipelining: the Pipeline objects it makes (one per batch of commands) were found
          // kept alive with their commands until a full GC, most likely through the accessor with a
          // closure of its own each one defines; without it the actor thread promotes a third as
          // much per scavenge, at the same POST /posts rate (docs/performance.md, "Redis without auto-pipelining")
          const client = new IORedis(config.redisUrl, {
            lazyConnect: true,
            // fail fast while Redis is away: no queue of commands waiting for a reconnect (a
            // request would hang on it), no command resent on the next connection, every
            // command answered or failed within 2 s; the callers decide what a failure
            // means (a local window, a buffered click, 503 with Retry-After)
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            autoResendUnfulfilledCommands: false,
            commandTimeout: COMMAND_TIMEOUT_MS,
            connectTimeout: 2000,
            retryStrategy: reconnectDelayMs,
            enableAutoPipelining: false
          })
          client.on("error", () => undefined) // reconnects on its own; readiness reports the state
          try {
            await client.connect()
            await client.ping()
          } catch (e) {
            client.disconnect()
            throw e
          }
          return client
        },
        catch: (cause) =>
          new RedisUnavailable({
            message:
              `Redis is not reachable at ${config.redisUrl} (${String(cause)}). Start it with: ` +
              'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log'
          })
      }),
      (client) => Effect.promise(() => client.quit().catch(() => "OK"))
    )
  })
)
