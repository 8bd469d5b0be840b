import { Context, Layer, type Effect, type Scope } from "effect"
import type { OutboundError } from "./errors.js"
import type { OutboundRequest, OutboundResponse, OutboundStreamResponse } from "./request.js"
import type { Resolver } from "./resolver.js"
import { safeFetch, safeFetchStream } from "./safeFetch.js"

/** Outbound HTTP for webhook delivery and media import: public addresses only. */
export interface OutboundHttpShape {
  readonly fetch: (request: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError>
  readonly stream: (request: OutboundRequest) => Effect.Effect<OutboundStreamResponse, OutboundError, Scope.Scope>
}

export class OutboundHttp extends Context.Tag("platform/OutboundHttp")<OutboundHttp, OutboundHttpShape>() {}

/** Production client; `resolver` replaces DNS (every address is still classified). */
export const makeOutboundHttp = (options?: { readonly resolver?: Resolver }): OutboundHttpShape => ({
  fetch: (request) => safeFetch(request, options),
  stream: (request) => safeFetchStream(request, options)
})

export const OutboundHttpLive = Layer.succeed(OutboundHttp, makeOutboundHttp())

export const outboundHttpWithResolver = (resolver: Resolver) =>
  Layer.succeed(OutboundHttp, makeOutboundHttp({ resolver }))
