import { Schema } from "effect"
import { Uuid } from "../../domain/ids.js"

/**
 * The app's webhook API at /api/webhooks (spec: Webhook management; not part of the
 * /public/v1 API, so not in its OpenAPI document): the answers (Webhook, Webhook
 * delivery) and the bodies of create and update. Bodies are decoded with these schemas;
 * event names and URLs are checked by the Webhooks service, which says what is wrong.
 */

/** Webhook (app API). `secret` only for owners and admins. */
export const Webhook = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  channelIds: Schema.Array(Schema.String),
  active: Schema.Boolean,
  pausedReason: Schema.NullOr(Schema.String),
  secret: Schema.optional(Schema.String),
  createdAt: Schema.String
})
export type Webhook = typeof Webhook.Type

/** Webhook delivery (log entry): one attempt. */
export const WebhookDelivery = Schema.Struct({
  id: Schema.String,
  /** The delivery this attempt belongs to: the `webhook-id` it carried (POST …/deliveries/{deliveryId}/redeliver). */
  deliveryId: Schema.String,
  createdAt: Schema.String,
  event: Schema.String,
  status: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  attempt: Schema.Int,
  ok: Schema.Boolean
})
export type WebhookDelivery = typeof WebhookDelivery.Type

const Name = Schema.String.pipe(
  Schema.trimmed({ message: () => "name must not start or end with spaces." }),
  Schema.minLength(1, { message: () => "name must not be empty." }),
  Schema.maxLength(100, { message: () => "name must be at most 100 characters." })
)
const Url = Schema.String.pipe(Schema.maxLength(2048, { message: () => "url must be at most 2048 characters." }))
const Events = Schema.Array(Schema.String).pipe(Schema.maxItems(20))
const ChannelIds = Schema.Array(Uuid).pipe(Schema.maxItems(1000))

/** POST /api/webhooks. */
export const CreateWebhookBody = Schema.Struct({
  name: Name,
  url: Url,
  events: Schema.optionalWith(Events, { default: () => [] }),
  channelIds: Schema.optionalWith(ChannelIds, { default: () => [] }),
  active: Schema.optionalWith(Schema.Boolean, { default: () => true })
})
export type CreateWebhookBody = typeof CreateWebhookBody.Type

/** POST /api/webhooks/{id}/replay: every matching event after this sequence number is sent again. */
export const ReplayBody = Schema.Struct({ after: Schema.Union(Schema.Number, Schema.String) })
export type ReplayBody = typeof ReplayBody.Type

/** PUT /api/webhooks/{id}: the fields given change, the others stay. */
export const UpdateWebhookBody = Schema.Struct({
  name: Schema.optional(Name),
  url: Schema.optional(Url),
  events: Schema.optional(Events),
  channelIds: Schema.optional(ChannelIds),
  active: Schema.optional(Schema.Boolean)
})
export type UpdateWebhookBody = typeof UpdateWebhookBody.Type
