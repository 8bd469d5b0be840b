import { HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Nats } from "./nats.js"
import { ping } from "./postgresRepo.js"
import type { ReadinessCheck } from "./readiness.js"
import { readinessAnswer } from "./readiness.js"
import { Redis } from "./redis.js"

/**
 * /healthz and /readyz (and /metrics: metrics.ts), the same on every process: on HEALTH_PORT from the
 * first moment of a start (healthListener.ts), and on the gateway's own port once it listens.
 * /readyz asks only the servers this process uses, and only once it has started (readiness.ts).
 */

export type { ReadinessCheck } from "./readiness.js"

export const postgresCheck = Effect.map(SqlClient.SqlClient, (sql): ReadinessCheck => ({ name: "postgres", probe: ping(sql) }))

export const natsCheck = Effect.map(Nats, (nats): ReadinessCheck => ({ name: "nats", probe: Effect.tryPromise(() => nats.connection.flush()) }))

/** Not needed for readiness: without Redis only sessions, OAuth states and a few shared counts are refused (docs/operations.md, "When Redis is lost"). */
export const redisCheck = Effect.map(
  Redis,
  (redis): ReadinessCheck => ({ name: "redis", probe: Effect.tryPromise(() => redis.ping()), needed: false })
)

/** GET /healthz: the process lives and serves HTTP. */
export const aliveBody = { status: "ok" } as const
export const alive = HttpServerResponse.unsafeJson(aliveBody)

/** GET /readyz: 200 when started and every check answers, 503 otherwise, with a `reason`. */
export const readinessResponse = Effect.map(readinessAnswer, ({ status, body }) => HttpServerResponse.unsafeJson(body, { status }))
