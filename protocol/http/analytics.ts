import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Uuid } from "../../domain/ids.js"
import { ChannelNotFound, Forbidden, InvalidId, InvalidRequest, PostNotFound } from "./errors.js"
import { Authentication } from "./security.js"

/** Spec: Statistics metric. */
export const StatisticsMetric = Schema.Struct({
  label: Schema.String,
  help: Schema.optional(Schema.String.annotations({ description: "Channel statistics only" })),
  percentageChange: Schema.Number,
  data: Schema.Array(Schema.Struct({ total: Schema.Number, date: Schema.String.annotations({ description: "YYYY-MM-DD" }) }))
}).annotations({ identifier: "StatisticsMetric" })

export const StatisticsMissing = Schema.Struct({ missing: Schema.Literal(true), message: Schema.String }).annotations({
  identifier: "StatisticsMissing",
  description: "The network shares no statistics, or the post is not published yet"
})

/** An analytics answer: metrics, or why there are none. Also what the cache holds. */
export const StatisticsAnswer = Schema.Union(Schema.Array(StatisticsMetric), StatisticsMissing)
export type StatisticsAnswer = typeof StatisticsAnswer.Type

export const AnalyticsApi = HttpApiGroup.make("analytics")
  .add(
    HttpApiEndpoint.get("channelAnalytics", "/analytics/:integration")
      .setPath(Schema.Struct({ integration: Uuid.annotations({ description: "Channel id" }) }))
      .setUrlParams(Schema.Struct({ date: Schema.optional(Schema.String.annotations({ description: "Days: 7, 30 or 90 (default 30)" })) }))
      .addSuccess(StatisticsAnswer)
      .addError(InvalidRequest)
      .addError(InvalidId)
      .addError(ChannelNotFound)
      .annotate(OpenApi.Summary, "Channel statistics")
      .annotate(
        OpenApi.Description,
        "Daily numbers from the network. A longer range than the network keeps falls back to the longest it has. " +
          "percentageChange compares with the previous period when the network shares it, otherwise the second half of " +
          "the period with the first half. Answers are kept a few minutes (ANALYTICS_CACHE_SECONDS), so refreshing does " +
          "not call the network each time."
      )
  )
  .add(
    HttpApiEndpoint.get("postAnalytics", "/analytics/post/:postId")
      .setPath(Schema.Struct({ postId: Uuid.annotations({ description: "Per-channel post id or group id (its first channel)" }) }))
      .addSuccess(StatisticsAnswer)
      .addError(InvalidId)
      .addError(PostNotFound)
      .annotate(OpenApi.Summary, "Post statistics")
      .annotate(
        OpenApi.Description,
        "Each metric has one data point dated today and percentageChange 0; `Clicks` counts the post's short links. `{missing: true, message}` while the post is not published."
      )
  )
  .annotate(OpenApi.Title, "Analytics")
  .addError(Forbidden)
  .middleware(Authentication)
