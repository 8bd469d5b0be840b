import type { IncomingHttpHeaders } from "node:http"
import type { Readable } from "node:stream"

export type OutboundMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE"

export interface OutboundRequest {
  readonly url: string
  readonly method?: OutboundMethod
  /** A `host` header is dropped: Host always names the checked URL. */
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: Buffer | string
  /** One deadline for everything: resolution, every hop, and reading the body. */
  readonly timeoutMs?: number
  /** Body cap in bytes; the transfer is aborted as soon as it is exceeded. */
  readonly maxBytes?: number
  readonly maxRedirects?: number
  /**
   * Content types a 2xx final response may have ("image/png", or "image/" for a family);
   * anything else fails before the body is read. Omitted: any type.
   */
  readonly acceptContentTypes?: ReadonlyArray<string>
}

export const outboundDefaults = {
  method: "GET",
  timeoutMs: 15_000, // the webhook delivery timeout
  maxBytes: 1024 * 1024,
  maxRedirects: 5
} as const

interface ResponseHead {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  /** The URL that answered, after redirects. */
  readonly url: string
}

export interface OutboundResponse extends ResponseHead {
  readonly body: Buffer
}

/**
 * The body still enforces maxBytes and the deadline: it errors with ResponseTooLarge or
 * OutboundTimeout (pipeline() rejects with them). The socket is closed when the scope closes.
 */
export interface OutboundStreamResponse extends ResponseHead {
  readonly body: Readable
}
