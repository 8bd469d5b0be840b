import { Errors, type NoSubscription, type PaymentFailed } from "./errors.js"

/**
 * Billing of a workspace (spec: "Billing states of a workspace" and the
 * `billing.changed` event values). The gate reads only `BillingState`.
 */
export type BillingState = "active" | "past_due" | "grace_over" | "ended"

export const billingEvents = [
  "activated",
  "changed",
  "renewed",
  "trial_plan",
  "downgrade_scheduled",
  "change_canceled",
  "cancel_scheduled",
  "resumed",
  "past_due",
  "grace_reminder",
  "grace_over",
  "ended"
] as const

export type BillingEvent = (typeof billingEvents)[number]

export const isBillingEvent = (s: string): s is BillingEvent => (billingEvents as ReadonlyArray<string>).includes(s)

export const plans = ["standard", "team", "pro", "ultimate"] as const
export type Plan = (typeof plans)[number]
export const isPlan = (s: string): s is Plan => (plans as ReadonlyArray<string>).includes(s)

export const GRACE_DAYS = 7
const GRACE_MS = GRACE_DAYS * 24 * 3600 * 1000

/** The state a billing event leaves the workspace in. */
export const billingStateAfter = (current: BillingState, event: BillingEvent): BillingState => {
  switch (event) {
    case "activated":
    case "changed":
    case "renewed":
    case "resumed":
      return "active"
    case "past_due":
      // a further failed payment does not restart a grace that is already over
      return current === "grace_over" ? current : "past_due"
    case "grace_reminder":
      return current === "active" ? "past_due" : current
    case "grace_over":
      return "grace_over"
    case "ended":
      return "ended"
    // scheduled changes and trial picks change nothing now
    case "trial_plan":
    case "downgrade_scheduled":
    case "change_canceled":
    case "cancel_scheduled":
      return current
  }
}

/** When a `past_due` workspace's 7 days of grace end. */
export const graceEndsAt = (pastDueSince: Date): Date => new Date(pastDueSince.getTime() + GRACE_MS)

/**
 * The billing gate: every API call of a workspace without a plan answers 401
 * no_subscription; after the grace of a failed payment, 402 payment_failed.
 */
export const billingGate = (state: BillingState, pastDueSince: Date | null, now: Date): NoSubscription | PaymentFailed | null => {
  switch (state) {
    case "ended":
      return Errors.noSubscription()
    case "grace_over":
      return Errors.paymentFailed()
    case "past_due":
      return pastDueSince !== null && now >= graceEndsAt(pastDueSince) ? Errors.paymentFailed() : null
    case "active":
      return null
  }
}

/** Whether publishing is paused by billing (held items wait). */
export const publishingPaused = (state: BillingState, pastDueSince: Date | null, now: Date): boolean =>
  billingGate(state, pastDueSince, now) !== null
