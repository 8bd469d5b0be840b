import { Either, ParseResult, Schema } from "effect"
import { ErrorBody } from "../../protocol/http/errors.js"

/** An HTTP answer as a test reads it. `json` is the body parsed, not yet checked: decode it. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  /** The body's bytes as text, for tests that check the bytes themselves. */
  readonly text: string
  /** The body parsed as JSON; undefined when empty or not JSON. */
  readonly json: unknown
}

/** What `decoded` reads of an answer (also answers a test reads itself, e.g. over a raw socket). */
export interface Body {
  readonly status: number
  readonly json: unknown
  readonly text?: string
}

const shown = (text: string) => (text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text)

/** `exact: false` reads only what the schema names of a larger document (e.g. the OpenAPI document). */
export interface DecodeOptions {
  readonly exact?: boolean
}

/**
 * A value decoded with a schema of protocol/ (or the test's own, for a body protocol/
 * does not describe). A value the schema refuses fails the test with the decode error,
 * so a test reads only fields the contract has, with their types. Properties the schema
 * does not name fail it too: an answer carrying more than its contract is a finding.
 */
export const decode = <A, I>(schema: Schema.Schema<A, I, never>, value: unknown, what = "value", options: DecodeOptions = {}): A => {
  const result = Schema.decodeUnknownEither(schema, { onExcessProperty: options.exact === false ? "ignore" : "error", errors: "all" })(value)
  if (Either.isLeft(result)) {
    throw new Error(`${what} does not match its schema:\n${ParseResult.TreeFormatter.formatErrorSync(result.left)}`)
  }
  return result.right
}

/** The answer's body decoded with `schema` (see `decode`); the failure shows the status and the body. */
export const decoded = <A, I>(answer: Body, schema: Schema.Schema<A, I, never>, options: DecodeOptions = {}): A => {
  try {
    return decode(schema, answer.json, `The ${answer.status} answer`, options)
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nbody: ${shown(answer.text ?? JSON.stringify(answer.json))}`)
  }
}

/** The spec's error body (protocol/http/errors.ts), for tests that check an error answer. */
export const errorOf = (answer: Body) => decoded(answer, ErrorBody)

/** A fetch Response read as an Answer (for requests the client does not make: forms, raw bodies). */
export const answerFrom = async (res: Response): Promise<Answer> => {
  const text = await res.text()
  let json: unknown
  try {
    json = text === "" ? undefined : JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, headers: res.headers, text, json }
}

/** A client as a script would be: fetch with the key in Authorization. */
export const client = (baseUrl: string, key?: string) => {
  const request = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(key !== undefined ? { authorization: key } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {})
    })
    return answerFrom(res)
  }
  return {
    get: (path: string, headers?: Record<string, string>) => request("GET", path, undefined, headers),
    post: (path: string, body?: unknown, headers?: Record<string, string>) => request("POST", path, body, headers),
    put: (path: string, body?: unknown, headers?: Record<string, string>) => request("PUT", path, body, headers),
    del: (path: string, headers?: Record<string, string>) => request("DELETE", path, undefined, headers),
    request
  }
}

export type Client = ReturnType<typeof client>
