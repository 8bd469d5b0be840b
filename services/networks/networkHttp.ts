import { Effect, Either, Option, Schema } from "effect"
import type { OutboundHttpShape } from "../platform/outbound/outboundHttp.js"
import type { OutboundRequest, OutboundResponse } from "../platform/outbound/request.js"
import { type NetworkAnswer, PublishAnswer } from "./adapter.js"
import { tracingEnabled, withSpan } from "../platform/tracing.js"
import { callAttributes, recordedCall } from "./networkCalls.js"

/**
 * What every adapter shares when it talks HTTP to a network: one call that never fails
 * (the answer or why none came), JSON bodies decoded with a Schema, Retry-After, and the
 * transport half of `classify` (what a failure without a response means for a publish).
 */

/** Network answers are small JSON documents: 2 MB is plenty, a 50 MB body is cut off (no answer). */
export const NETWORK_MAX_BYTES = 2 * 1024 * 1024
/** One network call's deadline; the publisher's PUBLISH_TIMEOUT_MS bounds the whole attempt. */
export const NETWORK_TIMEOUT_MS = 30_000

/**
 * Calls a network: the response whatever its status, or the transport failure. Never fails.
 * With tracing on, each call is a `network.call` span under the attempt's (method, host,
 * the path masked as in the attempt timeline, the status), so a trace shows what the
 * timeline shows.
 */
export const call = (outbound: OutboundHttpShape, request: OutboundRequest): Effect.Effect<NetworkAnswer> =>
  recordedCall(
    request,
    outbound.fetch({ maxBytes: NETWORK_MAX_BYTES, timeoutMs: NETWORK_TIMEOUT_MS, maxRedirects: 0, ...request }).pipe(
      Effect.map((response): NetworkAnswer => ({ _tag: "Response", response })),
      Effect.catchAll((error) => Effect.succeed<NetworkAnswer>({ _tag: "Failed", error }))
    )
  ).pipe(
    Effect.tap((answer) =>
      tracingEnabled()
        ? Effect.annotateCurrentSpan(
            answer._tag === "Response" ? { "http.response.status_code": answer.response.status } : { "error.type": answer.error._tag }
          )
        : Effect.void
    ),
    // the attributes parse the URL: only when a span is made
    (effect) => (tracingEnabled() ? withSpan("network.call", { kind: "client", attributes: callAttributes(request) })(effect) : effect)
  )

/** `Authorization: Bearer …` and JSON headers. */
export const bearerJson = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
  "content-type": "application/json",
  accept: "application/json"
})

/** The body parsed as JSON, when it is JSON. */
export const jsonOf = (response: OutboundResponse): Option.Option<unknown> =>
  Either.getRight(Either.try(() => JSON.parse(response.body.toString("utf8")) as unknown))

/** The body decoded with `schema`; None for HTML, garbage or another shape. */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, response: OutboundResponse): Option.Option<A> =>
  Option.flatMap(jsonOf(response), (json) => Schema.decodeUnknownOption(schema)(json))

export const isSuccess = (response: OutboundResponse) => response.status >= 200 && response.status < 300

/** Retry-After (seconds or an HTTP date) in ms; `fallbackMs` when absent or unreadable; at least 1 s. */
export const retryAfterMs = (response: OutboundResponse, fallbackMs = 60_000, now = Date.now()): number => {
  const header = response.headers["retry-after"]
  const text = Array.isArray(header) ? header[0] : header
  if (text === undefined) return fallbackMs
  const seconds = Number(text.trim())
  if (Number.isFinite(seconds) && seconds >= 0) return Math.max(1000, Math.ceil(seconds * 1000))
  const date = Date.parse(text)
  return Number.isNaN(date) ? fallbackMs : Math.max(1000, date - now)
}

/** A short, printable excerpt of a body for messages (never the whole of it, never binary). */
export const excerpt = (response: OutboundResponse, max = 200): string => {
  const text = response.body
    .subarray(0, max * 4)
    .toString("utf8")
    .replace(/\s+/g, " ")
    .trim()
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/**
 * A publish call that got no response: whether anything can have reached the network.
 * Refused before connecting, a name that does not resolve, a refused private address or
 * a bad URL: nothing left (safe to send again, or a plain error). A reset after connecting,
 * a deadline or a body too large: the post may be live (no answer → search).
 */
export const transportAnswer = (networkName: string, error: Extract<NetworkAnswer, { _tag: "Failed" }>["error"]): PublishAnswer => {
  switch (error._tag) {
    case "ConnectionFailed":
      return error.afterConnect === true
        ? PublishAnswer.NoAnswer({ reason: `the connection to ${networkName} broke before its answer: ${error.reason}` })
        : PublishAnswer.FailedBeforeSending({ reason: `could not connect to ${networkName}: ${error.reason}` })
    case "ForbiddenAddress":
      return PublishAnswer.Rejected({
        message: `${networkName} is at a private or local address (${error.address ?? error.url}), which this server does not call.`,
        fix: "Ask the operator to list the network's host:port in OUTBOUND_ALLOW, or reconnect the channel with a public address."
      })
    case "BadUrl":
      return PublishAnswer.Rejected({
        message: `The address of ${networkName} is not usable: ${error.reason}.`,
        fix: "Reconnect the channel with the network's https address."
      })
    case "UnexpectedContentType":
      return PublishAnswer.NoAnswer({ reason: `${networkName} answered ${error.contentType} instead of JSON` })
    case "OutboundTimeout":
      return PublishAnswer.NoAnswer({ reason: `${networkName} did not answer within ${error.timeoutMs} ms` })
    case "ResponseTooLarge":
      return PublishAnswer.NoAnswer({ reason: `${networkName} answered with more than ${error.maxBytes} bytes` })
    case "TooManyRedirects":
      return PublishAnswer.NoAnswer({ reason: `${networkName} redirected too often` })
  }
}

/**
 * The status half of `classify` that every network shares: 429 → rate limited; 5xx, a
 * redirect or a 2xx the adapter could not read → no answer (the post may be live: search);
 * 401/403 → rejected with "reconnect". Other 4xx are each network's own (its error body);
 * `reject` turns them into a message and fix.
 */
export const statusAnswer = (
  networkName: string,
  response: OutboundResponse,
  reject: (response: OutboundResponse) => { readonly message: string; readonly fix: string }
): PublishAnswer => {
  if (response.status === 429) return PublishAnswer.RateLimited({ retryAfterMs: retryAfterMs(response) })
  if (response.status >= 500 || response.status < 200) {
    return PublishAnswer.NoAnswer({ reason: `${networkName} answered ${response.status}: ${excerpt(response)}` })
  }
  if (response.status >= 300 && response.status < 400) {
    return PublishAnswer.NoAnswer({ reason: `${networkName} answered a redirect (${response.status}) to a publish` })
  }
  if (response.status >= 200 && response.status < 300) {
    return PublishAnswer.NoAnswer({ reason: `${networkName} answered ${response.status} without a post id: ${excerpt(response)}` })
  }
  if (response.status === 401) {
    return PublishAnswer.Rejected({
      message: `${networkName} no longer accepts this channel's sign-in (${excerpt(response, 120)}).`,
      fix: "Reconnect the channel, then retry the post."
    })
  }
  return PublishAnswer.Rejected(reject(response))
}

/** A multipart/form-data body (media uploads): text fields and files, in order. */
export const multipart = (
  parts: ReadonlyArray<
    | { readonly name: string; readonly value: string }
    | { readonly name: string; readonly filename: string; readonly mime: string; readonly bytes: Buffer }
  >
): { readonly body: Buffer; readonly contentType: string } => {
  const boundary = `----post-scheduler-${crypto.randomUUID()}`
  const quote = (s: string) => s.replace(/[\r\n"]/g, "_")
  const chunks: Array<Buffer> = []
  for (const part of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n`))
    if ("bytes" in part) {
      chunks.push(
        Buffer.from(
          `Content-Disposition: form-data; name="${quote(part.name)}"; filename="${quote(part.filename)}"\r\nContent-Type: ${part.mime || "application/octet-stream"}\r\n\r\n`
        )
      )
      chunks.push(part.bytes)
    } else {
      chunks.push(Buffer.from(`Content-Disposition: form-data; name="${quote(part.name)}"\r\n\r\n${part.value}`))
    }
    chunks.push(Buffer.from("\r\n"))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

/** Text as networks echo it back, for comparing with what was sent: whitespace runs are one space. */
export const sameText = (a: string, b: string) => a.replace(/\s+/g, " ").trim() === b.replace(/\s+/g, " ").trim()

/** The origin and path of a base address without a trailing slash (`https://host/base`). */
export const trimBase = (url: string) => url.replace(/\/+$/, "")

/** A 429: the wait the network's body names (seconds), else its Retry-After. */
export const rateLimitedFor = (response: OutboundResponse, bodySeconds: Option.Option<number>) =>
  PublishAnswer.RateLimited({
    retryAfterMs: Option.match(bodySeconds, { onNone: () => retryAfterMs(response), onSome: (s) => Math.max(1000, Math.ceil(s * 1000)) })
  })
