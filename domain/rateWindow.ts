/**
 * Rate limits (spec: Limits rules 1-2): a window starts with the first request and
 * lasts the full period; over the limit, 429 with Retry-After = seconds until the
 * window restarts. Counted in memory (they restart with the server).
 */
export interface RateWindow {
  readonly startedAt: number
  readonly count: number
}

export interface RateLimit {
  readonly limit: number
  readonly periodMs: number
}

/** POST /posts: 90 requests per hour per workspace, replays included. */
export const postsPerHour: RateLimit = { limit: 90, periodMs: 3600_000 }
/** MCP: 600 requests per minute per workspace. */
export const mcpPerMinute: RateLimit = { limit: 600, periodMs: 60_000 }

export type RateDecision =
  | { readonly allowed: true; readonly window: RateWindow }
  | { readonly allowed: false; readonly window: RateWindow; readonly retryAfterSeconds: number }

/** Counts one request at `now` against the window. */
export const takeRequest = (current: RateWindow | undefined, now: number, rate: RateLimit): RateDecision => {
  const window =
    current === undefined || now >= current.startedAt + rate.periodMs ? { startedAt: now, count: 0 } : current
  if (window.count >= rate.limit) {
    return { allowed: false, window, retryAfterSeconds: Math.max(1, Math.ceil((window.startedAt + rate.periodMs - now) / 1000)) }
  }
  return { allowed: true, window: { startedAt: window.startedAt, count: window.count + 1 } }
}
