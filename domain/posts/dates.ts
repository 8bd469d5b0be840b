import { Either } from "effect"
import { Errors, type InvalidDate } from "../errors.js"

/**
 * Dates in post bodies (spec: POST /posts `date`, PUT /posts/{id}/date): ISO 8601 with a
 * time zone. A time without a zone is refused: guessing one would move the post by hours.
 */

const zoned = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

const daysInMonth = (year: number, month: number): number => (month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31)

/** Whether year-month-day names a day of the calendar (no 30 February). */
export const isCalendarDate = (year: number, month: number, day: number): boolean =>
  month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)

/** The instant named by `text`, or null when it is not ISO 8601 with a zone or not a real time. */
export const parseZonedDate = (text: string): Date | null => {
  const m = zoned.exec(text.trim())
  if (m === null) return null
  const [, y, mo, d, h, mi, s, fraction, z, sign, oh, om] = m
  const year = Number(y)
  const month = Number(mo)
  const day = Number(d)
  const hour = Number(h)
  const minute = Number(mi)
  const second = s === undefined ? 0 : Number(s)
  const offsetHours = z !== undefined ? 0 : Number(oh)
  const offsetMinutes = z !== undefined ? 0 : Number(om)
  if (!isCalendarDate(year, month, day)) return null
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null
  const millis = fraction === undefined ? 0 : Number(fraction.padEnd(3, "0").slice(0, 3))
  const utc = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis))
  utc.setUTCFullYear(year) // Date.UTC maps years 0-99 to 1900-1999
  const offset = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes)
  return new Date(utc.getTime() - offset * 60_000)
}

/**
 * Every date the API reads (POST /posts `date`, PUT /posts/{id}/date, GET /posts
 * startDate and endDate) lies in these years: Postgres has no year 0, and JavaScript
 * cannot write a date past the year 275760.
 */
export const DATE_RANGE = {
  earliest: { date: new Date("1970-01-01T00:00:00.000Z"), text: "1970-01-01T00:00:00Z" },
  latest: { date: new Date("9999-12-31T23:59:59.999Z"), text: "9999-12-31T23:59:59Z" }
} as const

export const isInDateRange = (date: Date): boolean =>
  date.getTime() >= DATE_RANGE.earliest.date.getTime() && date.getTime() <= DATE_RANGE.latest.date.getTime()

/** `field` must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z. */
export const dateOutOfRange = (field: string): InvalidDate => Errors.dateOutOfRange(field, DATE_RANGE.earliest.text, DATE_RANGE.latest.text)

/** A date `field` as the API reads it: ISO 8601 with a zone, within DATE_RANGE. */
export const readZonedDate = (text: string, field: string, now: Date): Either.Either<Date, InvalidDate> => {
  const parsed = parseZonedDate(text)
  if (parsed === null) return Either.left(Errors.invalidDate(dateExample(now)))
  return isInDateRange(parsed) ? Either.right(parsed) : Either.left(dateOutOfRange(field))
}

/** Spec: dates for schedule, review and PUT date may be at most 1 minute in the past. */
export const PAST_TOLERANCE_MS = 60_000

export const isTooFarInPast = (date: Date, now: Date): boolean => date.getTime() < now.getTime() - PAST_TOLERANCE_MS

/** An example for the invalid-date message: the next full hour, so it can be used as is. */
export const dateExample = (now: Date): string => {
  const hour = 3_600_000
  return new Date((Math.floor(now.getTime() / hour) + 1) * hour).toISOString()
}

/** When a queued item becomes due: its time, or now when that time has passed. */
export const dueTime = (publishAt: Date, now: Date): Date => (publishAt.getTime() < now.getTime() ? now : publishAt)
