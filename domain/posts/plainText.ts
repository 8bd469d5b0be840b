/**
 * Post content may arrive as HTML (the reference app's editor sends `<p>…</p>`); networks
 * get plain text. Text without any tag is left exactly as sent, so `a < b` or a literal
 * `&amp;` typed by a person survive. In HTML, a link keeps its address (`text (url)`, or
 * the bare url when the text is the url), and what script and style hold is dropped: it
 * is code, not words of the post.
 */

// Text counts as HTML only with a real HTML tag, so `a < b`, `<3` or `<Ctrl> + C` stay text.
const htmlTag =
  /<\/?(?:p|br|div|span|a|b|script|style|strong|i|em|u|s|strike|del|ins|mark|small|sub|sup|code|pre|blockquote|ul|ol|li|h[1-6]|hr|img|figure|figcaption|table|thead|tbody|tr|td|th)(?=[\s/>])[^<>]*>/i
const lineBreaks = /<br\s*\/?>|<\/(?:p|div|li|h[1-6]|blockquote|tr)\s*>/gi
const codeBlocks = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<(?:script|style)\b[^>]*>[\s\S]*$/gi
const links = /<a\b[^>]*?\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi
const anyTag = /<\/?[a-zA-Z][^<>]*>|<!--[\s\S]*?-->/g
const entity = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp|#39));/g

const named: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  "#39": "'",
  // editors put &nbsp; to keep spaces; networks want a plain space
  nbsp: " "
}

const fromCodePoint = (code: number, original: string): string =>
  code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : original

/** Decodes the entities an editor writes, in one pass so `&amp;lt;` becomes `&lt;`. */
export const decodeEntities = (s: string): string =>
  s.replace(entity, (match, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (decimal !== undefined) return fromCodePoint(Number.parseInt(decimal, 10), match)
    if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16), match)
    return (name !== undefined ? named[name] : undefined) ?? match
  })

export const looksLikeHtml = (s: string): boolean => htmlTag.test(s)

/** Addresses a reader can open; `#top` or `javascript:` say nothing to a reader of the post. */
const keptAddress = (href: string): boolean => /^(?:https?:|mailto:)/i.test(href.trim())

/**
 * `<a href="u">t</a>` → `t (u)`; `u` alone when the text is empty or the address itself.
 * Still encoded: the one entity pass after it decodes text and address alike.
 */
const linkText = (_: string, dq: string | undefined, sq: string | undefined, bare: string | undefined, inner: string): string => {
  const href = (dq ?? sq ?? bare ?? "").trim()
  const text = inner.replace(anyTag, "").trim()
  if (!keptAddress(href)) return text
  const shown = decodeEntities(text)
  const address = decodeEntities(href)
  return shown === "" || shown === address || shown === address.replace(/^(?:https?:\/\/|mailto:)/i, "") ? href : `${text} (${href})`
}

/** HTML → plain text: code dropped, links keep their address, block ends and `<br>` become new lines, other tags go, entities decode. */
export const htmlToPlainText = (s: string): string => {
  if (!looksLikeHtml(s)) return s
  const text = decodeEntities(
    s.replace(/\r\n?/g, "\n").replace(codeBlocks, "").replace(links, linkText).replace(lineBreaks, "\n").replace(anyTag, "")
  )
  return text.replace(/\n{3,}/g, "\n\n").trim()
}
