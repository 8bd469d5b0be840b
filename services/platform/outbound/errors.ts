import { Data } from "effect"

/** The target (a URL host, a resolved name, or the socket's peer) is not a public address. */
export class ForbiddenAddress extends Data.TaggedError("ForbiddenAddress")<{
  readonly url: string
  readonly address?: string
  readonly reason: string
}> {}

/** Unparseable, a scheme other than http/https, userinfo, or a Location that cannot be followed. */
export class BadUrl extends Data.TaggedError("BadUrl")<{
  readonly url: string
  readonly reason: string
}> {}

export class TooManyRedirects extends Data.TaggedError("TooManyRedirects")<{
  readonly url: string
  readonly maxRedirects: number
}> {}

export class ResponseTooLarge extends Data.TaggedError("ResponseTooLarge")<{
  readonly url: string
  readonly maxBytes: number
}> {}

/** The total deadline (every hop, name resolution and the body read) ran out. */
export class OutboundTimeout extends Data.TaggedError("OutboundTimeout")<{
  readonly url: string
  readonly timeoutMs: number
}> {}

export class ConnectionFailed extends Data.TaggedError("ConnectionFailed")<{
  readonly url: string
  readonly reason: string
  /**
   * True when the socket had connected: the request may have reached the server (a reset
   * after a publish is "no answer", not "nothing sent"). Absent or false: nothing left.
   */
  readonly afterConnect?: boolean
}> {}

/** The final response's Content-Type is not one the caller accepts (a page instead of a file). */
export class UnexpectedContentType extends Data.TaggedError("UnexpectedContentType")<{
  readonly url: string
  readonly contentType: string
}> {}

export type OutboundError =
  | ForbiddenAddress
  | BadUrl
  | TooManyRedirects
  | ResponseTooLarge
  | OutboundTimeout
  | ConnectionFailed
  | UnexpectedContentType

export const isOutboundError = (u: unknown): u is OutboundError =>
  u instanceof ForbiddenAddress ||
  u instanceof BadUrl ||
  u instanceof TooManyRedirects ||
  u instanceof ResponseTooLarge ||
  u instanceof OutboundTimeout ||
  u instanceof ConnectionFailed ||
  u instanceof UnexpectedContentType
