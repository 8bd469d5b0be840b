import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { MAX_TZ_OFFSET, MIN_TZ_OFFSET } from "../../domain/slots/freeSlot.js"
import { IdParam } from "./common.js"
import { ChannelNotFound, Forbidden, InvalidId, InvalidRequest } from "./errors.js"
import { Authentication } from "./security.js"

/** The query of both find-slot endpoints; the offset is read by domain/slots/freeSlot.ts for its own 400 text. */
export const FindSlotParams = Schema.Struct({
  tzOffsetMinutes: Schema.optional(
    Schema.String.annotations({
      description:
        `Integer, ${MIN_TZ_OFFSET} to ${MAX_TZ_OFFSET}: minutes to add to UTC to get local time. Default: the ` +
        `time zone of the key owner's profile (daylight saving followed), UTC when none is set`
    })
  )
})

export const FreeSlot = Schema.Struct({ date: Schema.String.annotations({ description: "UTC timestamp" }) }).annotations({ identifier: "FreeSlot" })

const rules =
  "The earliest of the channels' posting times (local times of day; 9:00 for a channel without any) that is at " +
  "least 5 minutes from now, at most 90 days ahead, and not taken by a queued or draft post of those channels " +
  "(compared to the minute)."

export const SlotsApi = HttpApiGroup.make("slots")
  .add(
    HttpApiEndpoint.get("findSlot", "/find-slot")
      .setUrlParams(FindSlotParams)
      .addSuccess(FreeSlot)
      .addError(InvalidRequest)
      .annotate(OpenApi.Summary, "Next free time, any channel")
      .annotate(OpenApi.Description, rules)
  )
  .add(
    HttpApiEndpoint.get("findSlotForChannel", "/find-slot/:id")
      .setPath(IdParam)
      .setUrlParams(FindSlotParams)
      .addSuccess(FreeSlot)
      .addError(InvalidRequest)
      .addError(InvalidId)
      .addError(ChannelNotFound)
      .annotate(OpenApi.Summary, "Next free time, one channel")
      .annotate(OpenApi.Description, rules)
  )
  .annotate(OpenApi.Title, "Free slots")
  .addError(Forbidden)
  .middleware(Authentication)
