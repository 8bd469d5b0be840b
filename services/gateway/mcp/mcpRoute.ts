import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Layer, Redacted } from "effect"
import { type ApiError, Errors } from "../../../domain/errors.js"
import { mcpPerMinute } from "../../../domain/rateWindow.js"
import { restStatus } from "../../../protocol/http/errors.js"
import { Authentication, type CurrentPrincipal } from "../../../protocol/http/security.js"
import { jsonRpcError, JsonRpcCode } from "../../../protocol/mcp/errors.js"
import { RateWindows } from "../../actors/rateWindows.js"
import { MediaLibrary } from "../../media/MediaLibrary.js"
import { AppConfig } from "../../platform/config.js"
import { AuthenticationLive } from "../authentication.js"
import { apiErrorResponse, toApiError } from "../errorResponse.js"
import { checkRequestBody, checkRequestHead } from "../requestGuard.js"
import { answerMcpRequest } from "./mcpServer.js"
import { mcpTools, type McpToolServices } from "./tools.js"

/** The MCP endpoint (outside /public/v1 and its OpenAPI document). */
export const MCP_PATH = "/mcp"

export const isMcpRequest = (request: HttpServerRequest.HttpServerRequest): boolean => request.url.split("?")[0] === MCP_PATH

/** RFC 9728 metadata of this resource, named by every 401 so a client can start OAuth. */
export const resourceMetadataUrl = (publicUrl: string) => `${publicUrl}/.well-known/oauth-protected-resource${MCP_PATH}`

/** Requests a body counts for in the 600-a-minute window: each message of a batch (a body the SDK refuses counts once). */
const messagesIn = (body: string): number => {
  if (!body.trimStart().startsWith("[")) return 1
  try {
    const parsed: unknown = JSON.parse(body)
    return Array.isArray(parsed) ? Math.max(1, parsed.length) : 1
  } catch {
    return 1
  }
}

/** How the body travelled to the gateway: the web Request the SDK reads carries it whole. */
const framingHeaders = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "host"])

/** A JSON-RPC error before any message was read (no id): the edge checks of the REST API, in MCP's shape. */
const jsonRpcRefusal = (e: ApiError) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", id: null, error: jsonRpcError(e) }, { status: restStatus[e._tag] })

/**
 * POST /mcp: the edge checks (as for REST), authentication with the gateway's own
 * Authentication (workspace key, OAuth or CLI token; billing, paused members and
 * unconfirmed owners answer the REST bodies), the workspace's 600-a-minute window in
 * Redis (shared by every replica; a batch counts each message), then the request to the
 * SDK's stateless Streamable HTTP transport. Every request authenticates again, so a
 * revoked token stops at once.
 */
export const McpRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const authentication = yield* Authentication
    const windows = yield* RateWindows
    const config = yield* AppConfig
    const metadata = resourceMetadataUrl(config.publicUrl)
    const ownOrigin = new URL(config.publicUrl).origin
    // the tools run in the gateway's own services (built once), as the principal of each request
    const runtime = yield* Effect.runtime<Exclude<McpToolServices, CurrentPrincipal>>()

    const refuseCredentials = (e: ApiError) => {
      const response = apiErrorResponse(e)
      // RFC 6750 / MCP authorization: where to find the OAuth metadata; invalid_token when one was sent
      if (e._tag === "MissingApiKey") return HttpServerResponse.setHeader(response, "www-authenticate", `Bearer resource_metadata="${metadata}"`)
      if (e._tag === "InvalidApiKey") {
        return HttpServerResponse.setHeader(response, "www-authenticate", `Bearer error="invalid_token", resource_metadata="${metadata}"`)
      }
      return response
    }

    const answer = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      // MCP transport security: a page of another origin (DNS rebinding) is refused before anything else
      const origin = request.headers["origin"]
      if (origin !== undefined && origin !== ownOrigin) {
        return HttpServerResponse.unsafeJson(
          { jsonrpc: "2.0", id: null, error: { code: JsonRpcCode.serviceError, message: `Requests from ${origin} are not accepted.` } },
          { status: 403 }
        )
      }
      const head = yield* Effect.either(checkRequestHead(request))
      if (Either.isLeft(head)) return jsonRpcRefusal(head.left)

      const principal = yield* Effect.either(authentication.apiKey(Redacted.make(request.headers["authorization"] ?? "")))
      if (Either.isLeft(principal)) return refuseCredentials(principal.left)
      const body = request.method === "POST" ? yield* Effect.either(Effect.zipRight(checkRequestBody(request), request.text)) : Either.right("")
      if (Either.isLeft(body)) {
        const refusal = toApiError(body.left)
        return refusal === null ? yield* Effect.die(body.left) : jsonRpcRefusal(refusal)
      }
      const window = yield* windows.take(principal.right.workspaceId, "mcp", mcpPerMinute, messagesIn(body.right))
      if (!window.allowed) return apiErrorResponse(Errors.tooManyRequests(window.retryAfterSeconds))

      // stateless: no server-sent stream to open (GET) and no session to end (DELETE)
      if (request.method !== "POST") {
        return HttpServerResponse.unsafeJson(
          { jsonrpc: "2.0", id: null, error: { code: JsonRpcCode.serviceError, message: "Method not allowed. Send JSON-RPC messages with POST." } },
          { status: 405, headers: { allow: "POST" } }
        )
      }
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) if (!framingHeaders.has(name)) headers.set(name, value)
      const webRequest = new Request(new URL(request.url, config.publicUrl), { method: "POST", headers, body: body.right })
      const mcp = yield* answerMcpRequest(runtime, mcpTools, webRequest, principal.right, config.supportEmail)
      const { "content-type": contentType, "content-length": _length, ...rest } = mcp.headers
      return mcp.body === ""
        ? HttpServerResponse.empty({ status: mcp.status, headers: rest })
        : HttpServerResponse.text(mcp.body, { status: mcp.status, headers: rest, contentType: contentType ?? "application/json" })
    })

    yield* router.all(MCP_PATH, answer)
  })
)

/**
 * The route with what it needs beyond the gateway's feature services (Posts, Channels,
 * Notifications: server.ts FeaturesLive): the same Authentication layer as the REST API,
 * the rate windows, the media library. A tool on a new feature service needs its layer here.
 */
export const McpLive = McpRouteLive.pipe(Layer.provide([AuthenticationLive, RateWindows.Live, MediaLibrary.Default]))
