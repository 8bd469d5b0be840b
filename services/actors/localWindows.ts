import { decideWindow, type RateDecision, type RateLimit } from "../../domain/rateWindow.js"

/** Windows kept before expired ones are swept (per-IP windows of the OAuth endpoints grow with the callers). */
const SWEEP_ABOVE = 10_000

/**
 * Rate windows in this process's memory, counted only while Redis is away (docs/operations.md,
 * "When Redis is lost"): the same limits, the same "first request starts the window" rule,
 * but per process. A workspace's POST /posts window lives on the actor host that owns the
 * workspace, so it stays one window; per-IP and MCP windows at the gateway become one per
 * gateway replica (N replicas: up to N times the limit). Counts taken here are not carried
 * into Redis when it is back: that window starts again there.
 */
export const makeLocalWindows = (now: () => number = Date.now) => {
  const windows = new Map<string, { count: number; endsAt: number }>()
  const sweep = (at: number) => {
    for (const [key, w] of windows) if (w.endsAt <= at) windows.delete(key)
  }
  return {
    take: (key: string, rate: RateLimit, requests: number): RateDecision => {
      const at = now()
      let w = windows.get(key)
      if (w === undefined || w.endsAt <= at) {
        if (windows.size >= SWEEP_ABOVE) sweep(at)
        w = { count: 0, endsAt: at + rate.periodMs }
        windows.set(key, w)
      }
      w.count += requests
      return decideWindow(w.count, w.endsAt - at, rate)
    },
    size: () => windows.size
  }
}
