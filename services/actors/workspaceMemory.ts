import { Context } from "effect"
import { takeRequest, type RateDecision, type RateLimit, type RateWindow } from "../../domain/rateWindow.js"

/**
 * What a workspace's actor keeps in memory (DESIGN: rebuilt from nothing after a
 * restart or a hand-over): its rate windows and the Idempotency-Keys in flight.
 */
export const makeWorkspaceMemory = () => {
  const windows = new Map<string, RateWindow>()
  const inFlight = new Set<string>()
  return {
    take: (workspaceId: string, name: string, rate: RateLimit, now: number): RateDecision => {
      const key = `${workspaceId}:${name}`
      const decision = takeRequest(windows.get(key), now, rate)
      windows.set(key, decision.window)
      return decision
    },
    /** Marks the key as running; false when it already is. */
    claimKey: (workspaceId: string, key: string): boolean => {
      const k = `${workspaceId}:${key}`
      if (inFlight.has(k)) return false
      inFlight.add(k)
      return true
    },
    releaseKey: (workspaceId: string, key: string): void => {
      inFlight.delete(`${workspaceId}:${key}`)
    },
    /** Forgets the workspaces of a shard this host no longer owns (stale if it comes back). */
    forget: (owns: (workspaceId: string) => boolean) => {
      for (const k of windows.keys()) if (owns(k.slice(0, k.indexOf(":")))) windows.delete(k)
      for (const k of inFlight) if (owns(k.slice(0, k.indexOf(":")))) inFlight.delete(k)
    },
    /** Drops windows that ended, so memory stays bounded by active workspaces. */
    sweep: (now: number, longestPeriodMs: number) => {
      for (const [k, w] of windows) if (now >= w.startedAt + longestPeriodMs) windows.delete(k)
    }
  }
}

export type WorkspaceMemoryShape = ReturnType<typeof makeWorkspaceMemory>
export class WorkspaceMemory extends Context.Tag("WorkspaceMemory")<WorkspaceMemory, WorkspaceMemoryShape>() {}
