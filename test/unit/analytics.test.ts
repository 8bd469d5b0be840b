import { Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { channelMetric, effectiveDays, parseAnalyticsRange, percentageChange, postMetric, rangeMessage } from "../../domain/analytics.js"

/** Spec: Analytics, Statistics metric, Limits 9. */

const points = (...totals: ReadonlyArray<number>) => totals.map((total, i) => ({ total, date: `2026-01-${String(i + 1).padStart(2, "0")}` }))

describe("the date range (Limits 9)", () => {
  it.each([
    [undefined, 30],
    ["7", 7],
    ["30", 30],
    ["90", 90]
  ] as const)("date=%s → %s days", (raw, days) => {
    expect(parseAnalyticsRange(raw)).toEqual(Either.right(days))
  })
  it.each(["0", "1", "14", "31", "91", "-7", "7.0", "abc", "", "1e1"])("date=%j answers 400", (raw) => {
    expect(Option.map(Either.getLeft(parseAnalyticsRange(raw)), (e) => [e._tag, e.error])).toEqual(Option.some(["InvalidRequest", rangeMessage]))
  })
  it("a longer range than the network keeps falls back to the longest it has", () => {
    expect(effectiveDays(90, 60)).toBe(60)
    expect(effectiveDays(30, 60)).toBe(30)
    expect(effectiveDays(90, undefined)).toBe(90)
  })
})

describe("percentageChange", () => {
  it("against the previous period when the network shares it", () => {
    expect(percentageChange(points(10, 10), points(5, 5))).toBe(100)
    expect(percentageChange(points(3, 0), points(2, 2))).toBe(-25)
  })
  it("otherwise the second half against the first half (an odd middle day left out)", () => {
    expect(percentageChange(points(10, 10, 15, 15), undefined)).toBe(50)
    expect(percentageChange(points(10, 999, 5), undefined)).toBe(-50)
    expect(percentageChange(points(3, 3, 4), undefined)).toBe(33.33)
  })
  it("from nothing: 0 when still nothing, else 100; one day: 0", () => {
    expect(percentageChange(points(0, 0), undefined)).toBe(0)
    expect(percentageChange(points(0, 4), undefined)).toBe(100)
    expect(percentageChange(points(7), undefined)).toBe(0)
  })
  it("a channel metric is sorted oldest first and carries its help", () => {
    const m = channelMetric({ label: "Likes", help: "h", data: [...points(1, 2)].reverse() })
    expect(m).toEqual({ label: "Likes", help: "h", percentageChange: 100, data: points(1, 2) })
  })
  it("a post metric: one point dated today, percentageChange 0, no help", () => {
    expect(postMetric({ label: "Likes", data: points(4, 9) }, "2026-02-02")).toEqual({
      label: "Likes",
      percentageChange: 0,
      data: [{ total: 9, date: "2026-02-02" }]
    })
  })
})
