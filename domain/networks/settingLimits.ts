import type { Network } from "./network.js"

/**
 * Limits of networks' settings that `required` and a select's options do not say, as data:
 * how many words a list setting takes and of what shape, how long a text may be, settings
 * that must be a web address or an id of a known form. Checked before a post is saved
 * (domain/posts/rules.ts) and again by the adapter before sending. The figures are the
 * networks' own, each cited.
 */

interface Shape {
  readonly pattern: RegExp
  /** What the value must be, in words: "letters and digits only". */
  readonly says: string
}

export interface SettingLimit {
  readonly maxCharacters?: number
  readonly maxEntries?: number
  readonly entryShape?: Shape
  readonly shape?: Shape
  readonly webAddress?: true
}

export const settingLimits: Readonly<Record<string, Readonly<Record<string, SettingLimit>>>> = {
  // Forem's Article model: a title of up to 128 characters, at most 4 tags of letters and digits
  devto: {
    title: { maxCharacters: 128 },
    tags: { maxEntries: 4, entryShape: { pattern: /^#?[A-Za-z0-9]+$/, says: "letters and digits only" } },
    canonical_url: { webAddress: true }
  },
  // Hashnode's API limits: 15 tags a post; a series is named by its ObjectId
  hashnode: {
    tags: { maxEntries: 15, entryShape: { pattern: /[A-Za-z0-9]/, says: "a word with letters or digits" } },
    canonical_url: { webAddress: true },
    series: { shape: { pattern: /^[0-9a-f]{24}$/i, says: "a Hashnode series id (24 hexadecimal digits)" } }
  },
  // Listmonk names lists by their numeric id (GET /api/lists); its standard inputs, the
  // subject among them, take up to 200 characters (stdInputMaxLen; some versions allow 2000)
  listmonk: {
    subject: { maxCharacters: 200 },
    list: { shape: { pattern: /^[1-9][0-9]*$/, says: "a list id, a number (the lists tool lists them)" } }
  }
}

/** A text setting as given (a number counts as its digits); "" when it is neither. */
export const settingText = (value: unknown): string => (typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : "")

const entryText = (entry: unknown): string => {
  if (typeof entry === "string") return entry.trim()
  if (typeof entry !== "object" || entry === null) return ""
  const value: unknown = "value" in entry ? entry.value : "label" in entry ? entry.label : undefined
  return typeof value === "string" ? value.trim() : typeof value === "number" ? String(value) : ""
}

/** A list setting's words as clients send them (strings, `{value}` or `{label}` entries, or one comma-separated text), without blanks or repeats. */
export const settingWords = (value: unknown): ReadonlyArray<string> => {
  const entries: ReadonlyArray<unknown> = Array.isArray(value) ? value : typeof value === "string" ? value.split(",") : []
  return [...new Set(entries.map(entryText).filter((t) => t !== ""))]
}

const isWebAddress = (text: string): boolean => {
  if (!URL.canParse(text)) return false
  const protocol = new URL(text).protocol
  return protocol === "http:" || protocol === "https:"
}

const limitProblems = (channelName: string, network: Network, key: string, limit: SettingLimit, value: unknown): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const text = settingText(value)
  if (limit.maxCharacters !== undefined && [...text].length > limit.maxCharacters) {
    problems.push(`${channelName}: the setting ${key} is at most ${limit.maxCharacters} characters on ${network.name} (${[...text].length} given).`)
  }
  if (limit.webAddress === true && text !== "" && !isWebAddress(text)) {
    problems.push(`${channelName}: the setting ${key} "${text}" is not a web address (http or https).`)
  }
  if (limit.shape !== undefined && text !== "" && !limit.shape.pattern.test(text)) {
    problems.push(`${channelName}: the setting ${key} "${text}" must be ${limit.shape.says}.`)
  }
  const words = limit.maxEntries !== undefined || limit.entryShape !== undefined ? settingWords(value) : []
  if (limit.maxEntries !== undefined && words.length > limit.maxEntries) {
    problems.push(`${channelName}: ${network.name} takes at most ${limit.maxEntries} ${key}, not ${words.length}.`)
  }
  const shape = limit.entryShape
  if (shape !== undefined) {
    for (const word of words.filter((w) => !shape.pattern.test(w))) problems.push(`${channelName}: the ${key} entry "${word}" must be ${shape.says}.`)
  }
  return problems
}

/** Every broken setting limit of the network's settings, for one channel; empty when none. */
export const settingLimitProblems = (channelName: string, network: Network, settings: Readonly<Record<string, unknown>>): ReadonlyArray<string> =>
  Object.entries(settingLimits[network.identifier] ?? {}).flatMap(([key, limit]) => limitProblems(channelName, network, key, limit, settings[key]))
