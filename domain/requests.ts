import { Schema } from "effect"
import { fieldPath } from "./fieldProblem.js"

/**
 * What every request must respect before any field is read (the edge of the API):
 * bodies nested no deeper than MAX_JSON_DEPTH, no U+0000 in any text (Postgres cannot
 * store it), bounded free-form inputs. Pure: the gateway applies it to each request.
 */

/** Arrays and objects inside each other, the body itself counting as 1. Real bodies are about 6 deep. */
export const MAX_JSON_DEPTH = 32

/** POST /upload-from-url `url`: longer addresses are not links to a file. */
export const MAX_URL_LENGTH = 2048

/** POST /integration-trigger `data`: keys of a tool's input. */
export const MAX_TOOL_DATA_KEYS = 100

/**
 * Whether JSON `text` nests arrays and objects deeper than `max`. One pass over the
 * text that counts brackets outside strings, so a hostile body is refused before any
 * recursive reader sees it. Not a validator: malformed text is left to the JSON parser.
 */
export const nestsDeeperThan = (text: string, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c)
        i++ // backslash: the next character is escaped
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/** Where U+0000 was found: a text at `path`, or a key of the object at `path`. */
export interface NulFound {
  readonly path: ReadonlyArray<PropertyKey>
  readonly inKey: boolean
}

const hasNul = (text: string) => text.includes("\u0000")

/**
 * The first U+0000 in a parsed JSON value, in document order, or null. Iterative, so
 * it holds for any depth.
 */
export const findNul = (value: unknown): NulFound | null => {
  const stack: Array<{ readonly value: unknown; readonly path: ReadonlyArray<PropertyKey> }> = [{ value, path: [] }]
  while (stack.length > 0) {
    const { path, value: current } = stack.pop()!
    if (typeof current === "string") {
      if (hasNul(current)) return { path, inKey: false }
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: [...path, i] })
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current)
      if (entries.some(([key]) => hasNul(key))) return { path, inKey: true }
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], path: [...path, entries[i]![0]] })
    }
  }
  return null
}

/** `posts[0].value[0].content`, or `root` for the value itself. */
export const fieldName = (path: ReadonlyArray<PropertyKey>, root: string): string => (path.length === 0 ? root : fieldPath(path))

/** The first query parameter (name or value) with U+0000. */
export const queryParameterWithNul = (params: Iterable<readonly [string, string]>): string | null => {
  for (const [name, value] of params) if (hasNul(name) || hasNul(value)) return hasNul(name) ? "A query parameter name" : name
  return null
}

/** Whether a URL path, once its %-escapes are read, has U+0000. */
export const pathHasNul = (path: string): boolean =>
  path.split("/").some((segment) => {
    try {
      return hasNul(decodeURIComponent(segment))
    } catch {
      return false // a malformed escape: the router answers it
    }
  })

/** A JSON object of free-form values with at most `max` keys (settings, tool data); the bound is in its JSON Schema. */
export const objectWithAtMost = (max: number) =>
  Schema.Record({ key: Schema.String, value: Schema.Unknown }).pipe(
    Schema.filter((o) => Object.keys(o).length <= max, {
      message: () => `Expected an object with at most ${max} keys.`,
      jsonSchema: { maxProperties: max }
    })
  )
