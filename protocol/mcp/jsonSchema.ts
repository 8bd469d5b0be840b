import { JSONSchema, type Schema } from "effect"

/**
 * A tool's input or output schema as MCP lists it: JSON Schema 2020-12 (the MCP default
 * dialect, so no `$schema`), generated from the same Effect schema the tool decodes or
 * encodes with, self-contained (definitions inlined: clients compile each tool's schema
 * alone, and one shared validator refuses the same `$id` twice).
 */
export type JsonSchemaObject = { readonly [key: string]: unknown }

const DEFS = "#/$defs/"

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const inline = (node: unknown, definitions: Readonly<Record<string, unknown>>, seen: ReadonlyArray<string>): unknown => {
  if (Array.isArray(node)) return node.map((n) => inline(n, definitions, seen))
  if (!isObject(node)) return node
  // Effect's `{}` (an empty struct) is "an object or an array"; MCP arguments are an object
  if (node["$id"] === "/schemas/%7B%7D" || node["$id"] === "/schemas/{}") return { type: "object", properties: {} }
  const ref = node["$ref"]
  if (typeof ref === "string" && ref.startsWith(DEFS)) {
    const name = decodeURIComponent(ref.slice(DEFS.length))
    // the service's schemas are not recursive; a cycle would be a programming error, so it stays a plain object
    if (seen.includes(name)) return { type: "object" }
    const { $ref: _ref, ...rest } = node
    return { ...(inline(definitions[name], definitions, [...seen, name]) as object), ...(inline(rest, definitions, seen) as object) }
  }
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    // Effect marks `unknown` with an `$id` and a title: any value, which is `{}`
    if (key === "$id" || key === "$schema" || key === "$defs") continue
    if (key === "title" && node["$id"] === "/schemas/unknown") continue
    out[key] = inline(value, definitions, seen)
  }
  return out
}

/**
 * The JSON Schema of `schema`'s encoded side. `additionalProperties`: "strict" for
 * answers (exactly these fields), "allow" for arguments that, like the REST bodies they
 * mirror, ignore fields they do not know.
 */
export const jsonSchemaOf = <A, I>(schema: Schema.Schema<A, I, never>, additionalProperties: "strict" | "allow" = "strict"): JsonSchemaObject => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const root = JSONSchema.fromAST(schema.ast, {
    definitions,
    target: "jsonSchema2020-12",
    topLevelReferenceStrategy: "skip",
    additionalPropertiesStrategy: additionalProperties
  })
  const inlined = inline(root, definitions, [])
  return isObject(inlined) ? inlined : {}
}
