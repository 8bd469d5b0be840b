import { Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { findFreeSlot, localZoneFor, minuteOf, parseTzOffset, postingMinutes, tzOffsetMessage } from "../../domain/slots/freeSlot.js"
import { instantOfWallTime, isKnownZone, type LocalZone } from "../../domain/slots/localTime.js"

/**
 * Spec: Free slots (rules 1-4) and Limits 7. The property tests compare findFreeSlot with
 * an independent, straightforward computation: walk every minute from now on, read its
 * wall-clock time with Intl's `format` (not the formatToParts the service uses), and take
 * the first minute showing a posting time (the first occurrence after a fall-back; a time
 * a spring-forward gap skips counts at the instant the offset before the change names).
 */

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** A small seeded generator (mulberry32): the same cases on every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = seed
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const zones = [
  "Europe/Berlin",
  "Europe/London",
  "America/New_York",
  "America/Los_Angeles",
  "America/Havana", // changes at midnight
  "America/Santiago",
  "America/St_Johns", // -3:30 / -2:30
  "Australia/Sydney",
  "Australia/Lord_Howe", // a 30-minute change
  "Pacific/Chatham", // +12:45 / +13:45
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Pacific/Kiritimati", // +14
  "Pacific/Pago_Pago", // -11
  "Africa/Cairo",
  "UTC"
]

/** The oracle's wall clock: `sv-SE` formats as `YYYY-MM-DD HH:MM:SS`. */
const svFormats = new Map<string, Intl.DateTimeFormat>()
const wallOf = (zone: LocalZone, utcMs: number): number => {
  if (zone._tag === "Offset") return utcMs + zone.minutes * MINUTE
  let f = svFormats.get(zone.name)
  if (f === undefined) {
    f = new Intl.DateTimeFormat("sv-SE", {
      timeZone: zone.name,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23"
    })
    svFormats.set(zone.name, f)
  }
  const text = f.format(new Date(utcMs)) // 2026-03-29 03:30:00
  return Date.parse(`${text.replace(" ", "T")}Z`)
}

/** Every slot in order, minute by minute, from `earliest` to `latest` (inclusive). */
function* oracleSlots(zone: LocalZone, times: ReadonlySet<number>, earliest: number, latest: number): Generator<number> {
  const start = Math.ceil(earliest / MINUTE) * MINUTE
  const shifted = new Set<number>()
  // from a few hours before, so a gap just before `earliest` still moves its times after it
  for (let u = start - 4 * HOUR; u <= latest; u += MINUTE) {
    const wall = wallOf(zone, u)
    const prev = wallOf(zone, u - MINUTE)
    if (wall - prev > MINUTE) {
      // a gap: the skipped wall times are read with the offset before it
      for (let t = prev + MINUTE; t < wall; t += MINUTE) if (times.has((((t % DAY) + DAY) % DAY) / MINUTE)) shifted.add(t - (prev - (u - MINUTE)))
    }
    // a wall time seen before (a fall-back repeats an hour) is not a slot again
    const repeated = () => {
      for (let k = 1; k <= 12; k++) {
        const before = u - k * 30 * MINUTE
        const first = wall - (wallOf(zone, before) - before)
        if (first < u && wallOf(zone, first) === wall) return true
      }
      return false
    }
    const isSlot = (times.has((((wall % DAY) + DAY) % DAY) / MINUTE) && !repeated()) || shifted.has(u)
    if (isSlot && u >= earliest) yield u
  }
}

const oracleFree = (zone: LocalZone, times: ReadonlySet<number>, now: number, taken: ReadonlySet<number>): number | null => {
  for (const u of oracleSlots(zone, times, now + 5 * MINUTE, now + 90 * DAY)) if (!taken.has(Math.floor(u / MINUTE))) return u
  return null
}

/** The instants, within a year from `from`, where the zone's offset changes. */
const transitionsOf = (zone: string, from: number): ReadonlyArray<number> => {
  const found: Array<number> = []
  const z: LocalZone = { _tag: "Zone", name: zone }
  for (let t = from; t < from + 366 * DAY; t += 6 * HOUR) {
    if (wallOf(z, t + 6 * HOUR) - (t + 6 * HOUR) !== wallOf(z, t) - t) found.push(t)
  }
  return found
}

const pad = (n: number) => String(n).padStart(2, "0")
const hhmm = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`

describe("findFreeSlot: property tests against a minute-by-minute walk", () => {
  const rnd = random(20261124)
  const pick = <A>(list: ReadonlyArray<A>): A => list[Math.floor(rnd() * list.length)]!
  // times DST changes skip or repeat (00:30 in Havana, 01:30-02:30 in Europe and the US), and any time
  const interesting = [0, 30, 60, 90, 120, 150, 180, 9 * 60, 13 * 60 + 30, 23 * 60 + 59]

  const cases = Array.from({ length: 160 }, (_, i) => {
    const kind = i % 4
    const zone: LocalZone = kind === 0 ? { _tag: "Offset", minutes: Math.floor(rnd() * 1681) - 840 } : { _tag: "Zone", name: pick(zones) }
    const yearStart = Date.UTC(2025 + Math.floor(rnd() * 5), 0, 1)
    let now = yearStart + Math.floor(rnd() * 365 * DAY) + Math.floor(rnd() * 60_000)
    if (zone._tag === "Zone" && kind !== 3) {
      // most zone cases start within two days of a daylight saving change
      const changes = transitionsOf(zone.name, yearStart)
      if (changes.length > 0) now = pick(changes) + Math.floor((rnd() * 4 - 2) * DAY) + Math.floor(rnd() * 60_000)
    }
    const count = Math.floor(rnd() * 4)
    const channels = Array.from({ length: 1 + Math.floor(rnd() * 2) }, () => ({
      postingTimes: Array.from({ length: count }, () => hhmm(rnd() < 0.5 ? pick(interesting) : Math.floor(rnd() * 1440)))
    }))
    return { i, zone, now, channels, takeFirst: Math.floor(rnd() * 5), seconds: Math.floor(rnd() * 59) }
  })

  it.each(cases)("case $i", ({ channels, now, seconds, takeFirst, zone }) => {
    const minutes = postingMinutes(channels)
    const times = new Set(minutes)
    // the first few slots are taken by posts (at some second of their minute)
    const taken = new Set<number>()
    for (const u of oracleSlots(zone, times, now + 5 * MINUTE, now + 90 * DAY)) {
      if (taken.size >= takeFirst) break
      taken.add(minuteOf(u + seconds * 1000))
    }
    const expected = oracleFree(zone, times, now, taken)
    const got = findFreeSlot({ now: new Date(now), zone, postingMinutes: minutes, taken })
    expect(Option.getOrNull(Option.map(got, (d) => d.toISOString()))).toBe(expected === null ? null : new Date(expected).toISOString())
  })
})

describe("instantOfWallTime: daylight saving changes", () => {
  const berlin: LocalZone = { _tag: "Zone", name: "Europe/Berlin" }
  const wall = (iso: string) => Date.parse(`${iso}Z`)
  it("a normal day: the zone's offset", () => {
    expect(new Date(instantOfWallTime(berlin, wall("2026-07-01T09:00:00"))).toISOString()).toBe("2026-07-01T07:00:00.000Z")
    expect(new Date(instantOfWallTime(berlin, wall("2026-01-15T09:00:00"))).toISOString()).toBe("2026-01-15T08:00:00.000Z")
  })
  it("a time the spring-forward gap skips moves later by the gap (02:30 → 03:30 CEST)", () => {
    expect(new Date(instantOfWallTime(berlin, wall("2026-03-29T02:30:00"))).toISOString()).toBe("2026-03-29T01:30:00.000Z")
  })
  it("a time the fall-back repeats is the first one (02:30 CEST)", () => {
    expect(new Date(instantOfWallTime(berlin, wall("2026-10-25T02:30:00"))).toISOString()).toBe("2026-10-25T00:30:00.000Z")
  })
  it("New York, 9:00 on both sides of the March change", () => {
    const ny: LocalZone = { _tag: "Zone", name: "America/New_York" }
    expect(new Date(instantOfWallTime(ny, wall("2026-03-07T09:00:00"))).toISOString()).toBe("2026-03-07T14:00:00.000Z")
    expect(new Date(instantOfWallTime(ny, wall("2026-03-09T09:00:00"))).toISOString()).toBe("2026-03-09T13:00:00.000Z")
  })
})

describe("findFreeSlot: the rules by example", () => {
  const now = new Date("2026-05-04T08:58:00.000Z")
  const utc: LocalZone = { _tag: "Offset", minutes: 0 }
  const find = (input: { zone?: LocalZone; times?: ReadonlyArray<string>; taken?: ReadonlyArray<string>; at?: Date }) =>
    Option.getOrNull(
      Option.map(
        findFreeSlot({
          now: input.at ?? now,
          zone: input.zone ?? utc,
          postingMinutes: postingMinutes([{ postingTimes: input.times ?? [] }]),
          taken: new Set((input.taken ?? []).map((t) => minuteOf(Date.parse(t))))
        }),
        (d) => d.toISOString()
      )
    )

  it("rule 1: 9:00 when a channel has no posting times", () => {
    expect(find({ at: new Date("2026-05-04T07:00:00.000Z") })).toBe("2026-05-04T09:00:00.000Z")
  })
  it("rule 4: at least 5 minutes from now (9:00 is 2 minutes away: tomorrow)", () => {
    expect(find({})).toBe("2026-05-05T09:00:00.000Z")
    expect(find({ at: new Date("2026-05-04T08:55:00.000Z") })).toBe("2026-05-04T09:00:00.000Z")
  })
  it("rule 2: the offset is added to UTC to get local time", () => {
    expect(find({ zone: { _tag: "Offset", minutes: 120 }, times: ["13:30"] })).toBe("2026-05-04T11:30:00.000Z")
    expect(find({ zone: { _tag: "Offset", minutes: -300 }, times: ["09:00"] })).toBe("2026-05-04T14:00:00.000Z")
  })
  it("rule 3: a time a queued or draft post takes (to the minute) is skipped", () => {
    expect(find({ times: ["10:00", "12:00"], taken: ["2026-05-04T10:00:40.000Z"] })).toBe("2026-05-04T12:00:00.000Z")
  })
  it("rule 4: nothing beyond 90 days", () => {
    const taken = Array.from({ length: 91 }, (_, d) => new Date(Date.UTC(2026, 4, 4 + d, 10)).toISOString())
    expect(find({ times: ["10:00"], taken })).toBeNull()
  })
  it("all channels' posting times count (9:00 for those without)", () => {
    expect(postingMinutes([{ postingTimes: ["13:30"] }, { postingTimes: [] }])).toEqual([540, 810])
    expect(postingMinutes([])).toEqual([540])
  })
})

describe("tzOffsetMinutes (Limits 7)", () => {
  it.each(["-840", "840", "0", "+60", "-300"])("%s is taken", (raw) => {
    expect(Either.isRight(parseTzOffset(raw))).toBe(true)
  })
  it.each(["841", "-841", "1.5", "abc", "", "1e2", "99999"])("%j answers 400 naming the range", (raw) => {
    const e = Either.getLeft(parseTzOffset(raw))
    expect(Option.map(e, (x) => [x._tag, x.error])).toEqual(Option.some(["InvalidRequest", tzOffsetMessage]))
  })
})

describe("the local zone (rule 2)", () => {
  it("the offset wins; else the profile's zone; else UTC; an unknown zone counts as none", () => {
    expect(localZoneFor(Option.some(60), "Europe/Berlin", isKnownZone)).toEqual({ _tag: "Offset", minutes: 60 })
    expect(localZoneFor(Option.none(), "Europe/Berlin", isKnownZone)).toEqual({ _tag: "Zone", name: "Europe/Berlin" })
    expect(localZoneFor(Option.none(), null, isKnownZone)).toEqual({ _tag: "Offset", minutes: 0 })
    expect(localZoneFor(Option.none(), "Mars/Olympus", isKnownZone)).toEqual({ _tag: "Offset", minutes: 0 })
  })
})
