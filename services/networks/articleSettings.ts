import { Either, Schema } from "effect"

/**
 * Reading the settings of blog and newsletter posts (dev.to, Hashnode, Listmonk): a text
 * setting, and a list of words as clients send it (strings, `{value}` or `{label}` entries,
 * or one comma-separated text).
 */

/** A text setting, trimmed; undefined when absent or blank. */
export const textSetting = (settings: Readonly<Record<string, unknown>>, key: string): string | undefined => {
  const value = settings[key]
  const text = typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : ""
  return text === "" ? undefined : text
}

const Entry = Schema.Union(
  Schema.String,
  Schema.Struct({ value: Schema.Union(Schema.String, Schema.Number) }),
  Schema.Struct({ label: Schema.String })
)

const entryText = (entry: unknown): string =>
  Either.match(Schema.decodeUnknownEither(Entry)(entry), {
    onLeft: () => "",
    onRight: (e) => (typeof e === "string" ? e : "value" in e ? String(e.value) : e.label)
  }).trim()

/** A list setting as words, without blanks or repeats, in the order given. */
export const listSetting = (settings: Readonly<Record<string, unknown>>, key: string): ReadonlyArray<string> => {
  const value = settings[key]
  const entries: ReadonlyArray<unknown> = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : []
  return [...new Set(entries.map(entryText).filter((t) => t !== ""))]
}

/** The text's first line without Markdown heading marks, as a title or subject when none is set. */
export const firstLineOf = (content: string, max: number): string =>
  (content.split("\n").find((line) => line.trim() !== "") ?? "")
    .replace(/^\s*#+\s*/, "")
    .trim()
    .slice(0, max)

/** A web address (http or https), for settings that must be one (a canonical URL). */
export const isHttpAddress = (text: string): boolean => {
  if (!URL.canParse(text)) return false
  const protocol = new URL(text).protocol
  return protocol === "http:" || protocol === "https:"
}
