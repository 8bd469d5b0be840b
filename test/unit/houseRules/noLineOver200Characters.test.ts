import { describe, expect, it } from "vitest"
import { sourcesUnder } from "./sources.js"

/**
 * No line over 200 characters: the formatter wraps code at 150 (biome.json), and what it
 * cannot wrap (a long string, a template) is split by hand (docs/house-rules.md, "Format
 * and lint"). Migration files are never edited, so they are not judged.
 */
const MAX = 200

describe(`no line over ${MAX} characters in services, domain, protocol and test`, () => {
  it("every line fits", () => {
    const long = sourcesUnder("services", "domain", "protocol", "test")
      .filter((s) => !/^services\/platform\/migrations\/\d{4}_/.test(s.path))
      .flatMap((s) => s.text.split("\n").flatMap((line, i) => (line.length > MAX ? [`${s.path}:${i + 1} (${line.length})`] : [])))
    expect(long, `lines over ${MAX} characters (run npm run format first; split what remains by hand):\n${long.join("\n")}`).toEqual([])
  })
})
