import { OpenApi } from "@effect/platform"
import { PublicApi } from "../../protocol/http/api.js"

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Handlers fail with the domain's ApiError, and HttpApi documents its own decode error
 * for 400; neither is what goes on the wire. The gateway's error middleware answers
 * every failure with the spec's body, so the document shows those bodies instead.
 */
const internal: Readonly<Record<string, string>> = {
  "#/components/schemas/ApiError": "#/components/schemas/ServerError",
  "#/components/schemas/HttpApiDecodeError": "#/components/schemas/BadRequest"
}

const descriptions: Readonly<Record<string, string>> = {
  "400": "Missing or wrong field, invalid id, unparsable JSON or date, or a post that breaks a network rule",
  "500": "Server-side failure"
}

const sameRef = (a: unknown, b: unknown) => isObject(a) && isObject(b) && a["$ref"] !== undefined && a["$ref"] === b["$ref"]

const rewrite = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(rewrite)
  if (!isObject(node)) return node
  const ref = node["$ref"]
  if (typeof ref === "string" && internal[ref] !== undefined) return { $ref: internal[ref] }
  const out: Json = {}
  for (const [k, v] of Object.entries(node)) {
    const value = rewrite(v)
    if (k === "anyOf" && Array.isArray(value)) {
      // two internal errors can map to the same documented body: list it once
      const unique = value.filter((s, i) => value.findIndex((t) => sameRef(s, t)) === i)
      if (unique.length === 1) Object.assign(out, unique[0] as Json)
      else out[k] = unique
      continue
    }
    out[k] = value
  }
  return out
}

const fixResponseDescriptions = (paths: unknown) => {
  if (!isObject(paths)) return
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || !isObject(operation["responses"])) continue
      for (const [status, response] of Object.entries(operation["responses"])) {
        const description = descriptions[status]
        if (isObject(response) && description !== undefined) response["description"] = description
      }
    }
  }
}

/** Drops component schemas nothing refers to any more (the internal ones). */
const dropUnreferenced = (spec: Json) => {
  const components = spec["components"]
  if (!isObject(components) || !isObject(components["schemas"])) return
  const schemas = components["schemas"]
  for (;;) {
    const text = JSON.stringify({ ...spec, components: { ...components, schemas: {} } }) + JSON.stringify(schemas)
    const unused = Object.keys(schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`))
    if (unused.length === 0) return
    for (const name of unused) delete schemas[name]
  }
}

/** The OpenAPI 3.1 document of the public API, generated from the HttpApi definitions. */
export const openApiDocument = (publicUrl: string): Json => {
  const spec = rewrite(OpenApi.fromApi(PublicApi)) as Json
  fixResponseDescriptions(spec["paths"])
  dropUnreferenced(spec)
  return { ...spec, servers: [{ url: publicUrl, description: "This server" }] }
}
