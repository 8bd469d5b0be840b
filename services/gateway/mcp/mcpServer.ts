import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Exit, Option, Runtime } from "effect"
import { Errors } from "../../../domain/errors.js"
import type { Principal } from "../../../domain/roles.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { jsonRpcError, toolError } from "../../../protocol/mcp/errors.js"
import { toApiError } from "../errorResponse.js"
import { readRuleResource, RESOURCE_NOT_FOUND, ruleResources } from "./resources.js"
import type { Tool } from "./tool.js"

/**
 * The MCP server of one HTTP request (stateless Streamable HTTP: no session, so any
 * gateway replica answers any request). The official SDK speaks the protocol (JSON-RPC
 * framing, initialize and version negotiation, batches, parse errors); the tools run as
 * Effects in the gateway's runtime as the authenticated principal.
 */

export const SERVER_INFO = { name: "social-post-scheduler", version: "1.0.0" } as const

const INSTRUCTIONS =
  "Schedules posts to social network accounts (channels) of one workspace. Start with list_channels; read " +
  "get_channel_rules before writing so a post fits its network; create_post (with an idempotencyKey when you may " +
  "retry) and then get_post or list_posts to follow it. A failed tool call answers the service's error body: " +
  "error says what is wrong and fix what to do."

/** Thrown to the SDK so the JSON-RPC error carries exactly this code, message and data. */
class JsonRpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown
  ) {
    super(message)
  }
}

export interface McpAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Answers one HTTP request to /mcp (already authenticated as `principal`). */
export const answerMcpRequest = <R>(
  runtime: Runtime.Runtime<Exclude<R, CurrentPrincipal>>,
  tools: ReadonlyArray<Tool<R>>,
  request: Request,
  principal: Principal,
  supportEmail: string
) =>
  Effect.gen(function* () {
    const byName = new Map(tools.map((t) => [t.name, t]))
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false, subscribe: false } },
      instructions: INSTRUCTIONS
    })
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: ruleResources() }))
    server.setRequestHandler(ReadResourceRequestSchema, (read) => {
      const found = readRuleResource(read.params.uri)
      if (found === null) throw new JsonRpcFailure(RESOURCE_NOT_FOUND, "Resource not found", { uri: read.params.uri })
      return found
    })
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map((t) => ({ ...t.listing })) }))
    server.setRequestHandler(CallToolRequestSchema, async (call) => {
      const tool = byName.get(call.params.name)
      if (tool === undefined) throw new JsonRpcFailure(ErrorCode.InvalidParams, `Unknown tool: ${call.params.name}`, undefined)
      const exit = await Runtime.runPromiseExit(runtime)(tool.call(call.params.arguments).pipe(Effect.provideService(CurrentPrincipal, principal)))
      if (Exit.isSuccess(exit)) return { ...exit.value, content: [...exit.value.content] }
      // Postgres (or every actor host) out of reach: the REST 503 body as a tool error, which the client may retry
      const failed = Cause.failureOption(exit.cause).pipe(Option.orElse(() => Cause.dieOption(exit.cause)))
      const unavailable = Option.isSome(failed) ? toApiError(failed.value) : null
      if (unavailable?._tag === "ServiceUnavailable") {
        await Runtime.runPromise(runtime)(Effect.logWarning(`MCP tool ${tool.name} answered service_unavailable: ${unavailable.fix ?? ""}`))
        const result = toolError(unavailable)
        return { ...result, content: [...result.content] }
      }
      // a defect: the REST 500 body (with the support address) as a JSON-RPC internal error; the cause goes to the log
      await Runtime.runPromise(runtime)(Effect.logError(`MCP tool ${tool.name} failed`, exit.cause))
      const internal = jsonRpcError(Errors.serverError(supportEmail))
      throw new JsonRpcFailure(internal.code, internal.message, internal.data)
    })
    return yield* Effect.acquireUseRelease(
      Effect.sync(() => new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })),
      (transport) =>
        Effect.promise(async (): Promise<McpAnswer> => {
          await server.connect(transport)
          const response = await transport.handleRequest(request)
          return { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: await response.text() }
        }),
      () => Effect.promise(() => server.close())
    )
  })
