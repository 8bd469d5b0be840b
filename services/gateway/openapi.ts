import { OpenApi } from "@effect/platform"
import { PublicApi } from "../../protocol/http/api.js"

type Json = Record<string, unknown>
const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Handlers fail with the domain's ApiError, which HttpApi would document as a
 * `_tag`ged 500 body. The wire bodies are the documented per-status errors, so the
 * internal schema is taken out of the document.
 */
const dropInternalError = (node: unknown): unknown => {
  if (Array.isArray(node)) {
    return node
      .filter((n) => !(isObject(n) && n["$ref"] === "#/components/schemas/ApiError"))
      .map(dropInternalError)
  }
  if (!isObject(node)) return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node)) {
    const cleaned = dropInternalError(v)
    // an anyOf left with one schema is that schema
    if (k === "anyOf" && Array.isArray(cleaned) && cleaned.length === 1) Object.assign(out, cleaned[0] as Json)
    else out[k] = cleaned
  }
  return out
}

/** The OpenAPI 3.1 document of the public API, generated from the HttpApi definitions. */
export const openApiDocument = (publicUrl: string): Json => {
  const spec = dropInternalError(OpenApi.fromApi(PublicApi)) as Json
  const components = spec["components"]
  if (isObject(components) && isObject(components["schemas"])) delete components["schemas"]["ApiError"]
  return { ...spec, servers: [{ url: publicUrl, description: "This server" }] }
}
