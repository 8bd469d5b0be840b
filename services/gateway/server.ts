import { createServer } from "node:http"
import {
  HttpApiBuilder,
  HttpApiScalar,
  OpenApi,
  HttpServer,
  HttpIncomingMessage,
  HttpMethod,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import { PublicApi } from "../../protocol/http/api.js"
import { AppConfig, type HttpServerConfig } from "../platform/config.js"
import { alive, readinessResponse } from "../platform/health.js"
import { answerUntilServed } from "./answerUntilServed.js"
import { RedisLive } from "../platform/redis.js"
import { Notifications } from "../notifications/Notifications.js"
import { Connections } from "../channels/Connections.js"
import { SocialCallbackRoutesLive } from "./pages/socialCallback.js"
import { Channels } from "../channels/Channels.js"
import { Posts } from "../posts/Posts.js"
import { PostsExport } from "../posts/PostsExport.js"
import { PostsImport } from "../posts/PostsImport.js"
import { Share } from "../share/Share.js"
import { AuthenticationLive } from "./authentication.js"
import { TokenCacheLive } from "./tokenCache.js"
import { guardChunkedBodies } from "./chunkedBodyGuard.js"
import { cutOffStalledClients, settleAnswersOnClose } from "./closedConnections.js"
import { apiErrorResponse, causeToResponse } from "./errorResponse.js"
import { checkRequestBody, checkRequestHead } from "./requestGuard.js"
import { makeRequestLogs } from "./requestLogs.js"
import { observeRequests } from "./requestMetrics.js"
import { metricsResponse } from "../platform/metrics.js"
import { AccountHttpLive } from "./http/accountHttp.js"
import { isUploadRequest, MediaFilesRouteLive, MediaHttpLive, UPLOAD_PATH, withUploadLimits } from "./http/mediaHttp.js"
import { NetworksHttpLive } from "./http/networksHttp.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { PostsBulkHttpLive } from "./http/postsBulkHttp.js"
import { PostsHttpLive } from "./http/postsHttp.js"
import { SlotsHttpLive } from "./http/slotsHttp.js"
import { AnalyticsHttpLive } from "./http/analyticsHttp.js"
import { EventsHttpLive } from "./http/eventsHttp.js"
import { EventLog } from "../webhooks/EventLog.js"
import { Analytics } from "../analytics/Analytics.js"
import { FreeSlots } from "../slots/FreeSlots.js"
import { ClickFlusherLive, ShortLinks } from "../shortLinks/ShortLinks.js"
import { ShortLinkRouteLive } from "./pages/shortLinkRoute.js"
import { SignedMediaFilesRouteLive } from "./pages/signedMediaFilesRoute.js"
import { ShareRoutesLive } from "./pages/shareRoutes.js"
import { isMcpRequest, McpLive } from "./mcp/mcpRoute.js"
import { RateWindows } from "../actors/rateWindows.js"
import { OAuth } from "../oauth/OAuth.js"
import { People } from "../people/People.js"
import { Sessions } from "../people/sessions.js"
import { OAuthRoutesLive } from "./oauth/oauthRoutes.js"
import { OAuthPageRoutesLive } from "./pages/oauthPageRoutes.js"
import { PeopleRoutesLive } from "./pages/peopleRoutes.js"
import { WebhooksRoutesLive } from "./http/webhooksRoutes.js"
import { Webhooks } from "../webhooks/Webhooks.js"

/** Spec: JSON body at most 5 MB (413 above). */
export const MAX_JSON_BODY = 5 * 1024 * 1024

/**
 * The Node server: the 5 MB limit for bodies sent without Content-Length; clients that
 * stall are cut off (headers, an idle body, a whole request: HttpServerConfig); requests
 * end (their scope closed) even when the client went away.
 */
const makeNodeServer = (timeouts: HttpServerConfig) => () => {
  const server = createServer({
    headersTimeout: timeouts.headersTimeoutMs,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // how often Node checks the headers and request deadlines (its default is every 30 s)
    connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs)
  })
  settleAnswersOnClose(server)
  observeRequests(server)
  cutOffStalledClients(server, timeouts.requestIdleTimeoutMs)
  guardChunkedBodies(server, MAX_JSON_BODY, (url) => url.split("?")[0] === UPLOAD_PATH)
  // last: it answers only while the routes' handler is not attached (starting, stopping)
  answerUntilServed(server)
  return server
}

/**
 * The one API-level middleware: the edge checks (one Authorization header, no U+0000,
 * body depth; services/gateway/requestGuard.ts) and the body size limit, then every
 * failure of every route (declared, decode, unknown path, defect) mapped to the spec's
 * error body.
 */
const ErrorMiddlewareLive = HttpApiBuilder.middleware(
  Effect.map(Effect.zip(AppConfig, makeRequestLogs), ([config, requestLogs]) => {
    // made once, not per request (docs/performance.md, "Generator functions made once")
    const checked = Effect.fnUntraced(function* <E, R>(
      request: HttpServerRequest.HttpServerRequest,
      mcp: boolean,
      app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) {
      if (!mcp) yield* checkRequestHead(request)
      const declared = Number(request.headers["content-length"] ?? "0")
      // POST /upload has its own limit (MAX_UPLOAD_BYTES, streamed to disk) instead of 5 MB
      if (isUploadRequest(request)) return yield* withUploadLimits(app, declared, config.media)
      if (declared > MAX_JSON_BODY) return apiErrorResponse(Errors.bodyTooLarge())
      // a backstop just above the limit: bodies without Content-Length are answered by the guard
      return yield* HttpIncomingMessage.withMaxBodySize(
        mcp ? app : Effect.zipRight(checkRequestBody(request), app),
        Option.some(MAX_JSON_BODY + 64 * 1024)
      )
    })
    const middleware: HttpApiBuilder.MiddlewareFn<never> = (app) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        // a request without a body (most reads): no body checks or limits to set up
        const bodyless =
          !HttpMethod.hasBody(request.method) && request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined
        // MCP makes the same edge checks itself and answers them as JSON-RPC errors (services/gateway/mcp/mcpRoute.ts)
        const mcp = isMcpRequest(request)
        const answer = bodyless && !mcp ? Effect.zipRight(checkRequestHead(request), app) : checked(request, mcp, app)
        return requestLogs(request, answer.pipe(Effect.catchAllCause((cause) => causeToResponse(cause, config.supportEmail))))
      })
    return middleware
  })
)

/** /healthz (alive), /readyz (200 only once started and while Postgres, NATS and Redis answer: readiness.ts), the OpenAPI JSON. */
const SystemRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    // exactly what the docs page (HttpApiScalar, below) renders: both come from OpenApi.fromApi
    const document = OpenApi.fromApi(PublicApi)
    yield* router.get("/healthz", alive)
    yield* router.get("/readyz", readinessResponse)
    yield* router.get("/metrics", metricsResponse)
    yield* router.get("/public/v1/openapi.json", HttpServerResponse.unsafeJson(document))
  })
)

/** The feature services, built once for every edge of the gateway (REST handlers, pages). */
const FeaturesLive = Layer.mergeAll(
  // import and export use the gateway's one Posts
  Layer.mergeAll(PostsImport.Default, PostsExport.Default).pipe(Layer.provideMerge(Posts.Default)),
  Channels.Default,
  Connections.Default,
  // GET /networks and MCP list_networks say which networks publish (the same layer Channels builds)
  NetworkAdapters.Default,
  Share.Default,
  Notifications.Default,
  FreeSlots.Default,
  ShortLinks.Default,
  Analytics.Default,
  People.Default,
  OAuth.Default,
  Sessions.Live,
  RateWindows.Live,
  Webhooks.Default,
  EventLog.Default,
  // one token cache per gateway, for every route that authenticates (API, MCP, app webhook API)
  TokenCacheLive
)

const ApiLive = HttpApiBuilder.api(PublicApi).pipe(
  Layer.provide([
    AccountHttpLive,
    NetworksHttpLive,
    PostsHttpLive,
    PostsBulkHttpLive,
    MediaHttpLive,
    SlotsHttpLive,
    AnalyticsHttpLive,
    EventsHttpLive
  ]),
  Layer.provide(AuthenticationLive)
)

/** The gateway's routes, without a server: used by main (with a port) and tests. */
export const GatewayRoutesLive = Layer.mergeAll(
  ApiLive,
  ErrorMiddlewareLive,
  SystemRoutesLive,
  ShareRoutesLive,
  SocialCallbackRoutesLive,
  MediaFilesRouteLive,
  SignedMediaFilesRouteLive,
  McpLive,
  ShortLinkRouteLive,
  ClickFlusherLive,
  PeopleRoutesLive,
  OAuthPageRoutesLive,
  OAuthRoutesLive,
  WebhooksRoutesLive,
  HttpApiScalar.layer({ path: "/public/v1/docs" }).pipe(Layer.provide(ApiLive))
).pipe(Layer.provide(FeaturesLive))

const addressText = (a: HttpServer.Address) => (a._tag === "TcpAddress" ? `port ${a.port}` : a.path)

/** The gateway listening on PORT; the only service that uses Redis, so it connects to it itself. */
export const GatewayLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    HttpApiBuilder.serve().pipe(
      Layer.provide(GatewayRoutesLive),
      Layer.provide(RedisLive),
      // HttpServer stays in the output so tests can read the bound address (PORT=0)
      Layer.provideMerge(NodeHttpServer.layer(makeNodeServer(config.http), { port: config.port })),
      Layer.tap((context) => Effect.logInfo(`gateway listening on ${addressText(Context.get(context, HttpServer.HttpServer).address)}`))
    )
  )
)
