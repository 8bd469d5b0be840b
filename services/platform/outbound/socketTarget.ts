import type { LookupFunction } from "node:net"
import { Effect } from "effect"
import { BadUrl, type ConnectionFailed, type ForbiddenAddress, OutboundTimeout } from "./errors.js"
import type { Engine } from "./internal/fetchCore.js"
import { pinnedLookup, pinTarget } from "./internal/pin.js"
import { checkUrl } from "./targetUrl.js"

/**
 * A WebSocket address (a Nostr relay) checked by the same rules as an HTTP call: the URL
 * rules, one resolution, every address through the policy (OUTBOUND_ALLOW included). The
 * caller connects with `lookup`, which answers only the checked addresses (no second DNS
 * answer can point elsewhere), and checks the connected peer with `peerAllowed`.
 */
export interface SocketTarget {
  /** The ws:/wss: address as given, parsed. */
  readonly url: URL
  readonly lookup: LookupFunction
  readonly peerAllowed: (address: string, port: number) => boolean
}

export type SocketTargetError = BadUrl | ForbiddenAddress | ConnectionFailed | OutboundTimeout

/** How long resolving the relay's name may take. */
const RESOLVE_TIMEOUT_MS = 10_000

export const checkSocketTarget = (engine: Engine, raw: string): Effect.Effect<SocketTarget, SocketTargetError> =>
  Effect.gen(function* () {
    if (!/^wss?:\/\//i.test(raw)) return yield* new BadUrl({ url: raw, reason: "a WebSocket address starts with ws:// or wss://" })
    // ws: and wss: are http: and https: until the upgrade: the same URL rules and default ports
    const checked = yield* checkUrl(raw.replace(/^ws(s?):/i, "http$1:"))
    const deadline = { at: Date.now() + RESOLVE_TIMEOUT_MS, error: () => new OutboundTimeout({ url: raw, timeoutMs: RESOLVE_TIMEOUT_MS }) }
    const addresses = yield* pinTarget(checked, engine.policy, engine.resolver, deadline)
    return {
      url: new URL(raw),
      lookup: pinnedLookup(addresses),
      peerAllowed: (address: string, port: number) => engine.policy(address, port).public
    }
  })
