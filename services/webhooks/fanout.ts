import { Effect, Schema } from "effect"
import { MAX_ATTEMPTS, pausedReason, receives, type EventChannels } from "../../domain/webhooks.js"
import { ServiceEvent, type EventMessage } from "../../protocol/events.js"
import type { DeliveriesRepo } from "./deliveriesRepo.js"
import type { WebhooksRepo } from "./webhooksRepo.js"
import { withSpan } from "../platform/tracing.js"

/** Which channels an event is about (the spec's channel filter); null: not about a channel. */
export const channelsOf = (e: ServiceEvent): EventChannels => {
  switch (e.event) {
    case "post.published":
    case "post.failed":
    case "post.unconfirmed":
    case "channel.disconnected":
    case "channel.expiring":
      return [e.data.channelId]
    case "approval.requested":
    case "approval.approved":
    case "approval.changes":
      return e.data.channelIds
    case "billing.changed":
    case "test":
      return null
  }
}

const encodeEvent = Schema.encode(ServiceEvent)

/**
 * One event from EVENTS: a delivery row per matching webhook (its events, its channels,
 * switched on, not paused by the plan, made before the event), recorded before any
 * attempt; a redelivered event adds none. Answers the ids recorded now, for the caller to attempt at once.
 */
export const fanOut = (message: EventMessage, deps: { readonly repo: WebhooksRepo; readonly store: DeliveriesRepo }) =>
  Effect.gen(function* () {
    // `test` is the Send Test action's, never an outbox event
    if (message.event === "test") return []
    const webhooks = yield* deps.repo.list(message.workspaceId)
    const about = channelsOf(message)
    // a webhook gets what happened after it was made: a consumer catching up on a backlog
    // (a new deployment, a long outage) does not send it older events
    const targets = webhooks.filter(
      (w) => w.createdAt <= message.createdAt && w.active && pausedReason(w.plan, w.rank) === null && receives(w, message.event, about)
    )
    if (targets.length === 0) return []
    // the data exactly as the outbox encoded it (same schema)
    const encoded = yield* encodeEvent(message).pipe(Effect.orDie)
    const data = JSON.stringify(encoded.data)
    return yield* deps.store.insert(
      targets.map((w) => ({
        workspaceId: message.workspaceId,
        webhookId: w.id,
        eventId: message.id,
        event: message.event,
        data,
        eventCreatedAt: message.createdAt,
        maxAttempts: MAX_ATTEMPTS
      }))
    )
  }).pipe(withSpan("webhooks.fanOut", { attributes: { eventId: message.id, event: message.event } }))
