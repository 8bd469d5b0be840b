import { Effect, Option, Redacted, Schema } from "effect"
import { type Credentials, Statistics } from "../adapter.js"
import { metricToday } from "../adapterKit.js"
import { graphReason } from "./graphAnswers.js"
import { type GraphClient, PageCredentials } from "./graphClient.js"

/**
 * Facebook's statistics, modestly: a page's daily reach and engagements from
 * GET /{page}/insights (page_impressions_unique, page_post_engagements; at most 90 days),
 * and a post's reactions, comments and shares from the post itself.
 */

const Insights = Schema.Struct({
  data: Schema.Array(
    Schema.Struct({
      name: Schema.String,
      title: Schema.optional(Schema.String),
      values: Schema.Array(Schema.Struct({ value: Schema.optional(Schema.Unknown), end_time: Schema.optional(Schema.String) }))
    })
  )
})
const Counts = Schema.Struct({
  reactions: Schema.optional(Schema.Struct({ summary: Schema.Struct({ total_count: Schema.Number }) })),
  comments: Schema.optional(Schema.Struct({ summary: Schema.Struct({ total_count: Schema.Number }) })),
  shares: Schema.optional(Schema.Struct({ count: Schema.Number }))
})

export const facebookStatistics = (get: GraphClient["get"], read: GraphClient["read"]) => {
  const channelStatistics = (credentials: Redacted.Redacted<Credentials>, days: number) =>
    Effect.gen(function* () {
      const c = Schema.decodeUnknownOption(PageCredentials)(Redacted.value(credentials))
      if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's Facebook connection cannot be read; reconnect it." })
      const until = Math.floor(Date.now() / 1000)
      const since = until - Math.min(days, 90) * 86_400
      const answer = yield* get(`/${c.value.pageId}/insights`, c.value.accessToken, {
        metric: "page_impressions_unique,page_post_engagements",
        period: "day",
        since: String(since),
        until: String(until)
      })
      const insights = read(Insights, answer)
      if (Option.isNone(insights))
        return Statistics.Missing({
          message: `Facebook did not share the page's insights (${answer._tag === "Failed" ? answer.error._tag : graphReason(answer.response)}).`
        })
      const labels: Record<string, string> = { page_impressions_unique: "Reach", page_post_engagements: "Engagements" }
      return Statistics.Metrics({
        metrics: insights.value.data.map((m) => ({
          label: labels[m.name] ?? m.title ?? m.name,
          percentageChange: 0,
          data: m.values.map((v) => ({
            total: typeof v.value === "number" ? v.value : 0,
            date: (v.end_time ?? new Date().toISOString()).slice(0, 10)
          }))
        }))
      })
    })

  const postStatistics = (credentials: Redacted.Redacted<Credentials>, releaseId: string) =>
    Effect.gen(function* () {
      const c = Schema.decodeUnknownOption(PageCredentials)(Redacted.value(credentials))
      if (Option.isNone(c)) return Statistics.Missing({ message: "The channel's Facebook connection cannot be read; reconnect it." })
      const answer = yield* get(`/${releaseId}`, c.value.accessToken, {
        fields: "reactions.summary(total_count),comments.summary(total_count),shares"
      })
      const counts = read(Counts, answer)
      if (Option.isNone(counts))
        return Statistics.Missing({
          message: `Facebook did not share the post's counts (${answer._tag === "Failed" ? answer.error._tag : graphReason(answer.response)}).`
        })
      return Statistics.Metrics({
        metrics: [
          metricToday("Reactions", counts.value.reactions?.summary.total_count ?? 0),
          metricToday("Comments", counts.value.comments?.summary.total_count ?? 0),
          metricToday("Shares", counts.value.shares?.count ?? 0)
        ]
      })
    })

  return { longestRangeDays: 90, channel: channelStatistics, post: postStatistics }
}
