/**
 * Rate limits (spec: Limits rules 1-2): a window starts with the first request and
 * lasts the full period; over the limit, 429 with Retry-After = seconds until the
 * window restarts. The counts live in Redis, shared by every actor host, so a window
 * survives a workspace moving to another host (services/actors/rateWindows.ts).
 */
export interface RateLimit {
  readonly limit: number
  readonly periodMs: number
}

/** POST /posts: 90 requests per hour per workspace, replays included. */
export const postsPerHour: RateLimit = { limit: 90, periodMs: 3600_000 }
/** MCP: 600 requests per minute per workspace. */
export const mcpPerMinute: RateLimit = { limit: 600, periodMs: 60_000 }
/** POST /oauth/register: 30 per hour per IP address. */
export const oauthRegisterPerHour: RateLimit = { limit: 30, periodMs: 3600_000 }
/** POST /oauth/token: 300 per hour per IP address. */
export const oauthTokenPerHour: RateLimit = { limit: 300, periodMs: 3600_000 }
/** Sign-in attempts on the app's sign-in page (the spec is silent): 30 per 15 minutes per IP address, against password guessing. */
export const signInPerQuarterHour: RateLimit = { limit: 30, periodMs: 15 * 60_000 }
/** POST /oauth/device/code: 30 per hour per IP address. */
export const deviceCodePerHour: RateLimit = { limit: 30, periodMs: 3600_000 }

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number }

/**
 * The decision for a request that is the `count`-th of its window (counting itself), with
 * `msLeft` until the window restarts.
 */
export const decideWindow = (count: number, msLeft: number, rate: RateLimit): RateDecision =>
  count <= rate.limit ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)) }
