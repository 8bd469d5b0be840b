import { type SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Data, Effect, Layer, Redacted, Schedule, String as Str } from "effect"
import pg from "pg"
import { AppConfig } from "./config.js"
import { trackPool } from "./metrics.js"
import { PgPool } from "./pgPool.js"
import { runMigrations } from "./migrations/migrator.js"
import { createDatabase, databaseExists, pingPool } from "./postgresRepo.js"

export class DatabaseUnavailable extends Data.TaggedError("DatabaseUnavailable")<{ readonly message: string }> {}

// int8 (counts, sizes) as JS numbers; they stay far below 2^53 here.
const types = {
  getTypeParser: (oid: number, format?: "text" | "binary") => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format))
} as pg.CustomTypesConfig

/**
 * Creates the database named in the URL when it does not exist yet, so a fresh
 * machine needs nothing but a running server.
 */
export const ensureDatabase = (url: string) =>
  Effect.tryPromise({
    try: async () => {
      const target = new URL(url)
      const name = decodeURIComponent(target.pathname.replace(/^\//, ""))
      if (name === "") return
      const admin = new URL(url)
      admin.pathname = "/postgres"
      const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 })
      await client.connect()
      try {
        if (!(await databaseExists(client, name))) {
          await createDatabase(client, name).catch((e: { code?: string }) => {
            // created meanwhile by another process (42P04, or 23505 when both raced in the catalog)
            if (e.code !== "42P04" && e.code !== "23505") throw e
          })
        }
      } finally {
        await client.end()
      }
    },
    catch: (cause) =>
      new DatabaseUnavailable({
        message:
          `PostgreSQL is not reachable at ${redactUrl(url)} (${String(cause)}). ` +
          "Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
      })
  })

export const redactUrl = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@")

/** How long making a new connection may take (docs/operations.md, "When Postgres goes away"). */
const CONNECT_TIMEOUT_MS = 5_000

/** How long a pooled connection may sit unused before it is closed. */
const IDLE_CONNECTION_MS = 60_000

/** The pool is made here (not by PgClient.layer) so /metrics can show its use (pg_pool_*). */
const acquirePool = (url: Redacted.Redacted, maxConnections: number) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      // idle connections are kept a minute (pg's default: 10 s). A pool that shrank between two
      // bursts makes the next one wait for new connections (a Postgres backend each, and the
      // prepared statements again), which showed as a 100-150 ms stall in the POST /posts bench
      const pool = new pg.Pool({
        connectionString: Redacted.value(url),
        max: maxConnections,
        idleTimeoutMillis: IDLE_CONNECTION_MS,
        application_name: "post-scheduler",
        // a connection that cannot be made in this time fails (503 at the gateway) instead of
        // holding the request: pg's default is to wait for ever (a switch-over, a cut network).
        // pg-pool also gives up a wait for a free connection of a full pool after it
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        // a peer that vanished without closing (a failed-over primary) is noticed by TCP keepalive
        keepAlive: true,
        types
      })
      // an idle connection that a restart or switch-over ended errors here; pg-pool has already
      // dropped it, and the next query opens a new one: nothing to do, but the process must not crash
      pool.on("error", () => undefined)
      const untrack = trackPool(pool)
      yield* Effect.tryPromise({
        try: () => pingPool(pool),
        catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        Effect.timeoutFail({
          duration: "5 seconds",
          onTimeout: () => new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
        }),
        Effect.tapError(() => Effect.promise(() => pool.end()))
      )
      return { pool, untrack }
    }),
    ({ pool, untrack }) => Effect.sync(untrack).pipe(Effect.zipRight(Effect.promise(() => pool.end())), Effect.timeoutOption(1000))
  ).pipe(Effect.map(({ pool }) => pool))

/** SqlClient on a pool of its own, and the pool itself (PgPool: prepared statements). */
export const pgClientLayer = (url: Redacted.Redacted, maxConnections = 20) =>
  Layer.unwrapEffect(
    Effect.map(PgPool, (pool) =>
      PgClient.layerFromPool({
        acquire: Effect.succeed(pool),
        transformResultNames: Str.snakeToCamel,
        transformQueryNames: Str.camelToSnake,
        transformJson: false,
        types,
        applicationName: "post-scheduler"
      })
    )
  ).pipe(Layer.provideMerge(Layer.scoped(PgPool, acquirePool(url, maxConnections))))

/** SqlClient connected to DATABASE_URL (created if missing), with every migration applied. */
export const DatabaseLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    yield* ensureDatabase(Redacted.value(config.databaseUrl))
    const client = pgClientLayer(config.databaseUrl).pipe(Layer.mapError((e) => new DatabaseUnavailable({ message: `PostgreSQL: ${e.message}` })))
    // every migration the database has not recorded (services/platform/migrations/)
    const migrate = Layer.effectDiscard(runMigrations()).pipe(
      // two processes starting at once race to create the migrations table: the loser retries
      Layer.retry(Schedule.recurs(3))
    )
    return Layer.provideMerge(migrate, client)
  })
)

export type Sql = SqlClient.SqlClient
