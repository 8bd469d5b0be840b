import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Errors, errorBody } from "../../domain/errors.js"

/** After answering 413, the rest of a body is read and dropped for at most this long. */
const LINGER_MS = 10_000

/**
 * A body sent without Content-Length (chunked) over the limit: the platform's own
 * limit destroys the socket, so the client would get a reset instead of the spec's
 * 413. This guard counts bytes as they are read; over the limit it makes what the app
 * reads unparsable (so nothing is processed), drops the rest of the body, and answers
 * 413 when the body ends: closing while the client still sends would reset the
 * connection and lose the answer.
 */
export const guardChunkedBodies = (server: Server, limit: number, exempt: (url: string) => boolean) => {
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] === undefined) return
    if (exempt(req.url ?? "")) return
    let bytes = 0
    let tripped = false
    const emit = req.emit.bind(req)
    const answer = () => {
      if (res.headersSent) return
      const body = JSON.stringify(errorBody(Errors.bodyTooLarge()))
      res.writeHead(413, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) })
      res.end(body)
    }
    const guarded = (event: string | symbol, ...args: Array<unknown>): boolean => {
      if (event === "end" && tripped) answer()
      if (event !== "data") return emit(event, ...args)
      if (tripped) return true
      const chunk = args[0]
      bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : Buffer.isBuffer(chunk) ? chunk.length : 0
      if (bytes <= limit) return emit(event, ...args)
      tripped = true
      setTimeout(() => {
        answer()
        req.destroy()
      }, LINGER_MS).unref()
      // a NUL byte is never valid JSON: the app's read fails and its answer is skipped
      return emit("data", typeof chunk === "string" ? "\u0000" : Buffer.from([0]))
    }
    req.emit = guarded as typeof req.emit
  })
}
