import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { httpRequestDuration, httpRequests } from "../platform/metrics.js"

/**
 * http_requests_total and http_request_duration_seconds for every answer of the
 * gateway, labelled by the route's template (`/public/v1/posts/:id`, never the raw
 * path: one series per route, not per id). Measured on Node's request and response
 * (arrival to the end of the answer), so every route, error and refusal counts.
 */

const routes = new WeakMap<IncomingMessage, string>()

/** Records the template of the route that answers `request` (set once the router has matched it). */
export const markRoute = (request: unknown, template: string) => {
  if (isIncoming(request)) routes.set(request, template)
}

const isIncoming = (value: unknown): value is IncomingMessage =>
  typeof value === "object" && value !== null && "headers" in value && "method" in value && "socket" in value

/** Fixed paths outside the API's routes, labelled as they are. */
const fixedPaths = new Set(["/healthz", "/readyz", "/metrics", "/public/v1/openapi.json", "/public/v1/docs"])

const routeOf = (req: IncomingMessage, res: ServerResponse) => {
  const marked = routes.get(req)
  if (marked !== undefined) return marked
  const path = (req.url ?? "").split("?")[0] ?? ""
  if (fixedPaths.has(path)) return path
  return res.statusCode === 404 ? "unmatched" : "other"
}

export const observeRequests = (server: Server) => {
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now()
    res.once("close", () => {
      const labels = { route: routeOf(req, res), method: req.method ?? "", status: String(res.statusCode) }
      httpRequests.inc(labels)
      httpRequestDuration.observe(labels, (performance.now() - started) / 1000)
    })
  })
}
