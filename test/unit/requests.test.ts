import { describe, expect, it } from "vitest"
import { fieldName, findNul, MAX_JSON_DEPTH, nestsDeeperThan, pathHasNul, queryParameterWithNul } from "../../domain/requests.js"

/** The edge checks of every request (domain/requests.ts). */

const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels)

describe("nestsDeeperThan: arrays and objects counted on the raw text", () => {
  it.each([
    [nested(MAX_JSON_DEPTH), false],
    [nested(MAX_JSON_DEPTH + 1), true],
    [`{"a":${nested(MAX_JSON_DEPTH - 1)}}`, false],
    [`{"a":{"b":${nested(MAX_JSON_DEPTH - 1)}}}`, true],
    // siblings do not add up
    [`[${Array.from({ length: 1000 }, () => nested(10)).join(",")}]`, false]
  ])("%#", (text, deeper) => {
    expect(nestsDeeperThan(text, MAX_JSON_DEPTH)).toBe(deeper)
  })

  it("brackets inside strings, escaped quotes included, do not count", () => {
    const inside = JSON.stringify({ a: `\\"${"[".repeat(100)}"\\`, b: "{".repeat(100) })
    expect(nestsDeeperThan(inside, 2)).toBe(false)
  })

  it("20,000 levels: one pass, no recursion", () => {
    expect(nestsDeeperThan(nested(20_000), MAX_JSON_DEPTH)).toBe(true)
  })
})

describe("findNul: the first text or key with U+0000, by its field path", () => {
  it.each([
    [{ posts: [{ value: [{ content: "ok" }, { content: "a\u0000" }] }] }, "posts[0].value[1].content", false],
    [{ tags: ["a", "b\u0000"], content: "c\u0000" }, "tags[1]", false],
    [{ settings: { "k\u0000": 1 } }, "settings", true],
    ["\u0000", "The request body", false]
  ])("%#", (value, field, inKey) => {
    const found = findNul(value)
    expect(found).not.toBeNull()
    expect(fieldName(found!.path, "The request body")).toBe(field)
    expect(found!.inKey).toBe(inKey)
  })

  it("no U+0000: null, also for the escaped text \\u0000", () => {
    expect(findNul({ a: ["\\u0000", 1, null, true, { b: "x" }] })).toBeNull()
  })
})

describe("paths and query strings", () => {
  it("a path segment with %00", () => {
    expect(pathHasNul("/public/v1/rules/x%00y")).toBe(true)
    expect(pathHasNul("/public/v1/rules/x%2500y")).toBe(false)
    expect(pathHasNul("/public/v1/rules/%E0%A4%A")).toBe(false)
  })

  it("the first query parameter with U+0000 is named", () => {
    expect(queryParameterWithNul(new URLSearchParams("page=1&search=a%00b"))).toBe("search")
    expect(queryParameterWithNul(new URLSearchParams("a%00=1"))).toBe("A query parameter name")
    expect(queryParameterWithNul(new URLSearchParams("search=a"))).toBeNull()
  })
})
