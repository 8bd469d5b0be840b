import { randomBytes } from "node:crypto"
import type { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, FiberRef, LogLevel } from "effect"
import { currentRequestFields } from "../platform/logging.js"

/**
 * What the gateway's log lines say about a request: every line written while it is
 * answered carries its `requestId` (the client's `X-Request-Id` when it is a plain
 * token, else one made here), and with LOG_LEVEL=debug each answer is logged
 * (method, path and query, status; the logger redacts secrets in them).
 */
const process = randomBytes(3).toString("hex")
let counter = 0

const clientRequestId = /^[A-Za-z0-9._:-]{1,64}$/

/** Built once (the level does not change while the process runs). */
export const makeRequestLogs = Effect.map(FiberRef.get(FiberRef.currentMinimumLogLevel), (minimum) => {
  const debug = LogLevel.lessThanEqual(minimum, LogLevel.Debug)
  return <E, R>(request: HttpServerRequest.HttpServerRequest, answer: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => {
    const given = request.headers["x-request-id"]
    const requestId = given !== undefined && clientRequestId.test(given) ? given : `${process}-${(++counter).toString(36)}`
    const logged = debug ? Effect.tap(answer, (response) => Effect.logDebug(`${request.method} ${request.url} ${response.status}`)) : answer
    // the request's own fiber: set, not restored afterwards
    return Effect.zipRight(FiberRef.set(currentRequestFields, { requestId }), logged)
  }
})
