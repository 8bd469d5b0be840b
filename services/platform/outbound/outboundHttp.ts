import { Context, Effect, Layer, type Scope } from "effect"
import { classifyAddress } from "./addressPolicy.js"
import { type AllowedOrigin, isAllowedOrigin, outboundAllowFromEnv, type OutboundAllowInvalid } from "./allowList.js"
import type { OutboundError } from "./errors.js"
import { fetchBuffered, openResponse, type Engine } from "./internal/fetchCore.js"
import { makeConnectionPool } from "./internal/pool.js"
import type { OutboundRequest, OutboundResponse, OutboundStreamResponse } from "./request.js"
import { systemResolver, type Resolver } from "./resolver.js"
import { checkSocketTarget, type SocketTarget, type SocketTargetError } from "./socketTarget.js"

/** Outbound HTTP for network adapters, webhook delivery and media import: public addresses only. */
export interface OutboundHttpShape {
  readonly fetch: (request: OutboundRequest) => Effect.Effect<OutboundResponse, OutboundError>
  readonly stream: (request: OutboundRequest) => Effect.Effect<OutboundStreamResponse, OutboundError, Scope.Scope>
  /** A ws:/wss: address checked like any other (Nostr relays): connect only through its pinned lookup. */
  readonly socketTarget: (url: string) => Effect.Effect<SocketTarget, SocketTargetError>
}

export class OutboundHttp extends Context.Tag("platform/OutboundHttp")<OutboundHttp, OutboundHttpShape>() {}

/**
 * Production client; `resolver` replaces DNS (every address is still classified), `allow`
 * lists the operator's OUTBOUND_ALLOW origins (address and port) that count as public.
 *
 * `keepAlive` reuses connections (internal/pool.ts). Only for calls that are safe to repeat:
 * a server may close an idle socket just as a request is written on it, and a POST that
 * fails that way cannot tell whether it arrived. A webhook attempt is simply tried again; a
 * network publish would become "no answer" (a search, or unconfirmed), so the networks and
 * media import open a connection per request.
 */
export const makeOutboundHttp = (options?: {
  readonly resolver?: Resolver
  readonly allow?: ReadonlyArray<AllowedOrigin>
  readonly keepAlive?: boolean
}): OutboundHttpShape => {
  const allow = options?.allow ?? []
  const engine: Engine = {
    resolver: options?.resolver ?? systemResolver,
    policy: (address, port) => (allow.length > 0 && isAllowedOrigin(allow, address, port) ? { public: true } : classifyAddress(address)),
    // kept-alive sockets, each pinned to addresses this policy accepted (internal/pool.ts)
    ...(options?.keepAlive === true ? { pool: makeConnectionPool() } : {})
  }
  return {
    fetch: (request) => fetchBuffered(engine, request),
    stream: (request) => openResponse(engine, request),
    socketTarget: (url) => checkSocketTarget(engine, url)
  }
}

/** The client as the environment configures it: public addresses, plus the origins of OUTBOUND_ALLOW. */
const clientFromEnv = (keepAlive: boolean): Effect.Effect<OutboundHttpShape, OutboundAllowInvalid> =>
  Effect.map(outboundAllowFromEnv(systemResolver), (allow) => makeOutboundHttp({ allow, keepAlive })).pipe(
    // a ConfigError of a plain string with a default cannot happen; a bad entry stops the process
    Effect.catchTag("ConfigError", (e) => Effect.die(e))
  )

/** A connection per request: network adapters and media import. */
export const outboundHttpFromEnv = clientFromEnv(false)

export const OutboundHttpLive: Layer.Layer<OutboundHttp, OutboundAllowInvalid> = Layer.effect(OutboundHttp, outboundHttpFromEnv)

/** Connections kept alive: webhook delivery, where an attempt may always be repeated. */
export const KeptAliveOutboundHttpLive: Layer.Layer<OutboundHttp, OutboundAllowInvalid> = Layer.effect(OutboundHttp, clientFromEnv(true))

export const outboundHttpWithResolver = (resolver: Resolver) => Layer.succeed(OutboundHttp, makeOutboundHttp({ resolver }))
