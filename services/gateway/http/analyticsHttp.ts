import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { parseAnalyticsRange } from "../../../domain/analytics.js"
import { ChannelId, PostRef } from "../../../domain/ids.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { Analytics } from "../../analytics/Analytics.js"
import { authorize } from "../../platform/policy.js"

/** Analytics: contract → Analytics. */
export const AnalyticsHttpLive = HttpApiBuilder.group(PublicApi, "analytics", (handlers) =>
  Effect.gen(function* () {
    const analytics = yield* Analytics
    return handlers
      .handle("channelAnalytics", ({ path, urlParams }) =>
        Effect.flatMap(parseAnalyticsRange(urlParams.date), (days) => analytics.channel(ChannelId.make(path.integration), Option.some(days))).pipe(
          authorize("channels.read")
        )
      )
      .handle("postAnalytics", ({ path }) => analytics.post(PostRef.make(path.postId)).pipe(authorize("posts.read")))
  })
)
