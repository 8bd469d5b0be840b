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

/** The series of one route, method and status, looked up once (prom-client hashes labels on every call). */
const series = new Map<
  string,
  { readonly count: ReturnType<typeof httpRequests.labels>; readonly duration: ReturnType<typeof httpRequestDuration.labels> }
>()
const seriesOf = (route: string, method: string, status: number) => {
  const key = `${route} ${method} ${status}`
  let found = series.get(key)
  if (found === undefined) {
    const labels = { route, method, status: String(status) }
    found = { count: httpRequests.labels(labels), duration: httpRequestDuration.labels(labels) }
    series.set(key, found)
  }
  return found
}

export const observeRequests = (server: Server) => {
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now()
    res.once("close", () => {
      const { count, duration } = seriesOf(routeOf(req, res), req.method ?? "", res.statusCode)
      count.inc()
      duration.observe((performance.now() - started) / 1000)
    })
  })
}
