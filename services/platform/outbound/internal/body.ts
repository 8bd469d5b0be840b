import type { IncomingMessage } from "node:http"
import { Transform, type Readable } from "node:stream"
import { Effect } from "effect"
import { ConnectionFailed, isOutboundError, ResponseTooLarge, type OutboundError } from "../errors.js"

/** The response body, failing with ResponseTooLarge the moment more than maxBytes arrive. */
export const limitBody = (response: IncomingMessage, url: string, maxBytes: number): Readable => {
  let received = 0
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length
      if (received > maxBytes) done(new ResponseTooLarge({ url, maxBytes }))
      else done(null, chunk)
    }
  })
  response.on("error", (e) => limited.destroy(new ConnectionFailed({ url, reason: e.message })))
  response.on("close", () => {
    if (!response.complete) limited.destroy(new ConnectionFailed({ url, reason: "connection closed before the body ended" }))
  })
  limited.on("close", () => response.destroy())
  response.pipe(limited)
  return limited
}

export const collectBody = (body: Readable, url: string): Effect.Effect<Buffer, OutboundError> =>
  Effect.async((resume) => {
    const chunks: Array<Buffer> = []
    body.on("data", (chunk: Buffer) => chunks.push(chunk))
    body.once("end", () => resume(Effect.succeed(Buffer.concat(chunks))))
    body.once("error", (e) => resume(Effect.fail(isOutboundError(e) ? e : new ConnectionFailed({ url, reason: e.message }))))
    return Effect.sync(() => body.destroy())
  })
