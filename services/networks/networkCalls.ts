import { Effect, FiberRef, Option, Ref } from "effect"
import type { OutboundRequest } from "../platform/outbound/request.js"
import type { NetworkAnswer } from "./adapter.js"

/**
 * What an attempt asked of its network, call by call, for the attempt timeline
 * (GET /public/v1/posts/{id}/attempts): method, the path with anything that may be secret
 * masked, the status, the network's error text as received (its known secrets removed)
 * and how long it took. Recorded by `call` (networkHttp.ts) into the log the publisher
 * puts on the fiber; nothing is recorded where no log is set.
 */
export interface NetworkCall {
  readonly method: string
  readonly host: string
  readonly path: string
  readonly status: number | null
  readonly error: string | null
  readonly startedAt: string
  readonly durationMs: number
}

export const NetworkCallLog = FiberRef.unsafeMake<Option.Option<Ref.Ref<ReadonlyArray<NetworkCall>>>>(Option.none())

/** How much of a refusal's body is kept. */
const ERROR_TEXT_MAX = 300

/**
 * A path segment is shown when it is a plain word or number (`statuses`, `media_publish`,
 * `17841400008460056`); anything else (a bot token in the path, a URN, an upload session
 * id) is masked, so a token can never be shown.
 */
const shownSegment = (segment: string) => (/^[A-Za-z0-9._-]{0,40}$/.test(segment) && !/^bot\d/.test(segment) ? segment : "{…}")

export const maskedPath = (url: URL) => url.pathname.split("/").map(shownSegment).join("/")

/** The values a request carries that must never be shown: its bearer token, tokens and secrets in its form body. */
const secretsOf = (request: OutboundRequest): ReadonlyArray<string> => {
  const found: Array<string> = []
  const auth = request.headers?.["authorization"] ?? request.headers?.["Authorization"]
  if (auth !== undefined) found.push(auth, auth.replace(/^(Bearer|Basic|Bot)\s+/i, ""))
  const body = typeof request.body === "string" ? request.body : ""
  for (const [key, value] of new URLSearchParams(body.includes("=") && !body.startsWith("{") ? body : "")) {
    if (/token|secret|password|code/i.test(key) && value.length > 0) found.push(value)
  }
  return found.filter((s) => s.length >= 6)
}

const scrub = (text: string, secrets: ReadonlyArray<string>) => secrets.reduce((t, s) => t.split(s).join("[redacted]"), text)

const errorTextOf = (answer: NetworkAnswer, secrets: ReadonlyArray<string>): string | null => {
  if (answer._tag === "Failed") return `${answer.error._tag}${"reason" in answer.error ? `: ${String(answer.error.reason)}` : ""}`
  const { response } = answer
  if (response.status >= 200 && response.status < 300) return null
  const text = response.body
    .subarray(0, ERROR_TEXT_MAX * 4)
    .toString("utf8")
    .replace(/\s+/g, " ")
    .trim()
  return scrub(text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text, secrets)
}

/** A network call's span attributes: what the attempt timeline shows of it, never a token. */
export const callAttributes = (request: OutboundRequest): Record<string, string> => {
  const url = URL.canParse(request.url) ? new URL(request.url) : null
  return { "http.request.method": request.method ?? "GET", "server.address": url?.host ?? "", "url.path": url === null ? "" : maskedPath(url) }
}

/** Runs one network call, adding it to the fiber's call log when there is one (also when interrupted at a deadline). */
export const recordedCall = (request: OutboundRequest, run: Effect.Effect<NetworkAnswer>): Effect.Effect<NetworkAnswer> =>
  Effect.flatMap(FiberRef.get(NetworkCallLog), (log) => {
    if (Option.isNone(log)) return run
    const started = Date.now()
    const url = URL.canParse(request.url) ? new URL(request.url) : null
    const entry = (status: number | null, error: string | null): NetworkCall => ({
      method: request.method ?? "GET",
      host: url?.host ?? "",
      path: url === null ? "" : maskedPath(url),
      status,
      error,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started
    })
    const add = (call: NetworkCall) => Ref.update(log.value, (calls) => [...calls, call])
    return run.pipe(
      Effect.tap((answer) => add(entry(answer._tag === "Response" ? answer.response.status : null, errorTextOf(answer, secretsOf(request))))),
      Effect.onInterrupt(() => add(entry(null, "no answer before the publisher's deadline")))
    )
  })

/**
 * A call that is not one HTTP request (a WebSocket session with a Nostr relay), recorded as
 * `method` on `url` with the status and error `describe` reads from its result.
 */
export const recordedExchange = <A>(
  method: string,
  url: string,
  run: Effect.Effect<A>,
  describe: (result: A) => { readonly status: number | null; readonly error: string | null }
): Effect.Effect<A> =>
  Effect.flatMap(FiberRef.get(NetworkCallLog), (log) => {
    if (Option.isNone(log)) return run
    const started = Date.now()
    const parsed = URL.canParse(url) ? new URL(url) : null
    const add = (status: number | null, error: string | null) =>
      Ref.update(log.value, (calls) => [
        ...calls,
        {
          method,
          host: parsed?.host ?? "",
          path: parsed === null ? "" : maskedPath(parsed),
          status,
          error: error === null ? null : error.slice(0, ERROR_TEXT_MAX),
          startedAt: new Date(started).toISOString(),
          durationMs: Date.now() - started
        }
      ])
    return run.pipe(
      Effect.tap((result) => {
        const { error, status } = describe(result)
        return add(status, error)
      }),
      Effect.onInterrupt(() => add(null, "no answer before the publisher's deadline"))
    )
  })
