import { Schema } from "effect"
import { billingEvents, plans } from "../domain/billing.js"

/**
 * The events of the spec ("Events" → "The 8 events", and the Send Test action's `test`),
 * and `channel.expiring` this service adds: one schema per event with exactly its data fields. Producers write them to the outbox
 * through one writer (services/platform/outbox.ts), which encodes them with these schemas;
 * the webhook dispatcher decodes `EventMessage` from EVENTS with the same schemas.
 */

/** A UTC timestamp: a Date inside, an ISO 8601 string (`…Z`) in the payload. */
const UtcTimestamp = Schema.Date

const Id = Schema.String
/** A plain-language sentence (error, fix). */
const Sentence = Schema.String

// ---- data of each event -------------------------------------------------------------------

/** A post went live on one channel; once per channel, not for follow-up comments. */
export const PostPublished = Schema.Struct({
  postId: Id,
  content: Schema.String,
  groupId: Id,
  provider: Schema.String,
  channelId: Id,
  releaseId: Schema.String,
  releaseUrl: Schema.String,
  publishedAt: UtcTimestamp
})

/** A post failed on one channel and will not be retried on its own. */
export const PostFailed = Schema.Struct({
  fix: Sentence,
  error: Sentence,
  postId: Id,
  groupId: Id,
  provider: Schema.String,
  channelId: Id
})

/** The network did not answer and a search did not find the post; it is not sent again. */
export const PostUnconfirmed = PostFailed

/** A post was sent for approval (type review, or a customer needing approval). */
export const ApprovalRequested = Schema.Struct({
  groupId: Id,
  publishAt: UtcTimestamp,
  channelIds: Schema.Array(Id),
  previewUrl: Schema.String,
  requestedBy: Schema.String,
  approvalStatus: Schema.Literal("requested")
})

/** The client or an admin approved. */
export const ApprovalApproved = Schema.Struct({
  groupId: Id,
  publishAt: UtcTimestamp,
  approvedBy: Schema.String,
  channelIds: Schema.Array(Id),
  previewUrl: Schema.String,
  approvalStatus: Schema.Literal("approved")
})

/** The client asked for changes. */
export const ApprovalChanges = Schema.Struct({
  /** What to change. */
  comment: Schema.String,
  groupId: Id,
  publishAt: UtcTimestamp,
  channelIds: Schema.Array(Id),
  previewUrl: Schema.String,
  requestedBy: Schema.String,
  approvalStatus: Schema.Literal("changes")
})

/** The regular token refresh for a channel failed; it must be reconnected before posting. */
export const ChannelDisconnected = Schema.Struct({
  channelId: Id,
  provider: Schema.String,
  name: Schema.String
})

/**
 * Beyond the spec: the channel's token expires within CHANNEL_EXPIRY_WARNING_DAYS; once
 * per expiry (a refreshed token's new expiry can be warned about again).
 */
export const ChannelExpiring = Schema.Struct({
  channelId: Id,
  provider: Schema.String,
  name: Schema.String,
  expiresAt: UtcTimestamp
})

/**
 * The workspace plan changed. The spec does not say which billing events carry amount,
 * period, currency and periodEnd: they may be missing or null.
 */
export const BillingChanged = Schema.Struct({
  plan: Schema.Literal(...plans),
  /** true in billing test mode. */
  test: Schema.Boolean,
  event: Schema.Literal(...billingEvents),
  amount: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true }),
  period: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  currency: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  periodEnd: Schema.optionalWith(Schema.NullOr(UtcTimestamp), { exact: true })
})

/** The Send Test action of a webhook; not selectable as an event. */
export const TestEvent = Schema.Struct({ message: Schema.String })

// ---- the events: name and data -------------------------------------------------------------

const event = <const Name extends string, Data extends Schema.Schema.Any>(name: Name, data: Data) =>
  Schema.Struct({ event: Schema.Literal(name), data })

export const ServiceEvent = Schema.Union(
  event("post.published", PostPublished),
  event("post.failed", PostFailed),
  event("post.unconfirmed", PostUnconfirmed),
  event("approval.requested", ApprovalRequested),
  event("approval.approved", ApprovalApproved),
  event("approval.changes", ApprovalChanges),
  event("channel.disconnected", ChannelDisconnected),
  event("billing.changed", BillingChanged),
  event("channel.expiring", ChannelExpiring),
  event("test", TestEvent)
)
export type ServiceEvent = typeof ServiceEvent.Type
export type EventName = ServiceEvent["event"]
/** One event by its name: `EventOf<"post.failed">["data"]` is the data of post.failed. */
export type EventOf<Name extends EventName> = Extract<ServiceEvent, { readonly event: Name }>

/** The 9 events a webhook can subscribe to: the spec's 8 in its order, then channel.expiring (beyond the spec). */
export const eventNames = [
  "post.published",
  "post.failed",
  "post.unconfirmed",
  "approval.requested",
  "approval.approved",
  "approval.changes",
  "channel.disconnected",
  "billing.changed",
  "channel.expiring"
] as const satisfies ReadonlyArray<EventName>
export type SubscribableEvent = (typeof eventNames)[number]

/** The Send Test action's event name. */
export const TEST_EVENT = "test" satisfies EventName

export const isSubscribableEvent = (s: string): s is SubscribableEvent => (eventNames as ReadonlyArray<string>).includes(s)

// ---- the message on JetStream EVENTS --------------------------------------------------------

/**
 * One outbox row as published on EVENTS (`Nats-Msg-Id` = id, so a repeat is dropped);
 * `createdAt` is when the event happened (the row was written).
 */
export const EventMessage = Schema.extend(Schema.Struct({ id: Id, workspaceId: Id, createdAt: UtcTimestamp }), ServiceEvent)
export type EventMessage = typeof EventMessage.Type

/** EVENTS message bytes (JSON text) ↔ EventMessage. */
export const EventMessageJson = Schema.parseJson(EventMessage)
