import type { Network } from "./network.js"
import { topLevelDomains } from "./top-level-domains.js"

/**
 * How long a post is for a network (spec: maxLength). Each network counts its
 * own way; counting like the network does is what keeps a post we accept from
 * being refused at publish time.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" })

/** Unicode code points, so an emoji outside the BMP counts 1, not 2 UTF-16 units. */
export const codePointLength = (text: string): number => Array.from(text).length

/** User-perceived characters (Bluesky counts these): a family emoji is 1. */
export const graphemeLength = (text: string): number => {
  let count = 0
  for (const _ of graphemes.segment(text)) count++
  return count
}

// X's twitter-text v3 configuration: weights are 1 inside these ranges, 2 elsewhere.
const lightRanges: ReadonlyArray<readonly [number, number]> = [
  [0x0000, 0x10ff],
  [0x2000, 0x200d],
  [0x2010, 0x201f],
  [0x2032, 0x2037]
]
const X_URL_WEIGHT = 23
const X_EMOJI_WEIGHT = 2

const codePointWeight = (codePoint: number): number => (lightRanges.some(([from, to]) => codePoint >= from && codePoint <= to) ? 1 : 2)

// A grapheme drawn as an emoji; plain symbols such as © without U+FE0F are not.
const emoji = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\u20E3|\p{Regional_Indicator}/u

const graphemeWeight = (grapheme: string): number => {
  if (emoji.test(grapheme)) return X_EMOJI_WEIGHT
  let weight = 0
  for (const char of grapheme) weight += codePointWeight(char.codePointAt(0) ?? 0)
  return weight
}

const label = "[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
// A link is `http(s)://…`, or a bare domain with a known ending not glued to a word,
// an @handle/email, a #tag or a path (what twitter-text refuses before a bare domain).
const links = new RegExp(
  "(?<![\\p{L}\\p{N}@#$])https?:\\/\\/[^\\s]+" +
    "|(?<![\\p{L}\\p{N}@#$._\\/-])(?:" +
    label +
    "\\.)+(?:" +
    topLevelDomains.join("|") +
    ")" +
    "(?![\\p{L}\\p{N}_-])(?::\\d{1,5})?(?:[\\/?#][^\\s]*)?",
  "giu"
)
const linkEnd = /[\p{L}\p{N}/=_\-+&#]/u
const protocolOnly = /^https?:\/\/$/i

/** Drops what ends a sentence rather than a link: `see example.com/a.` or `(x.com)`. */
const trimLink = (link: string): string => {
  let end = link.length
  while (end > 0) {
    const last = link.charAt(end - 1)
    if (linkEnd.test(last)) break
    if (last === ")") {
      const head = link.slice(0, end)
      const opened = head.split("(").length - 1
      const closed = head.split(")").length - 1
      if (opened >= closed) break
    }
    end--
  }
  return link.slice(0, end)
}

const weightedTextLength = (text: string): number => {
  let weight = 0
  for (const { segment } of graphemes.segment(text)) weight += graphemeWeight(segment)
  return weight
}

/** X's weighted length: every link 23, CJK and emoji 2, Latin and common punctuation 1. */
export const xWeightedLength = (text: string): number => {
  const normalized = text.normalize("NFC") // X counts the NFC form
  let weight = 0
  let from = 0
  for (const match of normalized.matchAll(links)) {
    const start = match.index
    const link = trimLink(match[0])
    if (link.length === 0 || protocolOnly.test(link)) continue
    weight += weightedTextLength(normalized.slice(from, start)) + X_URL_WEIGHT
    from = start + link.length
  }
  return weight + weightedTextLength(normalized.slice(from))
}

/** The length of `text` as `network` counts it against its maxLength. */
export const postLength = (network: Network, text: string): number => {
  switch (network.counting) {
    case "characters":
      return codePointLength(text)
    case "graphemes":
      return graphemeLength(text)
    case "x-weighted":
      return xWeightedLength(text)
  }
}
