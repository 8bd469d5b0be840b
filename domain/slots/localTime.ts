/**
 * Local wall-clock time → UTC instant, for a fixed offset or an IANA time zone. The zone
 * rules are the platform's (Intl, backed by the IANA database shipped with Node), never a
 * table of our own, so daylight saving time changes follow the zone's real history.
 */

/** How local time relates to UTC: a fixed offset (minutes added to UTC), or an IANA zone. */
export type LocalZone = { readonly _tag: "Offset"; readonly minutes: number } | { readonly _tag: "Zone"; readonly name: string }

export const utcZone: LocalZone = { _tag: "Offset", minutes: 0 }

const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

const formatters = new Map<string, Intl.DateTimeFormat>()
const formatterOf = (zone: string): Intl.DateTimeFormat => {
  let f = formatters.get(zone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric"
    })
    formatters.set(zone, f)
  }
  return f
}

/** Whether the platform knows this IANA zone (a profile may hold anything). */
export const isKnownZone = (name: string): boolean => {
  try {
    formatterOf(name)
    return true
  } catch {
    return false
  }
}

/** The zone's offset from UTC (milliseconds to add to UTC) at an instant. */
export const zoneOffsetAt = (zone: string, utcMs: number): number => {
  const parts = formatterOf(zone).formatToParts(new Date(utcMs))
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? "0")
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"))
  // the formatter has whole seconds; the instant may not
  return wall - Math.floor(utcMs / 1000) * 1000
}

/** The offset (ms to add to UTC) of a zone at an instant. */
export const offsetAt = (zone: LocalZone, utcMs: number): number => (zone._tag === "Offset" ? zone.minutes * MINUTE : zoneOffsetAt(zone.name, utcMs))

/**
 * The instant of a wall-clock time, given as milliseconds of that wall time read as if it
 * were UTC. Daylight saving changes are resolved like RFC 5545 and Temporal's
 * "compatible": a time skipped by a spring-forward gap is moved later by the gap (02:30
 * becomes 03:30), a time that happens twice at a fall-back takes the first (earlier) one.
 */
export const instantOfWallTime = (zone: LocalZone, wallMs: number): number => {
  if (zone._tag === "Offset") return wallMs - zone.minutes * MINUTE
  const before = zoneOffsetAt(zone.name, wallMs - DAY)
  const after = zoneOffsetAt(zone.name, wallMs + DAY)
  const valid = [wallMs - before, wallMs - after].filter((t) => t + zoneOffsetAt(zone.name, t) === wallMs)
  if (valid.length > 0) return Math.min(...valid)
  // in a gap: read with the offset in force before the change, which lands after it
  return wallMs - before
}

/** The wall-clock time (as if UTC) at an instant. */
export const wallTimeAt = (zone: LocalZone, utcMs: number): number => utcMs + offsetAt(zone, utcMs)
