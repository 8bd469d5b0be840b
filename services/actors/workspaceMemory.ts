import { Context } from "effect"

/**
 * What a workspace's actor keeps in memory (docs/architecture.md: rebuilt from nothing after a restart
 * or a hand-over): the Idempotency-Keys in flight. Durable guarantees rest on Postgres
 * (idempotency records, command records); rate windows are in Redis (rateWindows.ts).
 */
export const makeWorkspaceMemory = () => {
  const inFlight = new Set<string>()
  return {
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
      for (const k of inFlight) if (owns(k.slice(0, k.indexOf(":")))) inFlight.delete(k)
    }
  }
}

export type WorkspaceMemoryShape = ReturnType<typeof makeWorkspaceMemory>
export class WorkspaceMemory extends Context.Tag("WorkspaceMemory")<WorkspaceMemory, WorkspaceMemoryShape>() {}
