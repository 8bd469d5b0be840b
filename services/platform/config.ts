import { Config, Context, Data, Effect, Layer, Option, Redacted } from "effect"

/** Everything the services read from the environment, with defaults for a local machine. */
export interface AppConfigShape {
  readonly port: number
  readonly databaseUrl: Redacted.Redacted
  /** NATS_URL: one address, or several comma-separated (the nodes of a cluster). */
  readonly natsUrl: string
  /**
   * NATS_REPLICAS: copies of every stream, consumer and KV bucket the services create
   * (1 for a single server, 3 for a 3-node cluster, so one node may die).
   */
  readonly natsReplicas: number
  readonly redisUrl: string
  readonly publicUrl: string
  readonly secretKey: Redacted.Redacted
  /** Prefix of every NATS subject, stream, consumer, KV bucket and Redis key. */
  readonly namespace: string
  readonly supportEmail: string
  readonly dataDir: string
  readonly shardCount: number
  /** SEED_DEMO: create the demo workspace on the first start with an empty database. */
  readonly seedDemo: boolean
  /**
   * HEALTH_PORT: where a process without the gateway answers /healthz and /readyz
   * (0 = any free port, written to the log; the gateway answers them on PORT).
   */
  readonly healthPort: number
  readonly media: MediaConfig
  readonly http: HttpServerConfig
  /**
   * TRUST_PROXY: how many proxies in front of the gateway append to X-Forwarded-For
   * (0, the default: the header is ignored and the client is the socket's address). Used
   * for the per-IP windows of the OAuth endpoints (services/oauth/clientIp.ts).
   */
  readonly trustProxy: number
}

/** How long the gateway's HTTP server waits for a client (docs/operations.md, "Configuration"). */
export interface HttpServerConfig {
  /** HEADERS_TIMEOUT_MS: the request line and headers must arrive within this (else 408, connection closed). */
  readonly headersTimeoutMs: number
  /**
   * REQUEST_IDLE_TIMEOUT_MS: a request whose body stops arriving for this long has its
   * connection closed; a slow body that keeps coming is not cut off.
   */
  readonly requestIdleTimeoutMs: number
  /** REQUEST_TIMEOUT_MS: a whole request (headers and body) must arrive within this (else 408); room for the largest upload. */
  readonly requestTimeoutMs: number
  /** KEEP_ALIVE_TIMEOUT_MS: an idle kept-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number
}

/** The media library: limits and where files are kept (services/media/README.md). */
export interface MediaConfig {
  /** MEDIA_STORAGE: `local` (files under DATA_DIR/media, served by the gateway) or `s3`. */
  readonly storage: "local" | "s3"
  /** MAX_UPLOAD_BYTES: the largest file taken (413 above it on upload). */
  readonly maxUploadBytes: number
  /** MAX_IMAGE_BYTES: the largest image (400 with the limit in the message). */
  readonly maxImageBytes: number
  /** MEDIA_IMPORT_TIMEOUT_MS: total time for POST /upload-from-url to fetch the file. */
  readonly importTimeoutMs: number
  readonly s3: {
    /** S3_ENDPOINT: an S3-compatible server's URL; unset means AWS itself. */
    readonly endpoint: string | undefined
    readonly bucket: string
    readonly region: string
    readonly accessKeyId: string | undefined
    readonly secretAccessKey: Redacted.Redacted | undefined
    /** S3_PUBLIC_URL: base address of the bucket for readers; unset: the gateway serves the files. */
    readonly publicUrl: string | undefined
    /** S3_FORCE_PATH_STYLE: `bucket` in the path, as most S3-compatible servers need (default with S3_ENDPOINT). */
    readonly forcePathStyle: boolean
  }
}

export class AppConfig extends Context.Tag("AppConfig")<AppConfig, AppConfigShape>() {}

const namespacePattern = /^[A-Za-z0-9_-]{1,32}$/

/** Only good enough for a development machine: production refuses it (and an unset SECRET_KEY). */
export const DEVELOPMENT_SECRET_KEY = "local-development-secret-key-change-me"

/** NODE_ENV=production without a SECRET_KEY of its own: secrets at rest would be readable by anyone. */
export class SecretKeyMissing extends Data.TaggedError("SecretKeyMissing")<{ readonly message: string }> {}

/**
 * SECRET_KEY encrypts webhook secrets and network tokens at rest. On a development
 * machine a fixed value is fine; with NODE_ENV=production it must be set, and not to
 * the development value.
 */
const secretKeyFromEnv = Effect.gen(function* () {
  const production = (yield* Config.string("NODE_ENV").pipe(Config.withDefault(""))) === "production"
  const given = yield* Config.option(Config.redacted("SECRET_KEY"))
  const key = Option.filter(given, (k) => Redacted.value(k).trim() !== "")
  if (!production) return Option.getOrElse(key, () => Redacted.make(DEVELOPMENT_SECRET_KEY))
  if (Option.isNone(key) || Redacted.value(key.value) === DEVELOPMENT_SECRET_KEY) {
    return yield* new SecretKeyMissing({
      message:
        `SECRET_KEY is ${Option.isNone(key) ? "not set" : "the development value"} and NODE_ENV is production. ` +
        "Set SECRET_KEY to a long random value and keep it (it encrypts webhook secrets and network tokens at rest), " +
        "for example: SECRET_KEY=$(openssl rand -base64 32)"
    })
  }
  return key.value
})

/** PUBLIC_URL is unusable, or missing where no default can be right: links would point nowhere. */
export class PublicUrlInvalid extends Data.TaggedError("PublicUrlInvalid")<{ readonly message: string }> {}

/**
 * PUBLIC_URL: the one base of every address the service hands out (share and preview
 * pages, media files, and later short links and OAuth pages). An absolute http(s) URL
 * without query or fragment; a trailing slash is dropped. Unset, it is
 * `http://localhost:<PORT>`, except with PORT=0 (any free port): no default can name the
 * port, so the process refuses to start. This holds for every process, not only the
 * gateway's: actor hosts write the preview links of posts and their events too.
 */
export const publicUrlFromEnv = (port: number) =>
  Effect.gen(function* () {
    const given = yield* Config.option(Config.string("PUBLIC_URL"))
    const text = Option.getOrElse(
      Option.filter(given, (s) => s.trim() !== ""),
      () => ""
    ).trim()
    const invalid = (why: string) =>
      new PublicUrlInvalid({
        message: `PUBLIC_URL ${why}. Set it to the address clients reach the gateway at, for example PUBLIC_URL=https://api.example.com`
      })
    if (text === "") {
      if (port === 0) {
        return yield* new PublicUrlInvalid({
          message:
            "PUBLIC_URL is not set and PORT is 0 (any free port): the links the service hands out would name a port " +
            "nobody listens on. Set PUBLIC_URL to the address clients reach the gateway at, for example PUBLIC_URL=http://localhost:3000"
        })
      }
      return `http://localhost:${port}`
    }
    let url: URL
    try {
      url = new URL(text)
    } catch {
      return yield* invalid(`is not an absolute URL (${JSON.stringify(text)})`)
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return yield* invalid(`must start with http:// or https:// (${JSON.stringify(text)})`)
    if (text.includes("?") || text.includes("#")) return yield* invalid(`may not have a query or fragment (${JSON.stringify(text)})`)
    if (url.username !== "" || url.password !== "") return yield* invalid("may not hold a user name or password")
    return `${url.origin}${url.pathname}`.replace(/\/+$/, "")
  })

export const appConfigFromEnv = Effect.gen(function* () {
  const port = yield* Config.integer("PORT").pipe(Config.withDefault(3000))
  const publicUrl = yield* publicUrlFromEnv(port)
  const namespace = yield* Config.string("NAMESPACE").pipe(
    Config.withDefault("svc"),
    Config.validate({ message: "NAMESPACE may hold letters, digits, _ and - (1 to 32)", validation: (s) => namespacePattern.test(s) })
  )
  return {
    port,
    databaseUrl: yield* Config.redacted("DATABASE_URL").pipe(Config.withDefault(Redacted.make("postgres://postgres@127.0.0.1:5432/postscheduler"))),
    natsUrl: yield* Config.string("NATS_URL").pipe(Config.withDefault("nats://127.0.0.1:4222")),
    natsReplicas: yield* Config.integer("NATS_REPLICAS").pipe(
      Config.withDefault(1),
      Config.validate({
        message: "NATS_REPLICAS is the copies of each stream (1 to 5, at most the cluster's nodes)",
        validation: (n) => n >= 1 && n <= 5
      })
    ),
    redisUrl: yield* Config.string("REDIS_URL").pipe(Config.withDefault("redis://127.0.0.1:6379")),
    publicUrl,
    secretKey: yield* secretKeyFromEnv,
    namespace,
    supportEmail: yield* Config.string("SUPPORT_EMAIL").pipe(Config.withDefault("support@example.com")),
    dataDir: yield* Config.string("DATA_DIR").pipe(Config.withDefault("data")),
    shardCount: yield* Config.integer("SHARD_COUNT").pipe(Config.withDefault(64)),
    seedDemo: yield* Config.boolean("SEED_DEMO").pipe(Config.withDefault(true)),
    healthPort: yield* Config.integer("HEALTH_PORT").pipe(Config.withDefault(0)),
    media: yield* mediaConfigFromEnv,
    http: yield* httpServerConfigFromEnv,
    trustProxy: yield* Config.integer("TRUST_PROXY").pipe(
      Config.withDefault(0),
      Config.validate({ message: "TRUST_PROXY is the number of proxies in front of the gateway (0 to 10)", validation: (n) => n >= 0 && n <= 10 })
    )
  } satisfies AppConfigShape
})

const optionalString = (name: string) => Config.option(Config.nonEmptyString(name)).pipe(Config.map((o) => (o._tag === "Some" ? o.value : undefined)))

const mediaConfigFromEnv = Effect.gen(function* () {
  const endpoint = yield* optionalString("S3_ENDPOINT")
  const secret = yield* Config.option(Config.redacted("S3_SECRET_ACCESS_KEY"))
  return {
    storage: yield* Config.literal("local", "s3")("MEDIA_STORAGE").pipe(Config.withDefault("local" as const)),
    maxUploadBytes: yield* Config.integer("MAX_UPLOAD_BYTES").pipe(Config.withDefault(1024 * 1024 * 1024)),
    maxImageBytes: yield* Config.integer("MAX_IMAGE_BYTES").pipe(Config.withDefault(10 * 1024 * 1024)),
    importTimeoutMs: yield* Config.integer("MEDIA_IMPORT_TIMEOUT_MS").pipe(Config.withDefault(60_000)),
    s3: {
      endpoint: endpoint?.replace(/\/+$/, ""),
      bucket: yield* Config.string("S3_BUCKET").pipe(Config.withDefault("media")),
      region: yield* Config.string("S3_REGION").pipe(Config.withDefault("us-east-1")),
      accessKeyId: yield* optionalString("S3_ACCESS_KEY_ID"),
      secretAccessKey: secret._tag === "Some" ? secret.value : undefined,
      publicUrl: (yield* optionalString("S3_PUBLIC_URL"))?.replace(/\/+$/, ""),
      forcePathStyle: yield* Config.boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(endpoint !== undefined))
    }
  } satisfies MediaConfig
})

const milliseconds = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} is a number of milliseconds, at least 1`, validation: (n) => n >= 1 })
  )

const httpServerConfigFromEnv = Effect.gen(function* () {
  const requestTimeoutMs = yield* milliseconds("REQUEST_TIMEOUT_MS", 60 * 60_000)
  return {
    headersTimeoutMs: yield* milliseconds("HEADERS_TIMEOUT_MS", 30_000).pipe(
      Config.validate({
        message: "HEADERS_TIMEOUT_MS may not be longer than REQUEST_TIMEOUT_MS",
        validation: (n) => n <= requestTimeoutMs
      })
    ),
    requestIdleTimeoutMs: yield* milliseconds("REQUEST_IDLE_TIMEOUT_MS", 30_000),
    requestTimeoutMs,
    keepAliveTimeoutMs: yield* milliseconds("KEEP_ALIVE_TIMEOUT_MS", 5_000)
  } satisfies HttpServerConfig
})

export const AppConfigLive = Layer.effect(AppConfig, appConfigFromEnv)
