import type { Effect, Scope } from "effect"
import { classifyAddress } from "./addressPolicy.js"
import type { OutboundError } from "./errors.js"
import { fetchBuffered, openResponse, type Engine } from "./internal/fetchCore.js"
import type { OutboundRequest, OutboundResponse, OutboundStreamResponse } from "./request.js"
import { systemResolver, type Resolver } from "./resolver.js"

/**
 * HTTP(S) over node:http/https that connects only to public addresses (docs/architecture.md, "Rules every part keeps", rule 5).
 * Names are resolved once, every answer is classified, and the socket is pinned to those
 * checked addresses; IP literals are classified after WHATWG parsing. Redirects are followed
 * by hand, each hop checked again. A resolver may be injected; the address policy may not.
 */
export interface SafeFetchOptions {
  readonly resolver?: Resolver
}

const publicOnly = (options: SafeFetchOptions | undefined): Engine => ({
  policy: (address) => classifyAddress(address),
  resolver: options?.resolver ?? systemResolver
})

/** The whole body in memory (at most maxBytes). */
export const safeFetch = (request: OutboundRequest, options?: SafeFetchOptions): Effect.Effect<OutboundResponse, OutboundError> =>
  fetchBuffered(publicOnly(options), request)

/** The body as a Readable for large downloads; still capped and bound by the deadline. */
export const safeFetchStream = (
  request: OutboundRequest,
  options?: SafeFetchOptions
): Effect.Effect<OutboundStreamResponse, OutboundError, Scope.Scope> => openResponse(publicOnly(options), request)
