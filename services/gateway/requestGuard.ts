import { HttpMethod, type HttpServerRequest } from "@effect/platform"
import { Effect, Predicate } from "effect"
import { type ApiError, Errors } from "../../domain/errors.js"
import { fieldName, findNul, MAX_JSON_DEPTH, nestsDeeperThan, pathHasNul, queryParameterWithNul } from "../../domain/requests.js"

/**
 * The edge checks every request passes before a route reads it (domain/requests.ts):
 * one Authorization header, no U+0000 in the path, query or body, and a body nested no
 * deeper than MAX_JSON_DEPTH. Each refusal is the catalog's 400 naming the field.
 */

/** Node keeps one of two Authorization headers silently; the raw header list shows both. */
const authorizationCount = (request: HttpServerRequest.HttpServerRequest): number => {
  const source = request.source
  if (!Predicate.hasProperty(source, "rawHeaders") || !Array.isArray(source.rawHeaders)) return 1
  const raw: ReadonlyArray<unknown> = source.rawHeaders
  let count = 0
  for (let i = 0; i < raw.length; i += 2) if (typeof raw[i] === "string" && (raw[i] as string).toLowerCase() === "authorization") count++
  return count
}

/** Headers, path and query: checked without reading the body (also for POST /upload). */
export const checkRequestHead = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<void, ApiError> => {
  const authorizations = authorizationCount(request)
  if (authorizations > 1) return Effect.fail(Errors.repeatedAuthorization(authorizations))
  // U+0000 reaches the path or query only as %00 (Node refuses a raw one): without any
  // escape there is nothing to decode (the common case, checked per request)
  if (!request.url.includes("%") && !request.url.includes("\u0000")) return Effect.void
  const [path = "", query = ""] = request.url.split(/\?(.*)/s, 2)
  if (pathHasNul(path)) return Effect.fail(Errors.nulCharacter("The path"))
  const parameter = queryParameterWithNul(new URLSearchParams(query))
  return parameter === null ? Effect.void : Effect.fail(Errors.nulCharacter(parameter))
}

const ROOT = "The request body"

/**
 * A JSON body: its depth on the raw text first, then U+0000 in its texts and keys.
 * The text is cached by the request, so the route reads the same bytes again. A body
 * that is not JSON is left to the route (400 not valid JSON, or its own reading).
 */
export const checkRequestBody = Effect.fnUntraced(function* (request: HttpServerRequest.HttpServerRequest) {
  if (!HttpMethod.hasBody(request.method)) return
  const contentType = (request.headers["content-type"] ?? "").toLowerCase()
  if (contentType.includes("multipart/form-data")) return
  const text = yield* request.text
  if (text === "") return
  if (contentType.includes("application/x-www-form-urlencoded")) {
    const parameter = queryParameterWithNul(new URLSearchParams(text))
    if (parameter !== null) return yield* Effect.fail(Errors.nulCharacter(parameter))
    return
  }
  // a file of posts (POST /posts/import) is no one JSON document: its reader checks each line and field itself
  if (contentType.includes("text/csv") || contentType.includes("application/x-ndjson")) {
    if (text.includes("\u0000") || text.includes("\\u0000")) return yield* Effect.fail(Errors.nulCharacter(ROOT))
    return
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return yield* Effect.fail(Errors.nestedTooDeep(MAX_JSON_DEPTH))
  // JSON carries U+0000 only as the escape \u0000 (a raw one is not JSON): without it, no
  // second parse of a body the route parses anyway
  if (!text.includes("\\u0000")) return
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return
  }
  const found = findNul(body)
  if (found === null) return
  const field = fieldName(found.path, ROOT)
  return yield* Effect.fail(found.inKey ? Errors.nulCharacterInKey(field) : Errors.nulCharacter(field))
})
