import { Context, Effect, Layer, type Scope } from "effect"
import { classifyAddress } from "./addressPolicy.js"
import { type AllowedOrigin, isAllowedOrigin, outboundAllowFromEnv, type OutboundAllowInvalid } from "./allowList.js"
import type { OutboundError } from "./errors.js"
import { fetchBuffered, openResponse, type Engine } from "./internal/fetchCore.js"
import { makeConnectionPool } from "./internal/pool.js"
import type { OutboundRequest, OutboundResponse, OutboundStreamResponse } from "./request.js"
import { systemResolver, type Resolver } from "./resolver.js"

/** Outbound HTTP for network adapters, webhook delivery and media import: public addresses only. */
export interface OutboundHttpShape {
  readonly fetch: (request: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError>
  readonly stream: (request: OutboundRequest) => Effect.Effect<OutboundStreamResponse, OutboundError, Scope.Scope>
}

export class OutboundHttp extends Context.Tag("platform/OutboundHttp")<OutboundHttp, OutboundHttpShape>() {}

/**
 * Production client; `resolver` replaces DNS (every address is still classified), `allow`
 * lists the operator's OUTBOUND_ALLOW origins (address and port) that count as public.
 */
export const makeOutboundHttp = (options?: { readonly resolver?: Resolver; readonly allow?: ReadonlyArray<AllowedOrigin> }): OutboundHttpShape => {
  const allow = options?.allow ?? []
  const engine: Engine = {
    resolver: options?.resolver ?? systemResolver,
    policy: (address, port) => (allow.length > 0 && isAllowedOrigin(allow, address, port) ? { public: true } : classifyAddress(address)),
    // kept-alive sockets, each pinned to addresses this policy accepted (internal/pool.ts)
    pool: makeConnectionPool()
  }
  return {
    fetch: (request) => fetchBuffered(engine, request),
    stream: (request) => openResponse(engine, request)
  }
}

/** The client of every process: public addresses, plus the origins of OUTBOUND_ALLOW. */
/** The client as the environment configures it (OUTBOUND_ALLOW). */
export const outboundHttpFromEnv: Effect.Effect<OutboundHttpShape, OutboundAllowInvalid> = Effect.map(outboundAllowFromEnv(systemResolver), (allow) => makeOutboundHttp({ allow })).pipe(
  // a ConfigError of a plain string with a default cannot happen; a bad entry stops the process
  Effect.catchTag("ConfigError", (e) => Effect.die(e))
)

export const OutboundHttpLive: Layer.Layer<OutboundHttp, OutboundAllowInvalid> = Layer.effect(OutboundHttp, outboundHttpFromEnv)

export const outboundHttpWithResolver = (resolver: Resolver) =>
  Layer.succeed(OutboundHttp, makeOutboundHttp({ resolver }))
