import { Schema } from "effect"
import { type ApiError, type ApiErrorBody, errorBody } from "../../domain/errors.js"

/**
 * The MCP surface of the error catalog. A tool that fails for a reason the caller can act
 * on (a rule, a missing post, billing) answers a tool result with `isError: true` whose
 * structured content is the REST body (spec: MCP calls get the same bodies for billing),
 * so a model reads the same text and fix. Protocol faults are JSON-RPC errors.
 */

/** JSON-RPC 2.0 codes (and the implementation-defined range for the service's own cases). */
export const JsonRpcCode = {
  invalidParams: -32602,
  internalError: -32603,
  /** A case of the catalog that is not about the call's shape (billing, roles, conflicts). */
  serviceError: -32000
} as const

/**
 * The REST error body as a tool result's structured content: every tool's output schema
 * admits it next to its answer (clients check structured content against the schema,
 * error results included).
 */
export const ToolErrorBody = Schema.Struct({
  error: Schema.String,
  msg: Schema.String,
  fix: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Array(Schema.Struct({ channelId: Schema.String, channelName: Schema.String, message: Schema.String })))
}).annotations({ description: "The failure, with the same body as the REST API (error and msg the same text; fix says what to do)" })

/** The result of a tool call that failed with a case of the catalog. */
export const toolError = (
  e: ApiError
): {
  readonly isError: true
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent: ApiErrorBody
} => {
  const body = errorBody(e)
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body }
}

/** A JSON-RPC error for the same case, where a call cannot even start (its arguments, its key, its plan). */
export const jsonRpcError = (e: ApiError): { readonly code: number; readonly message: string; readonly data: ApiErrorBody } => {
  const body = errorBody(e)
  switch (e._tag) {
    case "InvalidRequest":
    case "InvalidJson":
    case "InvalidId":
    case "InvalidDate":
      return { code: JsonRpcCode.invalidParams, message: body.error, data: body }
    case "ServerError":
      return { code: JsonRpcCode.internalError, message: body.error, data: body }
    default:
      return { code: JsonRpcCode.serviceError, message: body.error, data: body }
  }
}
