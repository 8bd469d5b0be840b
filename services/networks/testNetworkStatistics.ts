import { Effect } from "effect"
import { Statistics, type Metric } from "./adapter.js"

/**
 * The test network's statistics: deterministic, plausible numbers, so the analytics
 * endpoints can be tried without any network's keys. A day's number depends only on the
 * channel (or post), the metric and the date, so every call and every replica agrees.
 * The network keeps 60 days: 7 and 30 days come with the period before; 90 falls back to 60.
 */
export const TEST_NETWORK_KEEPS_DAYS = 60

const DAY = 86_400_000

/** FNV-1a of the text, as a number in [0, 1). */
const unit = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0) / 4294967296
}

const channelMetrics = [
  { label: "Impressions", help: "How often the channel's posts were shown", base: 1200 },
  { label: "Likes", help: "Likes on the channel's posts", base: 90 },
  { label: "Comments", help: "Comments on the channel's posts", base: 14 },
  { label: "New followers", help: "People who started following the channel", base: 6 }
] as const

/** A day's number: the channel's own level, busier midweek, and a stable wobble. */
const daily = (key: string, base: number, date: string): number => {
  const level = 0.5 + unit(key)
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay()
  const week = 1 + 0.25 * Math.sin((weekday / 7) * 2 * Math.PI)
  return Math.round(base * level * week * (0.75 + 0.5 * unit(`${key}:${date}`)))
}

const days = (endMs: number, count: number): ReadonlyArray<string> =>
  Array.from({ length: count }, (_, i) => new Date(endMs - (count - 1 - i) * DAY).toISOString().slice(0, 10))

export const testChannelStatistics = (channelKey: string, requested: number, now: Date) =>
  Effect.sync(() => {
    const count = Math.min(requested, TEST_NETWORK_KEEPS_DAYS)
    const current = days(now.getTime(), count)
    // the period before is shared while both fit in what the network keeps
    const before = 2 * count <= TEST_NETWORK_KEEPS_DAYS ? days(now.getTime() - count * DAY, count) : null
    const metrics: Array<Metric> = channelMetrics.map((m) => {
      const key = `${channelKey}:${m.label}`
      return {
        label: m.label,
        help: m.help,
        percentageChange: 0,
        data: current.map((date) => ({ total: daily(key, m.base, date), date })),
        ...(before === null ? {} : { previous: before.map((date) => ({ total: daily(key, m.base, date), date })) })
      }
    })
    return Statistics.Metrics({ metrics })
  })

export const testPostStatistics = (releaseId: string, now: Date) =>
  Effect.sync(() => {
    const today = now.toISOString().slice(0, 10)
    const total = (label: string, base: number) => Math.round(base * (0.5 + unit(`${releaseId}:${label}`)))
    return Statistics.Metrics({
      metrics: [
        { label: "Impressions", percentageChange: 0, data: [{ total: total("Impressions", 800), date: today }] },
        { label: "Likes", percentageChange: 0, data: [{ total: total("Likes", 40), date: today }] },
        { label: "Comments", percentageChange: 0, data: [{ total: total("Comments", 6), date: today }] },
        { label: "Reposts", percentageChange: 0, data: [{ total: total("Reposts", 8), date: today }] }
      ]
    })
  })
