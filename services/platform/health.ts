import { createServer } from "node:http"
import { HttpRouter, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Data, Effect, Layer } from "effect"
import { AppConfig } from "./config.js"
import { metricsResponse } from "./metrics.js"
import { Nats } from "./nats.js"
import { ping } from "./postgresRepo.js"
import { Redis } from "./redis.js"

/**
 * /healthz and /readyz (and /metrics: metrics.ts), the same on every process: the gateway answers them on its own
 * port, a process without the gateway on a small server of its own (HEALTH_PORT).
 * /readyz asks only the servers this process uses.
 */

/** A server this process uses, and how to ask it whether it answers. */
export interface ReadinessCheck {
  readonly name: string
  readonly probe: Effect.Effect<unknown, unknown>
}

/** How long one check may take before it counts as not answering. */
const PROBE_TIMEOUT = "2 seconds"

export const postgresCheck = Effect.map(SqlClient.SqlClient, (sql): ReadinessCheck => ({ name: "postgres", probe: ping(sql) }))

export const natsCheck = Effect.map(Nats, (nats): ReadinessCheck => ({ name: "nats", probe: Effect.tryPromise(() => nats.connection.flush()) }))

export const redisCheck = Effect.map(Redis, (redis): ReadinessCheck => ({ name: "redis", probe: Effect.tryPromise(() => redis.ping()) }))

/** GET /healthz: the process lives and serves HTTP. */
export const alive = HttpServerResponse.unsafeJson({ status: "ok" })

/** GET /readyz: 200 when every check answers, 503 otherwise; `checks` says which did. */
export const readiness = (checks: ReadonlyArray<ReadinessCheck>) =>
  Effect.forEach(
    checks,
    ({ name, probe }) =>
      probe.pipe(Effect.timeout(PROBE_TIMEOUT), Effect.match({ onFailure: () => [name, false] as const, onSuccess: () => [name, true] as const })),
    { concurrency: "unbounded" }
  ).pipe(
    Effect.map((results) => {
      const ready = results.every(([, ok]) => ok)
      return HttpServerResponse.unsafeJson({ ready, checks: Object.fromEntries(results) }, { status: ready ? 200 : 503 })
    })
  )

export class HealthServerUnavailable extends Data.TaggedError("HealthServerUnavailable")<{ readonly message: string }> {}

const causeText = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

const addressText = (a: HttpServer.Address) => (a._tag === "TcpAddress" ? `port ${a.port}` : a.path)

/**
 * The health server of a process that runs no gateway: /healthz and /readyz on
 * HEALTH_PORT (0 = any free port; the log says which).
 */
export const HealthServerLive = <R>(checks: Effect.Effect<ReadonlyArray<ReadinessCheck>, never, R>) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const ready = readiness(yield* checks)
      const routes = HttpRouter.empty.pipe(
        HttpRouter.get("/healthz", alive),
        HttpRouter.get("/readyz", ready),
        HttpRouter.get("/metrics", metricsResponse)
      )
      const announce = Layer.effectDiscard(
        Effect.flatMap(HttpServer.HttpServer, (server) => Effect.logInfo(`health checks listening on ${addressText(server.address)}`))
      )
      return Layer.mergeAll(HttpServer.serve(routes), announce).pipe(
        Layer.provide(
          NodeHttpServer.layer(createServer, { port: config.healthPort }).pipe(
            Layer.mapError(
              (e) =>
                new HealthServerUnavailable({
                  message:
                    `the health checks cannot listen on HEALTH_PORT ${config.healthPort} (${causeText(e.cause)}). ` +
                    "Choose a free port, or 0 for any free port."
                })
            )
          )
        )
      )
    })
  )
