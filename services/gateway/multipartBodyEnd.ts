import type { IncomingMessage } from "node:http"
import { Readable } from "node:stream"
import { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Deferred, Effect } from "effect"

/** The `boundary` parameter of a multipart Content-Type (quoted or not); undefined when absent. */
export const multipartBoundary = (contentType: string): string | undefined => {
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType)
  return match === null ? undefined : (match[1] ?? match[2])
}

/**
 * Watches a multipart body for its close delimiter (`CRLF--boundary--`, RFC 2046) as the
 * bytes go by, without reading them itself. `ended` settles when the body has ended
 * without it: the platform's parser (multipasta) then never finishes (it ends its parts
 * only at the close delimiter, and reports a body cut off inside a file where nothing
 * listens yet, and a body cut off inside part headers not at all), so the request would
 * wait forever.
 */
const watchCloseDelimiter = (source: IncomingMessage, boundary: string, ended: () => void) => {
  const delimiter = Buffer.from(`\r\n--${boundary}--`, "latin1")
  // the body's first line may be the delimiter itself, without the CRLF before it
  let tail = Buffer.from("\r\n", "latin1")
  let closed = false
  const emit = source.emit.bind(source)
  source.emit = ((event: string | symbol, ...args: Array<unknown>): boolean => {
    if (event === "data" && !closed) {
      const chunk = args[0]
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : (chunk as Buffer)
      const window = Buffer.concat([tail, bytes])
      if (window.includes(delimiter)) closed = true
      else tail = window.subarray(Math.max(0, window.length - (delimiter.length - 1)))
    }
    if (event === "end" && !closed) ended()
    return emit(event, ...args)
  }) as typeof source.emit
}

/**
 * Fails with `unreadable` as soon as the request's multipart body turns out to be
 * unreadable: no boundary in its Content-Type, or a body that ended without the close
 * delimiter. Never completes otherwise. Race it with the request's handling.
 */
export const multipartBodyUnreadable = <E>(unreadable: E): Effect.Effect<never, E, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const boundary = multipartBoundary(request.headers["content-type"] ?? "")
    if (boundary === undefined) return yield* Effect.fail(unreadable)
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    // only the Node server gives the raw body; elsewhere the parser's own end stands
    if (!(source instanceof Readable)) return yield* Effect.never
    const ended = yield* Deferred.make<void>()
    watchCloseDelimiter(source, boundary, () => Deferred.unsafeDone(ended, Effect.void))
    yield* Deferred.await(ended)
    return yield* Effect.fail(unreadable)
  })
