import { GRACE_DAYS, type BillingEvent } from "./billing.js"

/**
 * Which event makes which notification (spec "Notification", GET /notifications): the one
 * place that decides it. Notifications are derived from the events a change writes, in
 * the same transaction, so a notification exists exactly when its event does.
 */

export type NotificationType = "success" | "fail" | "info"

export interface Notification {
  readonly type: NotificationType
  readonly title: string
  readonly body: string
  /** A path inside the app. */
  readonly link: string
}

/**
 * What a notification reads of an event: the events of protocol/events.ts fit this shape
 * (domain does not import protocol). An event added there without a line here does not
 * compile in the outbox writer.
 */
export type EventForNotification =
  | {
      readonly event: "post.published"
      readonly data: { readonly groupId: string; readonly channelId: string; readonly releaseUrl: string }
    }
  | {
      readonly event: "post.failed" | "post.unconfirmed"
      readonly data: { readonly groupId: string; readonly channelId: string; readonly error: string }
    }
  | {
      readonly event: "approval.changes"
      readonly data: { readonly groupId: string; readonly requestedBy: string; readonly comment: string }
    }
  | { readonly event: "channel.disconnected"; readonly data: { readonly channelId: string; readonly name: string } }
  | { readonly event: "channel.expiring"; readonly data: { readonly channelId: string; readonly name: string; readonly expiresAt: Date } }
  | { readonly event: "billing.changed"; readonly data: { readonly event: BillingEvent } }
  | { readonly event: "approval.requested" | "approval.approved" | "test"; readonly data: unknown }

/** Events whose notification names a channel by id: the writer looks its name up. */
export const channelNamedBy = (e: EventForNotification): string | null => {
  switch (e.event) {
    case "post.published":
    case "post.failed":
    case "post.unconfirmed":
      return e.data.channelId
    default:
      return null
  }
}

const postLink = (groupId: string) => `/posts/${groupId}`
const BILLING_LINK = "/billing"

/**
 * The notification an event makes, if any. `channelName` is the name of the channel the
 * event names (channelNamedBy), when it still exists.
 */
export const notificationFor = (e: EventForNotification, channelName: string | undefined): Notification | null => {
  const channel = channelName ?? "a channel that was removed"
  switch (e.event) {
    case "post.published":
      return { type: "success", title: `A post went live on ${channel}`, body: `It is live at ${e.data.releaseUrl}.`, link: postLink(e.data.groupId) }
    case "post.failed":
      return { type: "fail", title: `A post failed on ${channel}`, body: e.data.error, link: postLink(e.data.groupId) }
    case "post.unconfirmed":
      return { type: "fail", title: `A post on ${channel} could not be confirmed`, body: e.data.error, link: postLink(e.data.groupId) }
    case "approval.changes":
      return { type: "info", title: `${e.data.requestedBy} asked for changes`, body: e.data.comment, link: postLink(e.data.groupId) }
    case "channel.disconnected":
      return {
        type: "fail",
        title: `${e.data.name} was disconnected`,
        body: "Its sign-in could not be renewed. Reconnect the channel; its posts do not go out until then.",
        link: `/channels/${e.data.channelId}`
      }
    case "channel.expiring":
      return {
        type: "info",
        title: `${e.data.name}'s sign-in expires soon`,
        body:
          `It expires at ${e.data.expiresAt.toISOString()}. If the network does not renew it by then, the channel is disconnected ` +
          "and its posts do not go out: reconnect it before then to be sure.",
        link: `/channels/${e.data.channelId}`
      }
    case "billing.changed":
      return billingNotification(e.data.event)
    case "approval.requested":
    case "approval.approved":
    case "test":
      return null
  }
}

const billingNotification = (event: BillingEvent): Notification | null => {
  switch (event) {
    case "past_due":
      return {
        type: "fail",
        title: "A payment failed",
        body: `Everything keeps working for ${GRACE_DAYS} days. Update your payment method to keep publishing after that.`,
        link: BILLING_LINK
      }
    case "grace_reminder":
      return {
        type: "info",
        title: "A payment is still open",
        body: `Publishing pauses when the ${GRACE_DAYS} days after the failed payment are over. Update your payment method.`,
        link: BILLING_LINK
      }
    case "grace_over":
      return {
        type: "fail",
        title: "Publishing is paused",
        body: `The ${GRACE_DAYS} days after the failed payment are over. Pay the open invoice to publish again.`,
        link: BILLING_LINK
      }
    case "ended":
      return {
        type: "info",
        title: "Your plan ended",
        body: "Publishing is paused until you pick a plan.",
        link: BILLING_LINK
      }
    case "activated":
    case "changed":
    case "renewed":
    case "trial_plan":
    case "downgrade_scheduled":
    case "change_canceled":
    case "cancel_scheduled":
    case "resumed":
      return null
  }
}
