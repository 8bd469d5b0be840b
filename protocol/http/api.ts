import { HttpApi, OpenApi } from "@effect/platform"
import { AccountApi } from "./account.js"
import { InvalidRequest, PayloadTooLarge, ServerError, ServiceUnavailable } from "./errors.js"
import { MediaApi } from "./media.js"
import { NetworksApi } from "./networks.js"
import { PostsApi } from "./posts.js"
import { exportLineJsonSchema, PostsBulkApi } from "./postsBulk.js"
import { SlotsApi } from "./slots.js"
import { AnalyticsApi } from "./analytics.js"
import { EventsApi } from "./events.js"

type Json = { [key: string]: unknown }
const isJson = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * HttpApi lists its own decode error (`{issues, message, _tag}`) under 400 on every
 * endpoint. This service never sends that body: a decode failure is answered as
 * InvalidRequest or InvalidId, which every endpoint with input declares itself. So the
 * library's entry is left out of the contract (the only change to the generated
 * document; `/public/v1/openapi.json` and `/public/v1/docs` both show the result).
 */
const withoutLibraryDecodeError = (spec: Json): Json => {
  const decodeRef = "#/components/schemas/HttpApiDecodeError"
  const isDecodeRef = (u: unknown) => isJson(u) && u["$ref"] === decodeRef
  for (const item of Object.values(isJson(spec["paths"]) ? spec["paths"] : {})) {
    for (const operation of Object.values(isJson(item) ? item : {})) {
      const responses = isJson(operation) && isJson(operation["responses"]) ? operation["responses"] : {}
      const bad = responses["400"]
      const content = isJson(bad) && isJson(bad["content"]) ? bad["content"]["application/json"] : undefined
      if (!isJson(content)) continue
      const schema = content["schema"]
      if (isDecodeRef(schema)) delete responses["400"]
      else if (isJson(schema) && Array.isArray(schema["anyOf"])) {
        const rest = schema["anyOf"].filter((s) => !isDecodeRef(s))
        content["schema"] = rest.length === 1 ? rest[0] : { ...schema, anyOf: rest }
      }
    }
  }
  const schemas = isJson(spec["components"]) && isJson(spec["components"]["schemas"]) ? spec["components"]["schemas"] : {}
  delete schemas["HttpApiDecodeError"]
  delete schemas["Issue"]
  delete schemas["PropertyKey"]
  return spec
}

/**
 * Effect marks "any value" schemas with `$id: "/schemas/unknown"`, once per use: one id
 * for many schemas is invalid JSON Schema (a validator refuses the document). An
 * unconstrained schema needs no id, so the marks are dropped.
 */
const withoutRepeatedIds = (node: unknown): void => {
  if (Array.isArray(node)) {
    node.forEach(withoutRepeatedIds)
    return
  }
  if (!isJson(node)) return
  if (typeof node["$id"] === "string" && node["$id"].startsWith("/schemas/")) delete node["$id"]
  Object.values(node).forEach(withoutRepeatedIds)
}

/**
 * Response headers HttpApi cannot declare: `Retry-After` on every 429 (spec: Limits rule
 * 1) and 503 (docs/operations.md, "When Postgres goes away"), and `Idempotent-Replayed` on a replayed POST /posts (spec: POST /posts rule 4); and
 * the JSON lines of GET /posts/export beside its CSV (HttpApi declares one content type a status).
 */
const withResponseHeaders = (spec: Json): void => {
  for (const [path, item] of Object.entries(isJson(spec["paths"]) ? spec["paths"] : {})) {
    for (const [method, operation] of Object.entries(isJson(item) ? item : {})) {
      const responses = isJson(operation) && isJson(operation["responses"]) ? operation["responses"] : {}
      const tooMany = responses["429"]
      if (isJson(tooMany)) {
        tooMany["headers"] = {
          "Retry-After": { description: "Seconds until the window restarts", required: true, schema: { type: "integer", minimum: 0 } }
        }
      }
      const unavailable = responses["503"]
      if (isJson(unavailable)) {
        unavailable["headers"] = {
          "Retry-After": { description: "Seconds to wait before sending the request again", required: true, schema: { type: "integer", minimum: 0 } }
        }
      }
      const ok = responses["200"]
      if (path === "/public/v1/posts/export" && method === "get" && isJson(ok) && isJson(ok["content"])) {
        ok["content"]["application/x-ndjson"] = { schema: { ...exportLineJsonSchema, description: "format=jsonl: one ExportLine a line" } }
      }
      if (path === "/public/v1/posts" && method === "post" && isJson(ok)) {
        ok["headers"] = {
          "Idempotent-Replayed": {
            description: "`true` when this is the kept answer of an earlier request with the same Idempotency-Key and body; absent otherwise",
            schema: { type: "string", enum: ["true"] }
          }
        }
      }
    }
  }
}

/**
 * The public API under /public/v1 (each group applies Authentication itself: an
 * API-level middleware would also guard /healthz and the other raw routes): the single
 * HttpApi every handler, the OpenAPI document, the docs page and the typed test client
 * are built from. Every endpoint declares the error cases it can answer; every one can
 * answer InvalidRequest from the edge checks (two Authorization headers, U+0000, a body
 * nested too deep: services/gateway/requestGuard.ts), 413, 500 and 503 (the database briefly
 * out of reach, with Retry-After).
 */
export class PublicApi extends HttpApi.make("public")
  .add(AccountApi)
  .add(NetworksApi)
  .add(MediaApi)
  .add(PostsApi)
  .add(PostsBulkApi)
  .add(SlotsApi)
  .add(AnalyticsApi)
  .add(EventsApi)
  .addError(InvalidRequest)
  .addError(PayloadTooLarge)
  .addError(ServerError)
  .addError(ServiceUnavailable)
  .prefix("/public/v1")
  .annotate(OpenApi.Title, "Social Post Scheduling Service: Public API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(OpenApi.Description, "Schedule posts to many social network accounts at once. Send the key in the Authorization header.")
  .annotate(OpenApi.Transform, (spec) => {
    withoutRepeatedIds(spec)
    withResponseHeaders(spec)
    return withoutLibraryDecodeError(spec)
  }) {}
