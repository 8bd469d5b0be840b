import { Config, Context, Effect, Layer, Redacted } from "effect"

/** Everything the services read from the environment, with defaults for a local machine. */
export interface AppConfigShape {
  readonly port: number
  readonly databaseUrl: Redacted.Redacted
  readonly natsUrl: string
  readonly redisUrl: string
  readonly publicUrl: string
  readonly secretKey: Redacted.Redacted
  /** Prefix of every NATS subject, stream, consumer, KV bucket and Redis key. */
  readonly namespace: string
  readonly supportEmail: string
  readonly dataDir: string
  readonly shardCount: number
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

const namespacePattern = /^[A-Za-z0-9_-]{1,32}$/

export const appConfigFromEnv = Effect.gen(function* () {
  const port = yield* Config.integer("PORT").pipe(Config.withDefault(3000))
  const publicUrl = yield* Config.string("PUBLIC_URL").pipe(Config.withDefault(`http://localhost:${port}`))
  const namespace = yield* Config.string("NAMESPACE").pipe(
    Config.withDefault("svc"),
    Config.validate({ message: "NAMESPACE may hold letters, digits, _ and - (1 to 32)", validation: (s) => namespacePattern.test(s) })
  )
  return {
    port,
    databaseUrl: yield* Config.redacted("DATABASE_URL").pipe(
      Config.withDefault(Redacted.make("postgres://postgres@127.0.0.1:5432/postscheduler"))
    ),
    natsUrl: yield* Config.string("NATS_URL").pipe(Config.withDefault("nats://127.0.0.1:4222")),
    redisUrl: yield* Config.string("REDIS_URL").pipe(Config.withDefault("redis://127.0.0.1:6379")),
    publicUrl: publicUrl.replace(/\/+$/, ""),
    secretKey: yield* Config.redacted("SECRET_KEY").pipe(
      Config.withDefault(Redacted.make("local-development-secret-key-change-me"))
    ),
    namespace,
    supportEmail: yield* Config.string("SUPPORT_EMAIL").pipe(Config.withDefault("support@example.com")),
    dataDir: yield* Config.string("DATA_DIR").pipe(Config.withDefault("data")),
    shardCount: yield* Config.integer("SHARD_COUNT").pipe(Config.withDefault(64))
  } satisfies AppConfigShape
})

export const AppConfigLive = Layer.effect(AppConfig, appConfigFromEnv)
