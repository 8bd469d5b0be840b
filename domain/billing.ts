import { Either } from "effect"
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

/** Spec Limits 13: a 7-day free trial. */
export const TRIAL_DAYS = 7
const DAY_MS = 24 * 3600 * 1000

export const billingPeriods = ["month", "year"] as const
export type BillingPeriod = (typeof billingPeriods)[number]
export const isBillingPeriod = (s: string): s is BillingPeriod => (billingPeriods as ReadonlyArray<string>).includes(s)

/**
 * A workspace's billing as the state machine sees it. `state` is what the gate reads; a
 * trial is an active workspace with `trialEndsAt` set (no plan paid yet). `pendingPlan` is
 * a plan picked during the trial or a smaller plan scheduled for the end of the period.
 */
export interface BillingAccount {
  readonly state: BillingState
  readonly plan: Plan
  readonly trialEndsAt: Date | null
  readonly pendingPlan: Plan | null
  readonly cancelAtPeriodEnd: boolean
  readonly periodEnd: Date | null
  readonly pastDueSince: Date | null
}

/** Where the workspace stands, in words the transitions are written in. */
export type BillingPhase = "trial" | "paid" | "past_due" | "grace_over" | "ended"

export const phaseOf = (a: BillingAccount): BillingPhase => (a.state === "active" ? (a.trialEndsAt !== null ? "trial" : "paid") : a.state)

/** One `billing.changed` event as the billing provider (or the admin CLI) reports it. */
export interface BillingChange {
  readonly event: BillingEvent
  readonly plan: Plan | null
  readonly periodEnd: Date | null
}

/** A workspace that starts with the 7-day trial. */
export const startTrial = (plan: Plan, now: Date): BillingAccount => ({
  state: "active",
  plan,
  trialEndsAt: new Date(now.getTime() + TRIAL_DAYS * DAY_MS),
  pendingPlan: null,
  cancelAtPeriodEnd: false,
  periodEnd: null,
  pastDueSince: null
})

const planRank = (p: Plan) => plans.indexOf(p)

/** Why an event cannot apply now (the account is left as it was). */
export type BillingRefusal = { readonly _tag: "BillingRefusal"; readonly message: string }
const refuse = (message: string): BillingRefusal => ({ _tag: "BillingRefusal", message })

/** Which phases each event may arrive in (spec: the `billing.changed` values, in their order). */
export const allowedPhases: Record<BillingEvent, ReadonlyArray<BillingPhase>> = {
  // a plan started after payment: ends a trial, or starts again after a plan ended or a failed payment
  activated: ["trial", "past_due", "grace_over", "ended"],
  // the plan changed now (an upgrade, or a scheduled change that took effect); paid
  changed: ["paid", "past_due", "grace_over"],
  renewed: ["paid", "past_due", "grace_over"],
  trial_plan: ["trial"],
  downgrade_scheduled: ["paid"],
  change_canceled: ["trial", "paid"],
  cancel_scheduled: ["paid"],
  resumed: ["paid"],
  // a further failed payment during the grace does not restart it
  past_due: ["paid", "past_due"],
  grace_reminder: ["past_due"],
  grace_over: ["past_due"],
  ended: ["trial", "paid", "past_due", "grace_over"]
}

const phaseWords: Record<BillingPhase, string> = {
  trial: "in its trial",
  paid: "on a paid plan",
  past_due: "in the 7-day grace after a failed payment",
  grace_over: "paused after the grace of a failed payment",
  ended: "without a plan"
}

/** What a paid plan looks like after a payment: no trial, no grace, no pending change. */
const paid = (a: BillingAccount, plan: Plan, periodEnd: Date | null): BillingAccount => ({
  state: "active",
  plan,
  trialEndsAt: null,
  pendingPlan: null,
  cancelAtPeriodEnd: false,
  periodEnd: periodEnd ?? a.periodEnd,
  pastDueSince: null
})

/**
 * The billing state machine: the account after `change`, or why the event is out of
 * order (the account unchanged). Payments (activated, changed, renewed, resumed) lift a
 * grace or a pause; nothing here ever deletes anything.
 */
export const applyBillingEvent = (a: BillingAccount, change: BillingChange, now: Date): Either.Either<BillingAccount, BillingRefusal> => {
  const phase = phaseOf(a)
  if (!allowedPhases[change.event].includes(phase)) {
    const expected = allowedPhases[change.event].map((p) => phaseWords[p]).join(", or ")
    return Either.left(refuse(`${change.event} cannot happen now: the workspace is ${phaseWords[phase]}. It applies to a workspace ${expected}.`))
  }
  switch (change.event) {
    case "activated":
    case "changed":
      return Either.right(paid(a, change.plan ?? a.pendingPlan ?? a.plan, change.periodEnd))
    case "renewed":
      if (a.cancelAtPeriodEnd)
        return Either.left(refuse("renewed cannot happen now: the plan is cancelled at the end of its period. Send resumed first."))
      return Either.right({ ...paid(a, change.plan ?? a.plan, change.periodEnd), pendingPlan: a.pendingPlan })
    case "trial_plan":
      if (change.plan === null) return Either.left(refuse("trial_plan needs --plan: the plan picked during the trial."))
      return Either.right({ ...a, pendingPlan: change.plan })
    case "downgrade_scheduled": {
      const plan = change.plan ?? a.plan
      if (planRank(plan) > planRank(a.plan)) {
        return Either.left(refuse(`downgrade_scheduled names a larger plan (${plan} after ${a.plan}). An upgrade takes effect now: send changed.`))
      }
      return Either.right({ ...a, pendingPlan: plan, periodEnd: change.periodEnd ?? a.periodEnd })
    }
    case "change_canceled":
      if (a.pendingPlan === null) return Either.left(refuse("change_canceled cannot happen now: no plan change is scheduled."))
      return Either.right({ ...a, pendingPlan: null })
    case "cancel_scheduled":
      if (a.cancelAtPeriodEnd)
        return Either.left(refuse("cancel_scheduled cannot happen now: the plan is already cancelled at the end of its period."))
      return Either.right({ ...a, cancelAtPeriodEnd: true, periodEnd: change.periodEnd ?? a.periodEnd })
    case "resumed":
      if (!a.cancelAtPeriodEnd) return Either.left(refuse("resumed cannot happen now: the plan is not cancelled."))
      return Either.right({ ...a, cancelAtPeriodEnd: false })
    case "past_due":
      return Either.right({ ...a, state: "past_due", pastDueSince: a.pastDueSince ?? now })
    case "grace_reminder":
      return Either.right(a)
    case "grace_over":
      return Either.right({ ...a, state: "grace_over" })
    case "ended":
      return Either.right({ ...a, state: "ended", trialEndsAt: null, pendingPlan: null, cancelAtPeriodEnd: false, pastDueSince: null })
  }
}

/** The plan `billing.changed` names: the one picked for trial_plan and downgrade_scheduled, else the workspace's. */
export const eventPlan = (after: BillingAccount, event: BillingEvent): Plan =>
  (event === "trial_plan" || event === "downgrade_scheduled") && after.pendingPlan !== null ? after.pendingPlan : after.plan

/** Whether a change lets a paused workspace publish again (its held items go out at once). */
export const releasesHolds = (before: BillingAccount, after: BillingAccount, now: Date): boolean =>
  publishingPaused(before.state, before.pastDueSince, now) && !publishingPaused(after.state, after.pastDueSince, now)

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
export const publishingPaused = (state: BillingState, pastDueSince: Date | null, now: Date): boolean => billingGate(state, pastDueSince, now) !== null
