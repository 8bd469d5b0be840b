import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { EVENT_LOG_DAYS, EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT } from "../../domain/eventLog.js"
import { optionalParam } from "./common.js"
import { Forbidden, InvalidRequest } from "./errors.js"
import { Authentication } from "./security.js"

/** One event of the log: the webhook events' names and data, numbered per workspace. */
export const LoggedEvent = Schema.Struct({
  sequence: Schema.Number.annotations({ description: "1, 2, 3 … per workspace, with no gaps; the same as a delivery's X-Service-Sequence" }),
  id: Schema.String,
  event: Schema.String,
  createdAt: Schema.String.annotations({ description: "UTC timestamp of the change" }),
  data: Schema.Unknown.annotations({ description: "The event's data, exactly as webhooks carry it" })
}).annotations({ identifier: "LoggedEvent" })

export const EventsPage = Schema.Struct({
  events: Schema.Array(LoggedEvent),
  cursor: Schema.String.annotations({ description: "Pass as `after` to continue: the last event's sequence (or the `after` given when none)" }),
  more: Schema.Boolean.annotations({ description: "More events follow this page" })
}).annotations({ identifier: "EventsPage" })
export type EventsPage = typeof EventsPage.Type

export const EventsParams = Schema.Struct({
  after: optionalParam(Schema.String),
  limit: optionalParam(Schema.String)
})

export const EventsApi = HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("listEvents", "/events")
      .setUrlParams(EventsParams)
      .addSuccess(EventsPage)
      .addError(InvalidRequest)
      .annotate(OpenApi.Summary, "The event log, from a cursor")
      .annotate(
        OpenApi.Description,
        `Every event the webhooks carry (post.published, post.failed, post.unconfirmed, approval.*, channel.*, billing.changed), ` +
          `numbered per workspace with no gaps, oldest first, after \`after\` (default 0), up to \`limit\` (default ${EVENTS_DEFAULT_LIMIT}, ` +
          `at most ${EVENTS_MAX_LIMIT}). Kept ${EVENT_LOG_DAYS} days. A receiver that sees a gap in X-Service-Sequence fills it from here.`
      )
  )
  .annotate(OpenApi.Title, "Events")
  .addError(Forbidden)
  .middleware(Authentication)
