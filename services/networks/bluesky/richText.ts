import { createHash } from "node:crypto"

/** Bluesky link facets: every http(s) URL in the text, with UTF-8 byte offsets as the lexicon wants. */
export const linkFacets = (text: string) => {
  const facets: Array<{ index: { byteStart: number; byteEnd: number }; features: Array<{ $type: string; uri: string }> }> = []
  for (const match of text.matchAll(/https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'"]/g)) {
    const start = Buffer.byteLength(text.slice(0, match.index ?? 0), "utf8")
    facets.push({
      index: { byteStart: start, byteEnd: start + Buffer.byteLength(match[0], "utf8") },
      features: [{ $type: "app.bsky.richtext.facet#link", uri: match[0] }]
    })
  }
  return facets
}

const S32 = "234567abcdefghijklmnopqrstuvwxyz"

/**
 * A record key in TID syntax derived from the item id: the same item always gets the same
 * key, so a post sent again collides with the first instead of making a copy.
 */
export const tidFor = (itemId: string): string => {
  let n = createHash("sha256").update(itemId).digest().readBigUInt64BE(0) & 0x7fffffffffffffffn
  let out = ""
  for (let i = 0; i < 13; i++) {
    out = S32[Number(n & 31n)]! + out
    n >>= 5n
  }
  return out
}

/** `at://did/collection/rkey` → its parts. */
export const parseAtUri = (uri: string) => {
  const match = /^at:\/\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri)
  return match === null ? null : { repo: match[1]!, collection: match[2]!, rkey: match[3]! }
}
