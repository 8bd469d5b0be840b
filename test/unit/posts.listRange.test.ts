import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { postsRange } from "../../domain/posts/listRange.js"

/** GET /posts startDate and endDate (spec: Posts; Limits rule 6), within the years every date lies in. */

const now = new Date("2025-06-01T12:00:00.000Z")
const read = (query: { startDate?: string; endDate?: string }) => postsRange(query, now)

describe("GET /posts range", () => {
  it("defaults to 30 days back and 30 days ahead", () => {
    expect(read({})).toEqual(Either.right({ start: new Date("2025-05-02T12:00:00.000Z"), end: new Date("2025-07-01T12:00:00.000Z") }))
  })

  it.each([
    ["2026-03-01", "2026-03-01T00:00:00.000Z"],
    ["2026-03-01T10:00:00+02:00", "2026-03-01T08:00:00.000Z"],
    ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"]
  ])("reads %s", (startDate, expected) => {
    const range = read({ startDate })
    expect(Either.isRight(range) && range.right.start.toISOString()).toBe(expected)
  })

  it.each(["2026-02-30", "2026-02-30T10:00:00Z", "2025-02-29", "tomorrow"])("%s cannot be read", (startDate) => {
    const range = read({ startDate })
    expect(Either.isLeft(range) && range.left.error).toMatch(/^The date is not valid\. Use ISO 8601/)
  })

  it.each([
    ["startDate", "+275760-09-13T00:00:00.000Z"],
    ["startDate", "-271821-04-20T00:00:00.000Z"],
    ["endDate", "0000-01-01"],
    ["endDate", "1969-12-31T23:59:59Z"],
    ["endDate", "+010000-01-01T00:00:00Z"]
  ])("%s=%s is outside the years 1970 to 9999", (field, value) => {
    const range = read({ [field]: value })
    expect(Either.isLeft(range) && range.left).toMatchObject({
      _tag: "InvalidDate",
      error: `${field} must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z.`
    })
  })
})
