import type { Plan } from "./billing.js"

/**
 * The spec's webhook rules ("Events" → Configuring a webhook, Delivery; Limits 12), as
 * data and pure functions: which webhook receives which event, how many a plan allows,
 * when the next attempt is due, how long the log is kept.
 */

/** Webhooks per workspace by plan. */
export const webhookLimits: Readonly<Record<Plan, number>> = { standard: 2, team: 10, pro: 30, ultimate: 10_000 }

const planNames: Readonly<Record<Plan, string>> = { standard: "Standard", team: "Team", pro: "Pro", ultimate: "Ultimate" }

/** The next plan up, named in the fix of a refusal (none above Ultimate). */
const nextPlan: Readonly<Record<Plan, Plan | null>> = { standard: "team", team: "pro", pro: "ultimate", ultimate: null }

/** Up to 6 attempts in total. */
export const MAX_ATTEMPTS = 6
/** The receiver must answer 2xx within 15 seconds. */
export const ATTEMPT_TIMEOUT_MS = 15_000
/** Up to 5 redirects, every address on the way public. */
export const MAX_REDIRECTS = 5
/** The delivery log shows the last 50 attempts. */
export const LOG_SHOWN = 50
/** Attempts are kept 30 days. */
export const LOG_RETENTION_DAYS = 30
/** The first wait (before attempt 2); each later wait doubles: 15 s, 30 s, 1 min, 2 min, 4 min. */
export const RETRY_BASE_MS = 15_000

/** How long to wait after failed attempt `attempt` (1-based) before the next one. */
export const waitAfterAttempt = (attempt: number, baseMs: number = RETRY_BASE_MS): number => baseMs * 2 ** (attempt - 1)

/** With no events chosen a webhook gets these. */
export const defaultEvents = ["post.published", "post.failed"] as const

/** The data of the Send Test action's `test` event. */
export const TEST_MESSAGE = "This is a test delivery from your webhook settings. If you can read this, the webhook works."

/**
 * The rank (1-based, by creation time) beyond which a webhook is paused: null while
 * the plan allows it, else the sentence shown as `pausedReason`. Derived on every read and
 * every delivery, so a downgrade pauses and an upgrade resumes without a write.
 */
export const pausedReason = (plan: Plan, rank: number): string | null => {
  const limit = webhookLimits[plan]
  if (rank <= limit) return null
  return `Paused: the ${planNames[plan]} plan allows ${limit} webhooks. Upgrade the plan or delete other webhooks to resume it.`
}

/** The 402 answer when a workspace already has as many webhooks as its plan allows. */
export const webhookLimitMessage = (plan: Plan) => {
  const limit = webhookLimits[plan]
  const up = nextPlan[plan]
  return {
    message: `The ${planNames[plan]} plan allows ${limit} webhooks.`,
    fix:
      up === null
        ? "Delete a webhook you no longer need, then add the new one."
        : `Delete a webhook you no longer need, or upgrade to the ${planNames[up]} plan (${webhookLimits[up]} webhooks) on the Billing page.`
  }
}

/** What a webhook listens to: event names (empty = the defaults) and channels (empty = all). */
export interface Subscription {
  readonly events: ReadonlyArray<string>
  readonly channelIds: ReadonlyArray<string>
}

/**
 * Which channels an event is about: `post.*` and `channel.*` one, `approval.*`
 * every channel of the post, `billing.changed` none (null: not about a channel).
 */
export type EventChannels = ReadonlyArray<string> | null

/**
 * Configuring a webhook: it receives an event it picked (or a default one), and, with
 * channels chosen, only events about at least one of them; `billing.changed` is not about
 * a channel, so every webhook that picked it receives it.
 */
export const receives = (webhook: Subscription, event: string, about: EventChannels): boolean => {
  const picked = webhook.events.length === 0 ? (defaultEvents as ReadonlyArray<string>) : webhook.events
  if (!picked.includes(event)) return false
  if (webhook.channelIds.length === 0 || about === null) return true
  return about.some((c) => webhook.channelIds.includes(c))
}
