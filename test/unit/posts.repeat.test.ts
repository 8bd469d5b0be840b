import { describe, expect, it } from "vitest"
import { nextOccurrenceAt } from "../../domain/posts/repeat.js"

const DAY = 86_400_000
const at = new Date("2026-03-02T09:30:00.000Z")

describe("repeat posting: the next occurrence's time", () => {
  it("is repeatDays after the occurrence's own time, keeping its time of day", () => {
    expect(nextOccurrenceAt(at, 7, new Date(at.getTime() + 60_000))).toEqual(new Date(at.getTime() + 7 * DAY))
    expect(nextOccurrenceAt(at, 1, new Date(at.getTime() + 5_000))).toEqual(new Date("2026-03-03T09:30:00.000Z"))
  })

  it("does not drift when the occurrence went out late", () => {
    expect(nextOccurrenceAt(at, 3, new Date(at.getTime() + 2 * 3600_000))).toEqual(new Date(at.getTime() + 3 * DAY))
  })

  it("skips ahead to the first time still to come, never one in the past (no burst to catch up)", () => {
    expect(nextOccurrenceAt(at, 2, new Date(at.getTime() + 5 * DAY))).toEqual(new Date(at.getTime() + 6 * DAY))
    expect(nextOccurrenceAt(at, 2, new Date(at.getTime() + 4 * DAY))).toEqual(new Date(at.getTime() + 6 * DAY))
  })

  it("an occurrence published before its time (now) still repeats repeatDays after its time", () => {
    expect(nextOccurrenceAt(at, 365, new Date(at.getTime() - DAY))).toEqual(new Date(at.getTime() + 365 * DAY))
  })
})
