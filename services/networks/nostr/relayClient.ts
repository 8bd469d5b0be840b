import { Effect, Either, Option, Schema } from "effect"
import WebSocket from "ws"
import type { OutboundHttpShape } from "../../platform/outbound/outboundHttp.js"
import { recordedExchange } from "../networkCalls.js"
import { type NostrEvent, verifiedEvent } from "./nostrEvent.js"

/**
 * One relay over WebSocket (NIP-01), reached only through the outbound client's checked
 * address (`socketTarget`: the URL rules, the address policy, OUTBOUND_ALLOW): a note sent
 * with `["EVENT", …]` and its `["OK", id, accepted, message]`, or a `["REQ", …]` read to
 * its `["EOSE", …]`. A connection per call, closed after it.
 */

/** What one relay said to a note. */
export type RelayVerdict =
  /** OK true, or OK false with NIP-01's `duplicate:` (it already holds this very event). */
  | { readonly _tag: "Accepted"; readonly relay: string }
  /** OK false with the relay's reason (`blocked:`, `invalid:`, `rate-limited:` …). */
  | { readonly _tag: "Refused"; readonly relay: string; readonly reason: string }
  /** The note left (or may have) and no OK came: the relay may hold it. */
  | { readonly _tag: "Silent"; readonly relay: string; readonly reason: string }
  /** Nothing left: the address was refused, the connection or the upgrade failed. */
  | {
      readonly _tag: "NotReached"
      readonly relay: string
      readonly reason: string
      /** The relay is at an address this server does not call (private, loopback). */
      readonly forbidden: boolean
      /** The upgrade was answered 429, with this wait. */
      readonly retryAfterMs: number | null
    }

/** What a query to one relay found: its events (each verified), or why it could not tell. */
export type QueryResult =
  | { readonly _tag: "Events"; readonly relay: string; readonly events: ReadonlyArray<NostrEvent> }
  | { readonly _tag: "Failed"; readonly relay: string; readonly reason: string }

/** Relay messages are small; a larger frame ends the connection. */
const MAX_FRAME_BYTES = 1024 * 1024

const OkMessage = Schema.Tuple(Schema.Literal("OK"), Schema.String, Schema.Boolean, Schema.String)
const EventMessage = Schema.Tuple(Schema.Literal("EVENT"), Schema.String, Schema.Unknown)
const EoseMessage = Schema.Tuple(Schema.Literal("EOSE"), Schema.String)
const ClosedMessage = Schema.Tuple(Schema.Literal("CLOSED"), Schema.String, Schema.String)
export const RelayMessage = Schema.parseJson(Schema.Union(OkMessage, EventMessage, EoseMessage, ClosedMessage))
const decodeMessage = Schema.decodeUnknownOption(RelayMessage)

const textOf = (data: WebSocket.RawData): string =>
  Buffer.isBuffer(data) ? data.toString("utf8") : Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data).toString("utf8")

const retryAfterOf = (header: string | Array<string> | undefined): number => {
  const seconds = Number(Array.isArray(header) ? header[0] : header)
  return Number.isFinite(seconds) && seconds >= 0 ? Math.max(1000, Math.ceil(seconds * 1000)) : 60_000
}

export interface Session {
  /** Sends one message; the session then counts as having sent. */
  readonly send: (message: unknown) => void
  readonly finish: () => void
}

/**
 * Opens the relay and runs `onOpen`; `onMessage` gets each message. Settles with what the
 * callbacks decide, or `onEnd(sent, reason)` when the connection ends first or `timeoutMs` passes.
 */
export const session = <A>(
  outbound: OutboundHttpShape,
  relay: string,
  timeoutMs: number,
  handlers: {
    readonly onOpen: (s: Session) => void
    readonly onMessage: (message: typeof RelayMessage.Type, settle: (a: A) => void) => void
    readonly onEnd: (sent: boolean, reason: string) => A
    readonly notReached: (reason: string, forbidden: boolean, retryAfterMs: number | null) => A
  }
): Effect.Effect<A> =>
  Effect.flatMap(Effect.either(outbound.socketTarget(relay)), (target) => {
    if (Either.isLeft(target)) {
      const error = target.left
      return Effect.succeed(
        handlers.notReached(
          `${error._tag}${"reason" in error ? `: ${error.reason}` : ""}`,
          error._tag === "ForbiddenAddress" || error._tag === "BadUrl",
          null
        )
      )
    }
    const { lookup, peerAllowed, url } = target.right
    return Effect.async<A>((resume) => {
      let sent = false
      let done = false
      const socket = new WebSocket(url, {
        lookup,
        handshakeTimeout: timeoutMs,
        maxPayload: MAX_FRAME_BYTES,
        followRedirects: false,
        perMessageDeflate: false
      })
      const settle = (a: A) => {
        if (done) return
        done = true
        clearTimeout(timer)
        socket.removeAllListeners("message")
        socket.on("error", () => {})
        socket.terminate()
        resume(Effect.succeed(a))
      }
      const timer = setTimeout(
        () =>
          settle(
            sent ? handlers.onEnd(true, `no answer within ${timeoutMs} ms`) : handlers.notReached(`no upgrade within ${timeoutMs} ms`, false, null)
          ),
        timeoutMs
      )
      // the socket is pinned to checked addresses; the peer it reached is checked again before a byte of ours
      socket.on("upgrade", (response) => {
        const peer = response.socket.remoteAddress
        if (peer === undefined || !peerAllowed(peer, response.socket.remotePort ?? 0)) {
          settle(handlers.notReached(`the relay's address ${peer ?? "unknown"} is not public`, true, null))
        }
      })
      socket.on("unexpected-response", (_request, response) => {
        const status = response.statusCode ?? 0
        response.resume()
        settle(
          handlers.notReached(
            `the relay answered HTTP ${status} instead of a WebSocket`,
            false,
            status === 429 ? retryAfterOf(response.headers["retry-after"]) : null
          )
        )
      })
      socket.on("open", () => {
        if (done) return
        handlers.onOpen({
          send: (message) => {
            sent = true
            socket.send(JSON.stringify(message))
          },
          finish: () => settle(handlers.onEnd(sent, "finished"))
        })
      })
      socket.on("message", (data) => {
        const message = decodeMessage(textOf(data))
        // NOTICE and anything unreadable are not an answer; the deadline still runs
        if (Option.isSome(message)) handlers.onMessage(message.value, settle)
      })
      socket.on("error", (e) => settle(sent ? handlers.onEnd(true, e.message) : handlers.notReached(e.message, false, null)))
      socket.on("close", (code) =>
        settle(sent ? handlers.onEnd(true, `the relay closed the connection (${code})`) : handlers.notReached(`closed (${code})`, false, null))
      )
      return Effect.sync(() => settle(handlers.onEnd(sent, "interrupted")))
    })
  })

/** Sends a signed note to one relay and waits for its OK (recorded in the attempt's call log as `EVENT`). */
export const sendEvent = (outbound: OutboundHttpShape, relay: string, event: NostrEvent, timeoutMs: number): Effect.Effect<RelayVerdict> =>
  recordedExchange("EVENT", relay, sendOnce(outbound, relay, event, timeoutMs), (verdict) => ({
    status: null,
    error: verdict._tag === "Accepted" ? null : `${verdict._tag}: ${verdict.reason}`
  }))

const sendOnce = (outbound: OutboundHttpShape, relay: string, event: NostrEvent, timeoutMs: number): Effect.Effect<RelayVerdict> =>
  session<RelayVerdict>(outbound, relay, timeoutMs, {
    onOpen: (s) => s.send(["EVENT", event]),
    onMessage: (message, settle) => {
      if (message[0] !== "OK" || message[1] !== event.id) return
      const [, , accepted, text] = message
      settle(
        accepted || text.startsWith("duplicate:")
          ? { _tag: "Accepted", relay }
          : { _tag: "Refused", relay, reason: text === "" ? "refused without a reason" : text }
      )
    },
    onEnd: (sent, reason) => (sent ? { _tag: "Silent", relay, reason } : { _tag: "NotReached", relay, reason, forbidden: false, retryAfterMs: null }),
    notReached: (reason, forbidden, retryAfterMs) => ({ _tag: "NotReached", relay, reason, forbidden, retryAfterMs })
  })

/** A NIP-01 filter (the fields this service asks with). */
export interface Filter {
  readonly ids?: ReadonlyArray<string>
  readonly authors?: ReadonlyArray<string>
  readonly kinds?: ReadonlyArray<number>
  readonly since?: number
  readonly limit?: number
  /** Events whose `e` tags name one of these (replies, reactions, reposts of a note). */
  readonly "#e"?: ReadonlyArray<string>
  /** Events whose `p` tags name one of these (contact lists that follow an account). */
  readonly "#p"?: ReadonlyArray<string>
}

/** Reads one relay's stored events for `filters` (any of them) up to its EOSE; events that do not verify are dropped. */
export const queryRelay = (
  outbound: OutboundHttpShape,
  relay: string,
  filters: ReadonlyArray<Filter>,
  timeoutMs: number
): Effect.Effect<QueryResult> => {
  const subscription = `q${crypto.randomUUID().slice(0, 8)}`
  const events: Array<NostrEvent> = []
  const run = session<QueryResult>(outbound, relay, timeoutMs, {
    onOpen: (s) => s.send(["REQ", subscription, ...filters]),
    onMessage: (message, settle) => {
      if (message[1] !== subscription) return
      if (message[0] === "EVENT") {
        Option.map(verifiedEvent(message[2]), (event) => events.push(event))
      } else if (message[0] === "EOSE") {
        settle({ _tag: "Events", relay, events })
      } else if (message[0] === "CLOSED") {
        settle({ _tag: "Failed", relay, reason: `the relay closed the query: ${message[2]}` })
      }
    },
    onEnd: (_sent, reason) => ({ _tag: "Failed", relay, reason }),
    notReached: (reason) => ({ _tag: "Failed", relay, reason })
  })
  return recordedExchange("REQ", relay, run, (result) => ({ status: null, error: result._tag === "Failed" ? result.reason : null }))
}
