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
          const client = new IORedis(config.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, enableAutoPipelining: true })
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
            message: `Redis is not reachable at ${config.redisUrl} (${String(cause)}). Start it with: ` +
              'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log'
          })
      }),
      (client) => Effect.promise(() => client.quit().catch(() => "OK"))
    )
  })
)
