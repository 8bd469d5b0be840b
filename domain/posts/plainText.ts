/**
 * Post content may arrive as HTML (the reference app's editor sends `<p>…</p>`); networks
 * get plain text. Text without any tag is left exactly as sent, so `a < b` or a literal
 * `&amp;` typed by a person survive.
 */

// Text counts as HTML only with a real HTML tag, so `a < b`, `<3` or `<Ctrl> + C` stay text.
const htmlTag =
  /<\/?(?:p|br|div|span|a|b|strong|i|em|u|s|strike|del|ins|mark|small|sub|sup|code|pre|blockquote|ul|ol|li|h[1-6]|hr|img|figure|figcaption|table|thead|tbody|tr|td|th)(?=[\s/>])[^<>]*>/i
const lineBreaks = /<br\s*\/?>|<\/(?:p|div|li|h[1-6]|blockquote|tr)\s*>/gi
const anyTag = /<\/?[a-zA-Z][^<>]*>|<!--[\s\S]*?-->/g
const entity = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp|#39));/g

const named: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: "\"",
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

/** HTML → plain text: block ends and `<br>` become new lines, other tags go, entities decode. */
export const htmlToPlainText = (s: string): string => {
  if (!looksLikeHtml(s)) return s
  const text = decodeEntities(s.replace(/\r\n?/g, "\n").replace(lineBreaks, "\n").replace(anyTag, ""))
  return text.replace(/\n{3,}/g, "\n\n").trim()
}
