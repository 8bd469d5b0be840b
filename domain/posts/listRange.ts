import { Either } from "effect"
import { Errors, type InvalidDate } from "../errors.js"
import { dateExample, dateOutOfRange, isCalendarDate, isInDateRange, parseZonedDate } from "./dates.js"

/** Spec: GET /posts default range is 30 days back to 30 days ahead (Limits rule 6). */
export const LIST_RANGE_DAYS = 30
const DAY_MS = 24 * 3600 * 1000

const calendarPrefix = /^(\d{4})-(\d{2})-(\d{2})/

/** A date JavaScript reads, refused when its day is not in the calendar (JavaScript rolls 30 February over). */
const looseDate = (text: string): Date | null => {
  const m = calendarPrefix.exec(text)
  if (m !== null && !isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) return null
  const time = Date.parse(text)
  return Number.isNaN(time) ? null : new Date(time)
}

/**
 * A range bound: ISO 8601 with a zone, or a plain date or date-time (read as JavaScript
 * does, so `2026-03-01` is midnight UTC), within the years every date lies in.
 * Empty or absent → the default.
 */
const bound = (field: string, text: string | undefined, fallback: Date, now: Date): Either.Either<Date, InvalidDate> => {
  if (text === undefined || text === "") return Either.right(fallback)
  const parsed = parseZonedDate(text) ?? looseDate(text)
  if (parsed === null) return Either.left(Errors.invalidDate(dateExample(now)))
  return isInDateRange(parsed) ? Either.right(parsed) : Either.left(dateOutOfRange(field))
}

/** The range GET /posts lists, from its query. */
export const postsRange = (
  query: { readonly startDate?: string | undefined; readonly endDate?: string | undefined },
  now: Date
): Either.Either<{ readonly start: Date; readonly end: Date }, InvalidDate> =>
  Either.all({
    start: bound("startDate", query.startDate, new Date(now.getTime() - LIST_RANGE_DAYS * DAY_MS), now),
    end: bound("endDate", query.endDate, new Date(now.getTime() + LIST_RANGE_DAYS * DAY_MS), now)
  })
