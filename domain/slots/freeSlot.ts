import { Either, Option } from "effect"
import { Errors, type InvalidRequest } from "../errors.js"
import { instantOfWallTime, wallTimeAt, type LocalZone } from "./localTime.js"

/**
 * Free slots (spec: Endpoints → Free slots, Limits 7): the next time, from the channels'
 * posting times, that no queued or draft post of those channels already takes.
 */

/** Rule 1: a channel without posting times posts at 9:00. */
export const DEFAULT_POSTING_TIME = "09:00"
/** Rule 4 / Limit 7. */
export const MIN_LEAD_MINUTES = 5
export const LOOKAHEAD_DAYS = 90
/** Limit 7: tzOffsetMinutes -840 to 840. */
export const MIN_TZ_OFFSET = -840
export const MAX_TZ_OFFSET = 840

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

export const tzOffsetMessage =
  `tzOffsetMinutes must be a whole number from ${MIN_TZ_OFFSET} to ${MAX_TZ_OFFSET}: the minutes to add ` +
  `to UTC to get local time (for example 120 for UTC+2, -300 for UTC-5).`

/** Limit 7: the given offset, or the 400 naming the range. */
export const checkTzOffset = (minutes: number): Either.Either<number, InvalidRequest> =>
  Number.isInteger(minutes) && minutes >= MIN_TZ_OFFSET && minutes <= MAX_TZ_OFFSET
    ? Either.right(minutes)
    : Either.left(Errors.badRequest(tzOffsetMessage, "Leave tzOffsetMinutes out to use the time zone of your profile."))

/** The query parameter as sent (a string): a whole number in range, else the same 400. */
export const parseTzOffset = (raw: string): Either.Either<number, InvalidRequest> =>
  /^[+-]?\d{1,4}$/.test(raw.trim()) ? checkTzOffset(Number(raw.trim())) : checkTzOffset(Number.NaN)

/**
 * Rule 2: the given offset; else the profile's IANA zone (daylight saving followed);
 * else UTC. `knownZone` tells whether the platform has the zone (a profile may hold junk).
 */
export const localZoneFor = (tzOffsetMinutes: Option.Option<number>, profileZone: string | null, knownZone: (name: string) => boolean): LocalZone =>
  Option.match(tzOffsetMinutes, {
    onSome: (minutes): LocalZone => ({ _tag: "Offset", minutes }),
    onNone: (): LocalZone => (profileZone !== null && knownZone(profileZone) ? { _tag: "Zone", name: profileZone } : { _tag: "Offset", minutes: 0 })
  })

/** Minutes after midnight of an `HH:MM` posting time. */
const minutesOfDay = (time: string): number => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))

/** Rule 1: every channel's posting times (9:00 for a channel without any), as minutes of the day. */
export const postingMinutes = (channels: ReadonlyArray<{ readonly postingTimes: ReadonlyArray<string> }>): ReadonlyArray<number> => {
  const times =
    channels.length === 0 ? [DEFAULT_POSTING_TIME] : channels.flatMap((c) => (c.postingTimes.length === 0 ? [DEFAULT_POSTING_TIME] : c.postingTimes))
  return [...new Set(times.map(minutesOfDay))].sort((a, b) => a - b)
}

/** The minute an instant falls in: a post at 09:00:30 takes the 09:00 slot. */
export const minuteOf = (utcMs: number): number => Math.floor(utcMs / MINUTE)

export interface FreeSlotInput {
  readonly now: Date
  readonly zone: LocalZone
  /** Minutes of the local day (rule 1). */
  readonly postingMinutes: ReadonlyArray<number>
  /** Rule 3: minutes (minuteOf) already taken by a queued or draft post of those channels. */
  readonly taken: ReadonlySet<number>
}

/**
 * Rules 1-4: the earliest posting time, in local time, at least 5 minutes from now and
 * at most 90 days ahead, whose minute no queued or draft post takes. None when all of
 * them are taken.
 */
export const findFreeSlot = (input: FreeSlotInput): Option.Option<Date> => {
  const earliest = input.now.getTime() + MIN_LEAD_MINUTES * MINUTE
  const latest = input.now.getTime() + LOOKAHEAD_DAYS * DAY
  // local midnight of the day `earliest` falls on, read as UTC; one day before covers any offset change
  const firstDay = Math.floor(wallTimeAt(input.zone, earliest) / DAY) * DAY - DAY
  for (let day = firstDay; day <= firstDay + (LOOKAHEAD_DAYS + 2) * DAY; day += DAY) {
    // posting times of a day are in order, and so are their instants (a gap only moves one later)
    const instants = input.postingMinutes.map((m) => instantOfWallTime(input.zone, day + m * MINUTE)).sort((a, b) => a - b)
    for (const at of instants) {
      if (at < earliest) continue
      if (at > latest) return Option.none()
      if (!input.taken.has(minuteOf(at))) return Option.some(new Date(at))
    }
  }
  return Option.none()
}

export const noFreeSlotMessage = `Every posting time of the next ${LOOKAHEAD_DAYS} days is taken.`
export const noFreeSlotFix = "Add posting times to the channel, or move or delete some queued posts."
