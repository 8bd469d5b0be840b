import { Context, Data, Effect, Layer } from "effect"
import { Redis as IORedis } from "ioredis"
import { AppConfig } from "./config.js"

export class RedisUnavailable extends Data.TaggedError("RedisUnavailable")<{ readonly message: string }> {}

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
            maxRetriesPerRequest: 2,
            enableOfflineQueue: true,
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
