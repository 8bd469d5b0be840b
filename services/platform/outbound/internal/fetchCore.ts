import type { IncomingMessage } from "node:http"
import { Effect, type Scope } from "effect"
import { OutboundTimeout, ResponseTooLarge, TooManyRedirects, UnexpectedContentType, type OutboundError } from "../errors.js"
import { outboundDefaults, type OutboundRequest, type OutboundResponse, type OutboundStreamResponse } from "../request.js"
import type { Resolver } from "../resolver.js"
import { checkUrl, type CheckedUrl } from "../targetUrl.js"
import { collectBody, limitBody } from "./body.js"
import { exchange, type Hop } from "./exchange.js"
import { pinTarget, type AddressPolicy, type Deadline } from "./pin.js"
import type { ConnectionPool } from "./pool.js"
import { redirectHop, redirectStatuses } from "./redirects.js"

export interface Engine {
  readonly policy: AddressPolicy
  readonly resolver: Resolver
  /** Keep-alive connections of this client; without it every request opens its own. */
  readonly pool?: ConnectionPool
}

interface Answer {
  readonly checked: CheckedUrl
  readonly response: IncomingMessage
}

/** Every hop runs the full check again: URL rules, resolution, address policy, peer guard. */
const follow = (
  engine: Engine,
  checked: CheckedUrl,
  hop: Hop,
  redirectsLeft: number,
  maxRedirects: number,
  deadline: Deadline
): Effect.Effect<Answer, OutboundError, Scope.Scope> =>
  Effect.gen(function* () {
    const addresses = yield* pinTarget(checked, engine.policy, engine.resolver, deadline)
    const response = yield* exchange(checked, addresses, hop, engine.policy, engine.pool?.agentFor(checked, addresses), deadline)
    const status = response.statusCode ?? 0
    const location = response.headers.location
    if (!redirectStatuses.has(status) || location === undefined) return { checked, response }
    response.destroy()
    if (redirectsLeft === 0) return yield* new TooManyRedirects({ url: checked.url.href, maxRedirects })
    const next = yield* checkUrl(location, checked.url)
    return yield* follow(engine, next, redirectHop(hop, status, checked.url, next.url), redirectsLeft - 1, maxRedirects, deadline)
  })

const contentTypeAccepted = (contentType: string, accepted: ReadonlyArray<string>): boolean => {
  const essence = contentType.split(";")[0]?.trim().toLowerCase() ?? ""
  return accepted.some((entry) => (entry.endsWith("/") ? essence.startsWith(entry) : essence === entry))
}

/** Checks made on the final answer before its body is handed out. */
const checkFinal = (answer: Answer, request: OutboundRequest, maxBytes: number) => {
  const url = answer.checked.url.href
  const { statusCode = 0, headers } = answer.response
  const accepted = request.acceptContentTypes
  const contentType = headers["content-type"] ?? ""
  if (accepted !== undefined && statusCode >= 200 && statusCode < 300 && !contentTypeAccepted(contentType, accepted)) {
    return Effect.fail(new UnexpectedContentType({ url, contentType }))
  }
  // Refuse early when the server announces too much; the stream limit catches liars.
  if (Number(headers["content-length"] ?? 0) > maxBytes) return Effect.fail(new ResponseTooLarge({ url, maxBytes }))
  return Effect.void
}

export const openResponse = (engine: Engine, request: OutboundRequest): Effect.Effect<OutboundStreamResponse, OutboundError, Scope.Scope> =>
  Effect.gen(function* () {
    const timeoutMs = request.timeoutMs ?? outboundDefaults.timeoutMs
    const maxBytes = request.maxBytes ?? outboundDefaults.maxBytes
    const maxRedirects = request.maxRedirects ?? outboundDefaults.maxRedirects
    const timedOut = () => new OutboundTimeout({ url: request.url, timeoutMs })
    const hop: Hop = {
      method: request.method ?? outboundDefaults.method,
      // Host always names the checked URL.
      headers: Object.fromEntries(Object.entries(request.headers ?? {}).filter(([name]) => name.toLowerCase() !== "host")),
      body: typeof request.body === "string" ? Buffer.from(request.body) : request.body
    }
    // timers in each waiting step, not Effect.timeout: a forked fiber per request costs more than the request
    const deadline: Deadline = { at: Date.now() + timeoutMs, error: timedOut }
    const answer = yield* checkUrl(request.url).pipe(Effect.flatMap((checked) => follow(engine, checked, hop, maxRedirects, maxRedirects, deadline)))
    yield* checkFinal(answer, request, maxBytes)
    const url = answer.checked.url.href
    const body = limitBody(answer.response, url, maxBytes)
    // Errors reach consumers through pipeline()/iteration; this only keeps an unread body from crashing the process.
    body.on("error", () => {})
    const bodyTimer = setTimeout(
      () => {
        if (!body.readableEnded) body.destroy(timedOut())
      },
      Math.max(0, deadline.at - Date.now())
    )
    yield* Effect.addFinalizer(() => Effect.sync(() => clearTimeout(bodyTimer)))
    return { status: answer.response.statusCode ?? 0, headers: answer.response.headers, url, body }
  })

export const fetchBuffered = (engine: Engine, request: OutboundRequest): Effect.Effect<OutboundResponse, OutboundError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const opened = yield* openResponse(engine, request)
      return { ...opened, body: yield* collectBody(opened.body, opened.url) }
    })
  )
