import { statusOf } from "../../protocol/http/errors.js"
import { describe, expect, it } from "vitest"
import {
  billingEvents,
  billingGate,
  billingStateAfter,
  graceEndsAt,
  publishingPaused,
  type BillingEvent,
  type BillingState
} from "../../domain/billing.js"

/** Spec: States → "Billing states of a workspace" and the `billing.changed` data.event values. */

const states: ReadonlyArray<BillingState> = ["active", "past_due", "grace_over", "ended"]
const DAY = 24 * 3600 * 1000

describe("billingStateAfter: every billing.changed event", () => {
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

  // From an active workspace, what each event leaves it in.
  const fromActive: ReadonlyArray<readonly [BillingEvent, BillingState, string]> = [
    ["activated", "active", "a plan started after payment"],
    ["changed", "active", "the plan changed now"],
    ["renewed", "active", "the plan renewed and was paid"],
    ["trial_plan", "active", "a plan picked during the trial starts later"],
    ["downgrade_scheduled", "active", "a smaller plan starts at the end of the period"],
    ["change_canceled", "active", "a scheduled change was cancelled"],
    ["cancel_scheduled", "active", "cancelled, but active until periodEnd"],
    ["resumed", "active", "a cancelled plan was resumed"],
    ["past_due", "past_due", "a payment failed: 7 days of grace"],
    ["grace_reminder", "past_due", "a reminder within the 7 days"],
    ["grace_over", "grace_over", "the 7 days are over"],
    ["ended", "ended", "the plan ended"]
  ]

  it.each(fromActive)("active + %s → %s (%s)", (event, expected) => {
    expect(billingStateAfter("active", event)).toBe(expected)
  })

  it("covers every event from an active workspace", () => {
    expect(fromActive.map(([e]) => e).sort()).toEqual([...billingEvents].sort())
  })

  it.each(["activated", "changed", "renewed", "resumed"] as const)("%s lifts every paused state back to active", (event) => {
    for (const state of states) expect(billingStateAfter(state, event)).toBe("active")
  })

  it.each(["trial_plan", "downgrade_scheduled", "change_canceled", "cancel_scheduled"] as const)(
    "%s changes nothing now, in any state",
    (event) => {
      for (const state of states) expect(billingStateAfter(state, event)).toBe(state)
    }
  )

  it("ended: no plan, from any state", () => {
    for (const state of states) expect(billingStateAfter(state, "ended")).toBe("ended")
  })

  it("grace_over: from the grace (past_due) to payment_failed", () => {
    expect(billingStateAfter("past_due", "grace_over")).toBe("grace_over")
  })

  it("grace_reminder keeps the grace, and does not lift a grace that is over or a plan that ended", () => {
    expect(billingStateAfter("past_due", "grace_reminder")).toBe("past_due")
    expect(billingStateAfter("grace_over", "grace_reminder")).toBe("grace_over")
    expect(billingStateAfter("ended", "grace_reminder")).toBe("ended")
  })

  it("past_due from an active workspace starts the grace", () => {
    expect(billingStateAfter("active", "past_due")).toBe("past_due")
    expect(billingStateAfter("past_due", "past_due")).toBe("past_due")
  })
})

describe("billingGate: what every API call answers", () => {
  const now = new Date("2026-03-10T12:00:00.000Z")
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
