import { Errors, type PlanLimit } from "./errors.js"
import type { Plan } from "./billing.js"

/**
 * What each plan allows (spec: Status 402 "Plan limit (for example more channels than the
 * plan allows)", 403 "access is paused because the plan has no team"). The spec names the
 * webhook counts; the channel counts and which plans have a team are this service's
 * choice, documented in docs/features.md, "Plans": Standard is one person's plan.
 */
export const planLimits = {
  standard: { channels: 10, team: false },
  team: { channels: 25, team: true },
  pro: { channels: 50, team: true },
  ultimate: { channels: 500, team: true }
} as const satisfies Record<Plan, { readonly channels: number; readonly team: boolean }>

const planName = (plan: Plan) => plan.charAt(0).toUpperCase() + plan.slice(1)

/** Whether people other than the owner may work in a workspace on this plan. */
export const planHasTeam = (plan: Plan): boolean => planLimits[plan].team

/** 402 when one more channel would exceed the plan (reconnecting an existing channel is always fine). */
export const checkChannelLimit = (plan: Plan, channelsNow: number): PlanLimit | null =>
  channelsNow + 1 > planLimits[plan].channels
    ? Errors.planLimit(
        `This workspace has ${channelsNow} channels, the most the ${planName(plan)} plan allows.`,
        "Choose a larger plan on the Billing page, or disconnect a channel you no longer use, then connect this one again."
      )
    : null
