import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { Data, Effect } from "effect"
import { aliveBody } from "./health.js"
import { metricsContentType, metricsText } from "./metrics.js"
import { markDraining, readinessAnswer } from "./readiness.js"

/**
 * HEALTH_PORT: /healthz, /readyz and /metrics of every process, listening before anything else
 * starts (Postgres, migrations, NATS, the actor host's shards) and until the process exits.
 *
 * A plain Node server, not an Effect HttpServer layer: its handler is attached before it
 * listens (an Effect server listens first and attaches its handler once its routes are built,
 * and a request accepted in between is never answered), it depends on no layer, and no scope
 * closes it: the process's exit does (unref'd, so it never keeps the process alive by itself).
 */

export class HealthServerUnavailable extends Data.TaggedError("HealthServerUnavailable")<{ readonly message: string }> {}

const json = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

/** Answers one request from values held in memory; /readyz's probes are bounded (readiness.ts). */
export const answerHealth = (req: IncomingMessage, res: ServerResponse): boolean => {
  const path = (req.url ?? "/").split("?")[0]
  if (req.method !== "GET" && req.method !== "HEAD") return false
  if (path === "/healthz") {
    json(res, 200, aliveBody)
    return true
  }
  if (path === "/readyz") {
    Effect.runPromise(readinessAnswer).then(
      ({ status, body }) => json(res, status, body),
      () => json(res, 503, { ready: false, reason: "the readiness check failed" })
    )
    return true
  }
  if (path === "/metrics") {
    metricsText().then(
      (text) => {
        res.writeHead(200, { "content-type": metricsContentType })
        res.end(text)
      },
      () => json(res, 500, { error: "metrics unavailable" })
    )
    return true
  }
  return false
}

const causeText = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause))

/**
 * Listens on `port` (0: any free port) and logs which; from then on a SIGTERM or SIGINT makes
 * /readyz answer 503 at once, while the services stop (`once`: a second signal still kills).
 */
export const listenForHealth = (port: number) =>
  Effect.async<Server, HealthServerUnavailable>((resume) => {
    const server = createServer((req, res) => {
      if (!answerHealth(req, res)) json(res, 404, { error: "not found" })
    })
    const onError = (cause: unknown) =>
      resume(
        Effect.fail(
          new HealthServerUnavailable({
            message: `the health checks cannot listen on HEALTH_PORT ${port} (${causeText(cause)}). Choose a free port, or 0 for any free port.`
          })
        )
      )
    server.once("error", onError)
    server.listen(port, () => {
      server.off("error", onError)
      server.unref()
      process.once("SIGTERM", markDraining)
      process.once("SIGINT", markDraining)
      resume(Effect.succeed(server))
    })
  }).pipe(
    Effect.tap((server) => {
      const address = server.address()
      return Effect.logInfo(
        `health checks listening on ${typeof address === "object" && address !== null ? `port ${address.port}` : String(address)}`
      )
    })
  )
