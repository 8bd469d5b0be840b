import fs from "node:fs"
import { describe, expect, it } from "vitest"
import { DATE_RANGE } from "../../domain/posts/dates.js"
import { PostLimits } from "../../domain/posts/limits.js"
import { MAX_JSON_DEPTH, MAX_TOOL_DATA_KEYS, MAX_URL_LENGTH } from "../../domain/requests.js"

/** docs/api.md, Limits → Sizes of a request, states the numbers the code enforces (one place each). */

const docs = fs.readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8")
const section = docs.slice(docs.indexOf("### Sizes of a request"), docs.indexOf("## Versioning"))
const row = (what: string) => section.split("\n").find((line) => line.startsWith(`| ${what}`)) ?? ""

describe("docs/api.md states every input limit", () => {
  it.each([
    ["Channels of one post", PostLimits.channels],
    ["Items of one channel", PostLimits.itemsPerChannel],
    ["Items of one channel", PostLimits.itemsPerChannel - 1],
    ["Files of one item", PostLimits.mediaPerItem],
    ["Tags of one post", PostLimits.tags],
    ["Settings keys", PostLimits.settingsKeys],
    ["`delay` of a follow-up", PostLimits.delayMinutes],
    ["`data` of POST /integration-trigger", MAX_TOOL_DATA_KEYS],
    ["`url` of POST /upload-from-url", MAX_URL_LENGTH],
    ["Nesting of a JSON body", MAX_JSON_DEPTH]
  ])("%s: %i", (what, limit) => {
    expect(row(what)).toMatch(new RegExp(`\\b${limit}\\b`))
  })

  it("the date range", () => {
    expect(row("Dates")).toContain(`${DATE_RANGE.earliest.text} to ${DATE_RANGE.latest.text}`)
  })
})
