import { Either } from "effect"
import { statusOf } from "../../protocol/http/errors.js"
import { describe, expect, it } from "vitest"
import {
  allowedPhases,
  applyBillingEvent,
  billingEvents,
  billingGate,
  graceEndsAt,
  phaseOf,
  plans,
  publishingPaused,
  releasesHolds,
  startTrial,
  type BillingAccount,
  type BillingEvent,
  type BillingPhase
} from "../../domain/billing.js"
import { checkChannelLimit, planHasTeam, planLimits } from "../../domain/plans.js"

/** Spec: States → "Billing states of a workspace", the `billing.changed` data.event values, Limits 13. */

const DAY = 24 * 3600 * 1000
const now = new Date("2026-03-10T12:00:00.000Z")

const paid: BillingAccount = {
  state: "active",
  plan: "team",
  trialEndsAt: null,
  pendingPlan: null,
  cancelAtPeriodEnd: false,
  periodEnd: null,
  pastDueSince: null
}
const accounts: Record<BillingPhase, BillingAccount> = {
  trial: startTrial("standard", now),
  paid,
  past_due: { ...paid, state: "past_due", pastDueSince: new Date(now.getTime() - DAY) },
  grace_over: { ...paid, state: "grace_over", pastDueSince: new Date(now.getTime() - 8 * DAY) },
  ended: { ...paid, state: "ended" }
}
const apply = (a: BillingAccount, event: BillingEvent, plan: BillingAccount["plan"] | null = null) =>
  applyBillingEvent(a, { event, plan, periodEnd: null }, now)

describe("applyBillingEvent: the 12 billing.changed events as a state machine", () => {
  it("knows exactly the spec's 12 events", () => {
    expect([...billingEvents].sort()).toEqual(
      [
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
      ].sort()
    )
  })

  it("a trial lasts 7 days", () => {
    expect(startTrial("team", now).trialEndsAt?.toISOString()).toBe("2026-03-17T12:00:00.000Z")
    expect(phaseOf(startTrial("team", now))).toBe("trial")
  })

  // every (phase, event) pair: allowed ones move on, the others are refused with the phase named and nothing changed
  const pairs = (Object.keys(accounts) as ReadonlyArray<BillingPhase>).flatMap((phase) => billingEvents.map((event) => [phase, event] as const))
  it.each(pairs)("%s + %s", (phase, event) => {
    const before = {
      ...accounts[phase],
      pendingPlan: event === "change_canceled" ? ("standard" as const) : null,
      cancelAtPeriodEnd: event === "resumed"
    }
    const result = apply(before, event, event === "trial_plan" ? "pro" : null)
    if (allowedPhases[event].includes(phase)) {
      expect(Either.isRight(result)).toBe(true)
    } else {
      expect(Either.getLeft(result).pipe((l) => l._tag === "Some" && l.value.message.startsWith(`${event} cannot happen now`))).toBe(true)
    }
  })

  it.each([
    ["trial", "activated", "paid"],
    ["past_due", "renewed", "paid"],
    ["grace_over", "renewed", "paid"],
    ["grace_over", "activated", "paid"],
    ["grace_over", "changed", "paid"],
    ["ended", "activated", "paid"],
    ["paid", "past_due", "past_due"],
    ["past_due", "grace_over", "grace_over"],
    ["trial", "ended", "ended"],
    ["paid", "ended", "ended"]
  ] as const)("%s + %s → %s", (from, event, to) => {
    expect(Either.map(apply(accounts[from], event), phaseOf)).toEqual(Either.right(to))
  })

  it("out of order: grace_over without a failed payment, resumed without a cancellation, renewed while cancelled", () => {
    expect(Either.getLeft(apply(paid, "grace_over")).pipe((l) => l._tag === "Some" && l.value.message)).toBe(
      "grace_over cannot happen now: the workspace is on a paid plan. It applies to a workspace in the 7-day grace after a failed payment."
    )
    expect(Either.isLeft(apply(paid, "resumed"))).toBe(true)
    expect(Either.isLeft(apply({ ...paid, cancelAtPeriodEnd: true }, "renewed"))).toBe(true)
    expect(Either.isLeft(apply(paid, "change_canceled"))).toBe(true)
    expect(Either.isLeft(apply(paid, "downgrade_scheduled", "ultimate"))).toBe(true)
  })

  it("a further failed payment keeps the grace's start", () => {
    const again = apply(accounts.past_due, "past_due")
    expect(Either.map(again, (a) => a.pastDueSince)).toEqual(Either.right(accounts.past_due.pastDueSince))
  })

  it("a plan picked during the trial starts with activated", () => {
    const picked = Either.getOrThrow(apply(accounts.trial, "trial_plan", "pro"))
    expect(picked.pendingPlan).toBe("pro")
    expect(phaseOf(picked)).toBe("trial")
    const started = Either.getOrThrow(apply(picked, "activated"))
    expect([started.plan, started.pendingPlan, phaseOf(started)]).toEqual(["pro", null, "paid"])
  })

  it("a scheduled downgrade takes effect with changed; change_canceled drops it", () => {
    const scheduled = Either.getOrThrow(apply(paid, "downgrade_scheduled", "standard"))
    expect([scheduled.plan, scheduled.pendingPlan]).toEqual(["team", "standard"])
    expect(Either.getOrThrow(apply(scheduled, "changed")).plan).toBe("standard")
    expect(Either.getOrThrow(apply(scheduled, "change_canceled")).pendingPlan).toBeNull()
  })

  it("payments release held posts; pauses do not", () => {
    expect(releasesHolds(accounts.grace_over, Either.getOrThrow(apply(accounts.grace_over, "renewed")), now)).toBe(true)
    expect(releasesHolds(accounts.ended, Either.getOrThrow(apply(accounts.ended, "activated")), now)).toBe(true)
    expect(releasesHolds(accounts.past_due, Either.getOrThrow(apply(accounts.past_due, "grace_over")), now)).toBe(false)
  })
})

describe("plan limits (domain/plans.ts)", () => {
  it("channels per plan: 402 with a fix one over the limit", () => {
    expect(checkChannelLimit("standard", planLimits.standard.channels - 1)).toBeNull()
    const e = checkChannelLimit("standard", planLimits.standard.channels)
    expect(e === null ? null : [statusOf(e), e.error]).toEqual([402, "This workspace has 10 channels, the most the Standard plan allows."])
    expect(e?.fix).toMatch(/larger plan/)
  })
  it("only Standard has no team", () => {
    expect(plans.filter((p) => !planHasTeam(p))).toEqual(["standard"])
  })
})

describe("billingGate: what every API call answers", () => {
  const ago = (ms: number) => new Date(now.getTime() - ms)

  it("active: no gate", () => {
    expect(billingGate("active", null, now)).toBeNull()
  })

  it("ended: 401 No subscription found, code no_subscription, with a fix", () => {
    const e = billingGate("ended", null, now)
    expect(e).not.toBeNull()
    expect(statusOf(e!)).toBe(401)
    expect(e!.error).toBe("No subscription found")
    expect(e!.code).toBe("no_subscription")
    expect(e!.fix).toMatch(/Billing page/)
    expect(e!.fix).toMatch(/Nothing was deleted/)
  })

  it("grace_over: 402 payment failed, code payment_failed, with a fix", () => {
    const e = billingGate("grace_over", null, now)
    expect(statusOf(e!)).toBe(402)
    expect(e!.error).toBe("Publishing is paused because the last payment failed.")
    expect(e!.code).toBe("payment_failed")
    expect(e!.fix).toMatch(/pay the open invoice/)
  })

  it.each([
    ["just now", 0],
    ["3 days ago", 3 * DAY],
    ["a minute short of 7 days ago", 7 * DAY - 60_000]
  ])("past_due since %s: still works (7 days of grace)", (_when, ms) => {
    expect(billingGate("past_due", ago(ms), now)).toBeNull()
  })

  it.each([
    ["a minute over 7 days ago", 7 * DAY + 60_000],
    ["8 days ago", 8 * DAY],
    ["30 days ago", 30 * DAY]
  ])("past_due since %s: 402 payment_failed even before grace_over arrives", (_when, ms) => {
    const e = billingGate("past_due", ago(ms), now)
    expect(e === null ? null : statusOf(e)).toBe(402)
    expect(e?.code).toBe("payment_failed")
  })

  it("past_due without a start time: no gate", () => {
    expect(billingGate("past_due", null, now)).toBeNull()
  })

  it("graceEndsAt is 7 days after the failed payment", () => {
    expect(graceEndsAt(new Date("2026-03-01T10:00:00.000Z")).toISOString()).toBe("2026-03-08T10:00:00.000Z")
  })

  it("publishing is paused exactly when the gate answers", () => {
    expect(publishingPaused("active", null, now)).toBe(false)
    expect(publishingPaused("past_due", ago(DAY), now)).toBe(false)
    expect(publishingPaused("past_due", ago(8 * DAY), now)).toBe(true)
    expect(publishingPaused("grace_over", null, now)).toBe(true)
    expect(publishingPaused("ended", null, now)).toBe(true)
  })
})
