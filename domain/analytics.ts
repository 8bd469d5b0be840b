import { Either } from "effect"
import { Errors, type InvalidRequest } from "./errors.js"

/**
 * Statistics (spec: Analytics, Statistics metric, Limits 9): ranges, the fallback to what
 * a network keeps, and how `percentageChange` is computed.
 */

/** Limits 9: 7, 30 or 90 days; 30 when left out. */
export const analyticsRanges = [7, 30, 90] as const
export const DEFAULT_ANALYTICS_DAYS = 30

export const rangeMessage = "date must be 7, 30 or 90 (days of statistics); leave it out for 30."

/** A range asked for (REST, MCP): 7, 30 or 90, else the 400; none: 30. */
export const checkAnalyticsRange = (days: number | undefined): Either.Either<number, InvalidRequest> =>
  days === undefined
    ? Either.right(DEFAULT_ANALYTICS_DAYS)
    : (analyticsRanges as ReadonlyArray<number>).includes(days)
      ? Either.right(days)
      : Either.left(Errors.badRequest(rangeMessage))

/** The `date` query parameter as sent (a string). */
export const parseAnalyticsRange = (raw: string | undefined): Either.Either<number, InvalidRequest> =>
  raw === undefined ? checkAnalyticsRange(undefined) : checkAnalyticsRange(/^\d{1,3}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN)

/** A range longer than the network keeps falls back to the longest it has. */
export const effectiveDays = (requested: number, networkKeepsDays: number | undefined): number =>
  networkKeepsDays === undefined ? requested : Math.max(1, Math.min(requested, networkKeepsDays))

export interface DataPoint {
  readonly total: number
  readonly date: string
}

/** One metric as the REST answer carries it. */
export interface StatisticsMetric {
  readonly label: string
  readonly help?: string
  readonly percentageChange: number
  readonly data: ReadonlyArray<DataPoint>
}

const sum = (points: ReadonlyArray<DataPoint>) => points.reduce((a, p) => a + p.total, 0)
const round2 = (n: number) => Math.round(n * 100) / 100

/** Percent from `before` to `after`; from nothing to something counts as +100. */
const change = (before: number, after: number): number => (before === 0 ? (after === 0 ? 0 : 100) : round2(((after - before) / before) * 100))

/**
 * Against the previous period when the network shares it; otherwise the second half of
 * the period against the first half (an odd middle day belongs to neither).
 */
export const percentageChange = (data: ReadonlyArray<DataPoint>, previous: ReadonlyArray<DataPoint> | undefined): number => {
  if (previous !== undefined && previous.length > 0) return change(sum(previous), sum(data))
  const half = Math.floor(data.length / 2)
  if (half === 0) return 0
  return change(sum(data.slice(0, half)), sum(data.slice(data.length - half)))
}

/** A channel metric with its percentageChange, oldest day first. */
export const channelMetric = (m: {
  readonly label: string
  readonly help?: string
  readonly data: ReadonlyArray<DataPoint>
  readonly previous?: ReadonlyArray<DataPoint>
}): StatisticsMetric => {
  const data = [...m.data].sort((a, b) => a.date.localeCompare(b.date))
  return { label: m.label, ...(m.help === undefined ? {} : { help: m.help }), percentageChange: percentageChange(data, m.previous), data }
}

/** A post metric: one data point dated today (the latest total), percentageChange 0, no help. */
export const postMetric = (m: { readonly label: string; readonly data: ReadonlyArray<DataPoint> }, today: string): StatisticsMetric => {
  const latest = [...m.data].sort((a, b) => a.date.localeCompare(b.date)).at(-1)
  return { label: m.label, percentageChange: 0, data: [{ total: latest?.total ?? 0, date: today }] }
}

/** The calendar date (UTC) of an instant, as the answers write dates. */
export const dateOf = (d: Date): string => d.toISOString().slice(0, 10)

export const notPublishedMessage = "This post is not published yet: its statistics come once it is live."
export const CLICKS_LABEL = "Clicks"
export const clicksHelp = "Clicks on the post's short links"
