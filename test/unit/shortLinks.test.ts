import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { findNetwork } from "../../domain/networks/index.js"
import { postLength } from "../../domain/networks/length.js"
import { linksToShorten, replaceLinks, shortenedFor } from "../../domain/shortLinks.js"

/** Spec: POST /posts `shortLink`; which links are shortened and which are left alone. */

const base = "https://sched.example"
const short = (url: string) => `${base}/l/${url.length.toString().padStart(12, "x")}`
const network = (id: string) => Option.getOrThrow(findNetwork(id))

describe("linksToShorten", () => {
  it("finds http and https links, without the punctuation that ends a sentence", () => {
    const text = "Read https://blog.example/a?b=1. And (http://x.example/p_(1)) too!"
    expect(linksToShorten(text, base).map((l) => l.url)).toEqual(["https://blog.example/a?b=1", "http://x.example/p_(1)"])
  })
  it("leaves links in code spans and fenced code alone", () => {
    const text = "Try `curl https://api.example/v1` or\n```\nGET https://api.example/v2\n```\nthen https://docs.example"
    expect(linksToShorten(text, base).map((l) => l.url)).toEqual(["https://docs.example"])
  })
  it("leaves this server's own short links alone, and bare domains", () => {
    expect(linksToShorten(`${base}/l/abcdefghijkl and example.com`, base)).toEqual([])
  })
  it("replaces each link in place", () => {
    const text = "a https://one.example b https://two.example c"
    expect(replaceLinks(text, linksToShorten(text, base), (u) => `<${u.length}>`)).toBe("a <19> b <19> c")
  })
})

describe("shortenedFor: the network's own counting applies to the short link", () => {
  it("X counts a link as 23 whatever its length: shortened", () => {
    const text = `Launch! https://example.com/${"p".repeat(200)}`
    const out = shortenedFor(network("x"), text, linksToShorten(text, base), short)
    expect(out).toBe(`Launch! ${short(`https://example.com/${"p".repeat(200)}`)}`)
    expect(postLength(network("x"), out)).toBe(postLength(network("x"), text))
  })
  it("a short text with a long short link over the limit is sent unchanged", () => {
    const limit = network("bluesky").maxLength
    const text = `${"a".repeat(limit - 20)} https://a.io`
    const out = shortenedFor(network("bluesky"), text, linksToShorten(text, base), (u) => `${base}/l/${"z".repeat(12)}${u.length}`)
    expect(out).toBe(text)
  })
})
