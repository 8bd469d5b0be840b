import { createWriteStream } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import type http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isOutboundError, type OutboundError } from "../../services/platform/outbound/errors.js"
import type { OutboundHttpShape } from "../../services/platform/outbound/outboundHttp.js"
import type { OutboundRequest } from "../../services/platform/outbound/request.js"
import { makeOutboundHttpForTests, startLoopbackServer, type LoopbackServer } from "../../services/platform/outbound/testing.js"

// Media import and webhook limits, against a loopback server allowed for these tests only.

const kib = (n: number) => Buffer.alloc(n * 1024, 0x61)
const open = new Set<http.ServerResponse>()

const routes: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? "/", "http://origin")
  const size = Number(url.searchParams.get("kib") ?? 0)
  open.add(res)
  res.on("close", () => open.delete(res))
  switch (url.pathname) {
    case "/announced": // Content-Length tells the size up front
      return res.writeHead(200, { "content-type": "image/png", "content-length": size * 1024 }).end(kib(size))
    case "/chunked": // no Content-Length: only counting catches it
      res.writeHead(200, { "content-type": "image/png" })
      for (let i = 0; i < size; i++) res.write(kib(1))
      return res.end()
    case "/drip": {
      // a byte every 50 ms, forever
      res.writeHead(200, { "content-type": "image/png" })
      const timer = setInterval(() => res.write("x"), 50)
      return res.on("close", () => clearInterval(timer))
    }
    case "/silent": // accepts, never answers
      return
    case "/slow-redirect":
      return void setTimeout(() => res.writeHead(302, { location: "/slow-redirect" }).end(), 100)
    case "/page":
      return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<html>sign in</html>")
    default:
      return res.writeHead(200, { "content-type": "image/png" }).end("png")
  }
}

let server: LoopbackServer
let client: OutboundHttpShape
let downloads: string
beforeAll(async () => {
  server = await startLoopbackServer(routes)
  client = makeOutboundHttpForTests({
    resolver: async () => [{ address: "127.0.0.1", family: 4 }],
    allow: [server.origin]
  })
  downloads = await mkdtemp(join(tmpdir(), "outbound-"))
})
afterAll(async () => {
  for (const res of open) res.destroy()
  await server.close()
  await rm(downloads, { recursive: true, force: true })
})

const failure = (effect: Effect.Effect<unknown, OutboundError>) => Effect.runPromise(Effect.flip(effect))

/** Streams to a file the way media import does; resolves with the error the pipeline failed with. */
const streamToFile = (request: OutboundRequest, file: string): Promise<OutboundError | "done"> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.flatMap(client.stream(request), (response) =>
        Effect.tryPromise({
          try: () => pipeline(response.body, createWriteStream(join(downloads, file))).then(() => "done" as const),
          catch: (e) => e
        })
      )
    ).pipe(Effect.catchAll((e) => (isOutboundError(e) ? Effect.succeed(e) : Effect.die(e))))
  )

describe("body cap (maxBytes)", () => {
  it("accepts a body of exactly maxBytes", async () => {
    const response = await Effect.runPromise(client.fetch({ url: server.url("/chunked?kib=64"), maxBytes: 64 * 1024 }))
    expect(response.body.length).toBe(64 * 1024)
  })

  it.each(["/announced", "/chunked"])("refuses %s bodies over the cap", async (path) => {
    const error = await failure(client.fetch({ url: server.url(`${path}?kib=512`), maxBytes: 64 * 1024 }))
    expect(error).toMatchObject({ _tag: "ResponseTooLarge", maxBytes: 64 * 1024 })
  })

  it("streams within the cap to disk and aborts a stream over it", async () => {
    expect(await streamToFile({ url: server.url("/chunked?kib=256"), maxBytes: 256 * 1024 }, "ok.png")).toBe("done")
    expect((await readFile(join(downloads, "ok.png"))).length).toBe(256 * 1024)
    const error = await streamToFile({ url: server.url("/chunked?kib=2048"), maxBytes: 256 * 1024 }, "big.png")
    expect(error).toMatchObject({ _tag: "ResponseTooLarge" })
  })
})

describe("total deadline (timeoutMs)", () => {
  // The drip sends a chunk more often than the deadline: a per-chunk timeout would never
  // fire, so an OutboundTimeout proves the deadline is total (timings: outcomes only here).
  it("a slow drip fails at the deadline, not per chunk", async () => {
    const result = await failure(client.fetch({ url: server.url("/drip"), timeoutMs: 300 }))
    expect(result).toMatchObject({ _tag: "OutboundTimeout", timeoutMs: 300 })
  })

  it("a slow drip fails at the deadline while streaming", async () => {
    const result = await streamToFile({ url: server.url("/drip"), timeoutMs: 300 }, "drip.png")
    expect(result).toMatchObject({ _tag: "OutboundTimeout" })
  })

  it("a server that never answers fails at the deadline", async () => {
    const result = await failure(client.fetch({ url: server.url("/silent"), timeoutMs: 200 }))
    expect(result._tag).toBe("OutboundTimeout")
  })

  it("the deadline covers every redirect hop together", async () => {
    const result = await failure(client.fetch({ url: server.url("/slow-redirect"), timeoutMs: 250 }))
    expect(result._tag).toBe("OutboundTimeout")
  })

  it("the deadline covers name resolution", async () => {
    const hanging = makeOutboundHttpForTests({ resolver: () => new Promise(() => {}), allow: [server.origin] })
    const result = await failure(hanging.fetch({ url: "http://hang.test/", timeoutMs: 100 }))
    expect(result._tag).toBe("OutboundTimeout")
  })
})

describe("media import: a page instead of a file", () => {
  it("refuses a 2xx whose Content-Type is not accepted", async () => {
    const error = await failure(client.fetch({ url: server.url("/page"), acceptContentTypes: ["image/", "video/"] }))
    expect(error).toMatchObject({ _tag: "UnexpectedContentType", contentType: "text/html; charset=utf-8" })
  })

  it("accepts a matching Content-Type", async () => {
    const response = await Effect.runPromise(client.fetch({ url: server.url("/file"), acceptContentTypes: ["image/png"] }))
    expect(response.body.toString()).toBe("png")
  })
})

describe("connection failures", () => {
  it("a refused connection is ConnectionFailed", async () => {
    const closed = await startLoopbackServer()
    await closed.close()
    const refusedClient = makeOutboundHttpForTests({ resolver: async () => [], allow: [closed.origin] })
    const error = await failure(refusedClient.fetch({ url: closed.url("/") }))
    expect(error._tag).toBe("ConnectionFailed")
  })
})
