import { Schema } from "effect"

/** The parts of a JSON Schema (inside an OpenAPI document) that tests read. */
export interface JsonSchemaNode {
  readonly $ref?: string
  readonly required?: ReadonlyArray<string>
  readonly maxItems?: number
  readonly properties?: { readonly [name: string]: JsonSchemaNode }
  readonly anyOf?: ReadonlyArray<JsonSchemaNode>
  readonly oneOf?: ReadonlyArray<JsonSchemaNode>
}

export const JsonSchemaNode: Schema.Schema<JsonSchemaNode> = Schema.Struct({
  $ref: Schema.optional(Schema.String),
  required: Schema.optional(Schema.Array(Schema.String)),
  maxItems: Schema.optional(Schema.Number),
  properties: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.suspend(() => JsonSchemaNode) })),
  anyOf: Schema.optional(Schema.Array(Schema.suspend(() => JsonSchemaNode))),
  oneOf: Schema.optional(Schema.Array(Schema.suspend(() => JsonSchemaNode)))
})

const Content = Schema.Record({ key: Schema.String, value: Schema.Struct({ schema: Schema.optional(JsonSchemaNode) }) })

const Operation = Schema.Struct({
  requestBody: Schema.optional(Schema.Struct({ content: Content })),
  responses: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.Struct({ description: Schema.optional(Schema.String), content: Schema.optional(Content) }) })
  )
})

/**
 * The parts of an OpenAPI 3.1 document that tests read (decode with `exact: false`: the
 * document holds much more). A path item is read as its operations, by method.
 */
export const OpenApiDocument = Schema.Struct({
  openapi: Schema.String,
  info: Schema.Struct({ version: Schema.String }),
  paths: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Operation }) }),
  components: Schema.optional(
    Schema.Struct({
      schemas: Schema.optional(Schema.Record({ key: Schema.String, value: JsonSchemaNode })),
      securitySchemes: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }))
    })
  )
})
