import { Effect, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import type { ChannelId } from "../../domain/ids.js"
import {
  checkTzOffset,
  findFreeSlot,
  localZoneFor,
  LOOKAHEAD_DAYS,
  minuteOf,
  noFreeSlotFix,
  noFreeSlotMessage,
  postingMinutes
} from "../../domain/slots/freeSlot.js"
import { isKnownZone } from "../../domain/slots/localTime.js"
import { isoUtc } from "../../domain/time.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { SlotsRepo } from "./slotsRepo.js"
import { withSpan } from "../platform/tracing.js"

/** What a caller asks: one channel or all of them, and an optional fixed offset. */
export interface FreeSlotQuery {
  readonly channelId: Option.Option<ChannelId>
  /** Minutes to add to UTC to get local time (-840..840); none: the profile's time zone. */
  readonly tzOffsetMinutes: Option.Option<number>
}

/**
 * Free slots as every edge sees them: GET /find-slot, GET /find-slot/{id} and the MCP tool
 * `find_free_slot` call `find` (spec rule 5: the same answer for the same input). The
 * rules are domain/slots/freeSlot.ts; this reads what they need for the current principal.
 */
export class FreeSlots extends Effect.Service<FreeSlots>()("slots/FreeSlots", {
  effect: Effect.gen(function* () {
    const channels = yield* ChannelsRepo
    const repo = yield* SlotsRepo

    const find = (query: FreeSlotQuery) =>
      Effect.gen(function* () {
        const principal = yield* CurrentPrincipal
        const { workspaceId } = principal
        const offset = yield* Option.match(query.tzOffsetMinutes, {
          onNone: () => Effect.succeed(Option.none<number>()),
          onSome: (m) => Effect.map(checkTzOffset(m), Option.some)
        })
        const chosen = yield* Option.match(query.channelId, {
          onNone: () => channels.list({ workspaceId, customerId: null }),
          onSome: (id) =>
            channels.findById({ workspaceId, id }).pipe(
              Effect.map(Option.match({ onNone: () => [], onSome: (c) => [c] })),
              Effect.flatMap((found) => (found.length === 0 ? Effect.fail(Errors.channelNotFound()) : Effect.succeed(found)))
            )
        }).pipe(storageDefects)
        const zoneName = Option.isSome(offset)
          ? null
          : ((yield* repo.profileTimeZone({ workspaceId, userId: principal.userId }).pipe(storageDefects))[0]?.timezone ?? null)
        const now = new Date()
        const taken =
          chosen.length === 0
            ? []
            : yield* repo
                .takenTimes({
                  workspaceId,
                  channelIds: chosen.map((c) => c.id),
                  from: new Date(now.getTime() - 60_000),
                  to: new Date(now.getTime() + (LOOKAHEAD_DAYS + 1) * 86_400_000)
                })
                .pipe(storageDefects)
        const slot = findFreeSlot({
          now,
          zone: localZoneFor(offset, zoneName, isKnownZone),
          postingMinutes: postingMinutes(chosen),
          taken: new Set(taken.map((t) => minuteOf(t.publishDate.getTime())))
        })
        if (Option.isNone(slot)) return yield* Effect.fail(Errors.badRequest(noFreeSlotMessage, noFreeSlotFix))
        return { date: isoUtc(slot.value) }
      }).pipe(withSpan("FreeSlots.find"), policyRequire("channels.read"))

    return { find }
  }),
  dependencies: [ChannelsRepo.Live, SlotsRepo.Live]
}) {}
