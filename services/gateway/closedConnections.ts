import type { IncomingMessage, Server, ServerResponse } from "node:http"

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
