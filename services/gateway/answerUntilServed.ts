import type { Server } from "node:http"
import { answerHealth } from "../platform/healthListener.js"

/**
 * The gateway's port opens (NodeHttpServer's layer listens) before its routes are built and
 * attached (Redis connected, every feature layer made), and again has no routes between their
 * removal and the port's close at a stop. A request that arrives then has no handler and would
 * be accepted and never answered. This handler answers it: /healthz 200, /readyz 503 (starting or
 * shutting down, from readiness.ts), /metrics, and 503 with Retry-After for anything else.
 *
 * It answers only while it is the server's last request handler: the routes' handler, once
 * attached, comes after it and answers instead.
 */
export const answerUntilServed = (server: Server) => {
  const handlersBefore = server.listenerCount("request")
  server.on("request", (req, res) => {
    // the routes answer; or a guard before this handler (chunkedBodyGuard.ts) already did
    if (server.listenerCount("request") > handlersBefore + 1 || res.headersSent) return
    if (answerHealth(req, res)) return
    const text = JSON.stringify({
      error: "The service is starting or stopping. Try again shortly.",
      msg: "The service is starting or stopping. Try again shortly."
    })
    res.writeHead(503, { "content-type": "application/json", "content-length": Buffer.byteLength(text), "retry-after": "1" })
    res.end(text)
  })
}
