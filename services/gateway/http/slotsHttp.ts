import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { ChannelId } from "../../../domain/ids.js"
import { parseTzOffset } from "../../../domain/slots/freeSlot.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { authorize } from "../../platform/policy.js"
import { FreeSlots } from "../../slots/FreeSlots.js"

/** The query's offset: absent, or a whole number in range (else the 400 naming the range). */
const offsetOf = (raw: string | undefined) =>
  raw === undefined ? Effect.succeed(Option.none<number>()) : Effect.map(parseTzOffset(raw), Option.some)

/** Free slots: contract → FreeSlots.find. */
export const SlotsHttpLive = HttpApiBuilder.group(PublicApi, "slots", (handlers) =>
  Effect.gen(function* () {
    const slots = yield* FreeSlots
    return handlers
      .handle("findSlot", ({ urlParams }) =>
        Effect.flatMap(offsetOf(urlParams.tzOffsetMinutes), (tzOffsetMinutes) => slots.find({ channelId: Option.none(), tzOffsetMinutes })).pipe(
          authorize("channels.read"),
          // no channel asked for: none can be missing
          Effect.catchTag("ChannelNotFound", Effect.die)
        )
      )
      .handle("findSlotForChannel", ({ path, urlParams }) =>
        Effect.flatMap(offsetOf(urlParams.tzOffsetMinutes), (tzOffsetMinutes) =>
          slots.find({ channelId: Option.some(ChannelId.make(path.id)), tzOffsetMinutes })
        ).pipe(authorize("channels.read"))
      )
  })
)
