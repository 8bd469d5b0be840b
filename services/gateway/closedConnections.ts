import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"

/**
 * The platform writes an answer with `response.end(body, callback)` and closes the
 * request's scope (an upload's temporary files among its finalizers) only once the
 * callback has run. Node never runs it when the connection is already gone (the client
 * disconnected, or was cut off for stalling): the request would wait forever and its
 * temporary files would stay. Here the callback also runs when the connection closes.
 */
export const settleAnswersOnClose = (server: Server) => {
  server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
    const end = res.end
    res.end = function (this: ServerResponse, ...args: Array<unknown>) {
      const at = args.findIndex((a) => typeof a === "function")
      if (at >= 0) {
        const callback = args[at] as (...a: Array<unknown>) => void
        let settled = false
        const once = (...a: Array<unknown>) => {
          if (settled) return
          settled = true
          callback(...a)
        }
        args[at] = once
        if (res.destroyed) process.nextTick(once)
        else res.once("close", () => once())
      }
      return (end as (...a: Array<unknown>) => ServerResponse).apply(this, args)
    } as typeof res.end
  })
}

/**
 * A client that stops sending before its request is complete (in the headers or in the
 * body) for `idleMs` has its connection closed: a client that sent part of a body and
 * stalled would otherwise hold the request (and its upload's temp files) forever. The
 * clock restarts with every byte, so a slow upload that keeps coming is not cut off.
 * Once the body is complete the server may take its time answering. (Node's own
 * headersTimeout and requestTimeout bound the total time on top of this.)
 */
export const cutOffStalledClients = (server: Server, idleMs: number) => {
  // before the first request: nobody listens, so Node closes an idle connection itself
  server.on("connection", (socket: Socket) => socket.setTimeout(idleMs))
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) => {
    // a listener on the response keeps Node from closing the connection itself once the body is in
    res.setTimeout(idleMs, () => {
      if (!req.complete) req.socket.destroy()
    })
  })
}
