import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { PublicApi } from "../../../protocol/http/api.js"
import { authorize } from "../../platform/policy.js"
import { EventLog } from "../../webhooks/EventLog.js"

/** The event log: contract → EventLog.list. */
export const EventsHttpLive = HttpApiBuilder.group(PublicApi, "events", (handlers) =>
  Effect.map(EventLog, (log) =>
    handlers.handle("listEvents", ({ urlParams }) => log.list({ after: urlParams.after, limit: urlParams.limit }).pipe(authorize("webhooks.manage")))
  )
)
