import { HttpApiError } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import type { ApiError } from "../../../domain/errors.js"
import { toolError, ToolErrorBody } from "../../../protocol/mcp/errors.js"
import { jsonSchemaOf, type JsonSchemaObject } from "../../../protocol/mcp/jsonSchema.js"
import { decodeErrorToApiError } from "../errorResponse.js"
import { withSpan } from "../../platform/tracing.js"

/**
 * One MCP tool: its contract (name, a description written for a model, MCP annotations,
 * the input it decodes and the answer it encodes) and `run`, which calls the same
 * feature service method as the REST handler, inside the same `authorize`.
 */
export interface ToolDefinition<A, I, O, OI, R> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly annotations: {
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    /** True where the tool reaches a social network or another outside address. */
    readonly openWorldHint: boolean
  }
  readonly input: Schema.Schema<A, I, never>
  /** Only where the listed schema must say more than `input` can (the two body forms of a post). */
  readonly inputJsonSchema?: JsonSchemaObject
  readonly output: Schema.Schema<O, OI, never>
  readonly run: (input: A) => Effect.Effect<O, ApiError, R>
}

export type ToolResult = {
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent: Readonly<Record<string, unknown>>
  readonly isError?: true
}

/** A tool as the server lists and calls it, its types erased behind decoding and encoding. */
export interface Tool<R> {
  readonly name: string
  readonly listing: {
    readonly name: string
    readonly title: string
    readonly description: string
    readonly inputSchema: JsonSchemaObject
    readonly outputSchema: JsonSchemaObject
    readonly annotations: ToolDefinition<unknown, unknown, unknown, unknown, unknown>["annotations"]
  }
  readonly call: (args: unknown) => Effect.Effect<ToolResult, never, R>
}

const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> => typeof u === "object" && u !== null && !Array.isArray(u)

const errorBodyJsonSchema = jsonSchemaOf(ToolErrorBody)

export const defineTool = <A, I, O, OI, R>(definition: ToolDefinition<A, I, O, OI, R>): Tool<R> => {
  const decode = Schema.decodeUnknown(definition.input)
  const encode = Schema.encode(definition.output)
  return {
    name: definition.name,
    listing: {
      name: definition.name,
      title: definition.title,
      description: definition.description,
      inputSchema: definition.inputJsonSchema ?? jsonSchemaOf(definition.input, "allow"),
      // the answer, or on an error result the REST error body
      outputSchema: { type: "object", anyOf: [jsonSchemaOf(definition.output), errorBodyJsonSchema] },
      annotations: definition.annotations
    },
    call: (args) =>
      Effect.gen(function* () {
        // arguments that do not fit the input schema are a tool execution error (MCP 2025-11-25,
        // SEP-1303): the model sees the REST body naming the field and can correct itself
        const input = yield* Effect.either(
          decode(args ?? {}).pipe(
            Effect.catchAll((e) => Effect.flatMap(HttpApiError.HttpApiDecodeError.fromParseError(e), (d) => Effect.fail(decodeErrorToApiError(d))))
          )
        )
        if (Either.isLeft(input)) return toolError(input.left)
        const answer = yield* Effect.either(definition.run(input.right))
        if (Either.isLeft(answer)) return toolError(answer.left)
        const structured: unknown = yield* Effect.orDie(encode(answer.right))
        if (!isRecord(structured)) return yield* Effect.dieMessage(`tool ${definition.name} answered something other than an object`)
        return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured } as const
      }).pipe(withSpan(`mcp.tool.${definition.name}`))
  }
}
