import { Either } from "effect"
import { Errors, type InvalidDate } from "../errors.js"
import { dateExample, parseZonedDate } from "./dates.js"

/** Spec: GET /posts default range is 30 days back to 30 days ahead (Limits rule 6). */
export const LIST_RANGE_DAYS = 30
const DAY_MS = 24 * 3600 * 1000

/**
 * A range bound: ISO 8601 with a zone, or a plain date or date-time (read as JavaScript
 * does, so `2026-03-01` is midnight UTC). Empty or absent → the default.
 */
const bound = (text: string | undefined, fallback: Date, now: Date): Either.Either<Date, InvalidDate> => {
  if (text === undefined || text === "") return Either.right(fallback)
  const parsed = parseZonedDate(text) ?? (Number.isNaN(Date.parse(text)) ? null : new Date(text))
  return parsed === null ? Either.left(Errors.invalidDate(dateExample(now))) : Either.right(parsed)
}

/** The range GET /posts lists, from its query. */
export const postsRange = (
  query: { readonly startDate?: string | undefined; readonly endDate?: string | undefined },
  now: Date
): Either.Either<{ readonly start: Date; readonly end: Date }, InvalidDate> =>
  Either.all({
    start: bound(query.startDate, new Date(now.getTime() - LIST_RANGE_DAYS * DAY_MS), now),
    end: bound(query.endDate, new Date(now.getTime() + LIST_RANGE_DAYS * DAY_MS), now)
  })
