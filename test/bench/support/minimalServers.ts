/**
 * The baselines of `npm run bench -- read`, each run as its own process:
 *   node --import tsx test/bench/support/minimalServers.ts httpapi   a minimal Effect HttpApi
 *     endpoint on the gateway's stack (@effect/platform HttpApiBuilder on NodeHttpServer)
 *   node --import tsx test/bench/support/minimalServers.ts bare      bare Node http
 * Both answer GET /public/v1/is-connected with {"connected":true} and print `listening on <port>`.
 */
import { createServer } from "node:http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Context, Effect, Layer, Schema } from "effect"

const kind = process.argv[2]

if (kind === "bare") {
  const body = JSON.stringify({ connected: true })
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
    res.end(body)
  })
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    process.stdout.write(`listening on ${typeof address === "object" && address !== null ? address.port : 0}\n`)
  })
} else if (kind === "httpapi") {
  const Api = HttpApi.make("minimal").add(
    HttpApiGroup.make("account").add(
      HttpApiEndpoint.get("isConnected", "/public/v1/is-connected").addSuccess(Schema.Struct({ connected: Schema.Boolean }))
    )
  )
  const Handlers = HttpApiBuilder.group(Api, "account", (handlers) => handlers.handle("isConnected", () => Effect.succeed({ connected: true })))
  const Server = HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(Handlers))),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.tap((context) => {
      const address = Context.get(context, HttpServer.HttpServer).address
      return Effect.sync(() => process.stdout.write(`listening on ${address._tag === "TcpAddress" ? address.port : 0}\n`))
    })
  )
  NodeRuntime.runMain(Layer.launch(Server))
} else {
  process.stderr.write("usage: minimalServers.ts bare|httpapi\n")
  process.exit(2)
}
