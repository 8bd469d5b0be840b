import type { Network } from "./networks/network.js"
import { postLength } from "./networks/length.js"

/**
 * Short links (spec: POST /posts `shortLink`): with it on, every http(s) link of a post's
 * text is replaced before publishing by `{PUBLIC_URL}/l/<code>`, one code per link and
 * channel post, and the redirect counts clicks. What is left alone, and why:
 * - links inside code (`inline` or ``` fenced ```): networks that render Markdown show
 *   them as literal text, so changing them changes what the author wrote;
 * - links that already are short links of this server;
 * - every link, when the shortened text would be longer than the network allows (its own
 *   counting applies to the short link, e.g. X counts every link as 23): a post that passed
 *   the network's rules never fails because of shortening.
 */

/** Path of the redirect on the gateway. */
export const SHORT_LINK_PATH = "/l/"

/** A code: URL-safe, long enough that guessing one is hopeless (72 random bits). */
export const shortCodePattern = /^[A-Za-z0-9_-]{12}$/

const linkPattern = /https?:\/\/[^\s<>"'`]+/gi
const codePattern = /```[\s\S]*?```|`[^`\n]+`/g
// what ends a sentence rather than a link: `see https://a.example/x.` or `(https://a.example)`
const trailing = /[.,;:!?'"\]}>]+$/

const trimLink = (link: string): string => {
  let out = link.replace(trailing, "")
  while (out.endsWith(")") && out.split("(").length <= out.split(")").length - 1) out = out.slice(0, -1).replace(trailing, "")
  return out
}

export interface FoundLink {
  readonly start: number
  readonly end: number
  readonly url: string
}

/** The links of a text that may be shortened, in order (not in code, not already short). */
export const linksToShorten = (text: string, publicUrl: string): ReadonlyArray<FoundLink> => {
  const code = [...text.matchAll(codePattern)].map((m) => [m.index, m.index + m[0].length] as const)
  const inCode = (at: number) => code.some(([from, to]) => at >= from && at < to)
  const own = `${publicUrl}${SHORT_LINK_PATH}`.toLowerCase()
  const found: Array<FoundLink> = []
  for (const m of text.matchAll(linkPattern)) {
    const url = trimLink(m[0])
    if (url.length <= "https://".length || inCode(m.index) || url.toLowerCase().startsWith(own)) continue
    found.push({ start: m.index, end: m.index + url.length, url })
  }
  return found
}

/** The text with each link replaced by its short address (`shortOf` answers one per address). */
export const replaceLinks = (text: string, links: ReadonlyArray<FoundLink>, shortOf: (url: string) => string): string => {
  let out = ""
  let from = 0
  for (const link of links) {
    out += text.slice(from, link.start) + shortOf(link.url)
    from = link.end
  }
  return out + text.slice(from)
}

/** The text to send: shortened, unless the network would then count it over its limit. */
export const shortenedFor = (network: Network, text: string, links: ReadonlyArray<FoundLink>, shortOf: (url: string) => string): string => {
  const shortened = replaceLinks(text, links, shortOf)
  return postLength(network, shortened) <= network.maxLength ? shortened : text
}

/** The short address of a code. */
export const shortUrl = (publicUrl: string, code: string) => `${publicUrl}${SHORT_LINK_PATH}${code}`
