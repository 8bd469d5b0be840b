import diagnostics from "node:diagnostics_channel"
import http from "node:http"
import { Layer } from "effect"
import { classifyAddress } from "./addressPolicy.js"
import { fetchBuffered, openResponse, type Engine } from "./internal/fetchCore.js"
import { makeConnectionPool } from "./internal/pool.js"
import { OutboundHttp, type OutboundHttpShape } from "./outboundHttp.js"
import type { Resolver } from "./resolver.js"
import { checkSocketTarget } from "./socketTarget.js"

/** A loopback test server that the test client may reach although it is not public. */
export interface LoopbackOrigin {
  readonly address: "127.0.0.1" | "::1"
  readonly port: number
}

/**
 * For tests only: the real policy, except that the listed loopback origins (address AND port)
 * count as public, so an "allowed" path can be exercised without the internet while every
 * other address, including other loopback ports, stays refused. Throws outside vitest so
 * production wiring cannot pick it up by mistake.
 */
export const makeOutboundHttpForTests = (options: {
  readonly resolver: Resolver
  readonly allow?: ReadonlyArray<LoopbackOrigin>
  /** Reuse connections, as the webhook dispatcher's client does (outboundHttp.ts). */
  readonly keepAlive?: boolean
}): OutboundHttpShape => {
  if (process.env["VITEST"] === undefined) throw new Error("makeOutboundHttpForTests is only for tests")
  const allow = options.allow ?? []
  const engine: Engine = {
    resolver: options.resolver,
    policy: (address, port) =>
      allow.some((origin) => origin.address === address && origin.port === port) ? { public: true } : classifyAddress(address),
    ...(options.keepAlive === true ? { pool: makeConnectionPool() } : {})
  }
  return {
    fetch: (request) => fetchBuffered(engine, request),
    stream: (request) => openResponse(engine, request),
    socketTarget: (url) => checkSocketTarget(engine, url)
  }
}

export const OutboundHttpTest = (options: Parameters<typeof makeOutboundHttpForTests>[0]) =>
  Layer.sync(OutboundHttp, () => makeOutboundHttpForTests(options))

/** What a loopback test server saw: every TCP connection and every request. */
export interface LoopbackServer {
  readonly origin: LoopbackOrigin
  /** `http://127.0.0.1:<port><path>` */
  readonly url: (path: string) => string
  readonly connections: () => number
  readonly requests: ReadonlyArray<{
    readonly method: string
    readonly path: string
    readonly headers: http.IncomingHttpHeaders
    readonly body: string
  }>
  readonly close: () => Promise<void>
}

/** An HTTP server on 127.0.0.1 only (never another interface), counting connections. */
export const startLoopbackServer = (handler: http.RequestListener = (_req, res) => res.end("ok")): Promise<LoopbackServer> =>
  new Promise((resolve, reject) => {
    let connections = 0
    const requests: Array<LoopbackServer["requests"][number]> = []
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() })
        handler(req, res)
      })
    })
    server.on("connection", () => connections++)
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      if (address === null || typeof address === "string") return reject(new Error("no TCP address"))
      const origin: LoopbackOrigin = { address: "127.0.0.1", port: address.port }
      resolve({
        origin,
        url: (path) => `http://127.0.0.1:${origin.port}${path}`,
        connections: () => connections,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

/** Counts every TCP client socket this process opens, to prove a refusal made no connection at all. */
export const watchClientSockets = (): { readonly count: () => number; readonly stop: () => void } => {
  let count = 0
  const onSocket = () => {
    count++
  }
  diagnostics.subscribe("net.client.socket", onSocket)
  return { count: () => count, stop: () => diagnostics.unsubscribe("net.client.socket", onSocket) }
}
