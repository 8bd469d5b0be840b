import { Context, Effect } from "effect"

/**
 * What a workspace's actor keeps in memory (docs/architecture.md: rebuilt from nothing after a restart
 * or a hand-over): the Idempotency-Keys in flight. Durable guarantees rest on Postgres
 * (idempotency records, command records); rate windows are in Redis (rateWindows.ts).
 */
export const makeWorkspaceMemory = () => {
  const inFlight = new Set<string>()
  /** Command ids running here → the copies waiting for them to end. */
  const running = new Map<string, Array<() => void>>()
  const ended = (commandId: string) =>
    Effect.sync(() => {
      const waiting = running.get(commandId)
      running.delete(commandId)
      waiting?.forEach((wake) => wake())
    })
  const endOf = (waiting: Array<() => void>) =>
    Effect.async<void>((resume) => {
      const wake = () => resume(Effect.void)
      waiting.push(wake)
      return Effect.sync(() => {
        const i = waiting.indexOf(wake)
        if (i >= 0) waiting.splice(i, 1)
      })
    })
  const oneCopyAtATime = <A, E, R>(commandId: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.suspend(() => {
      const waiting = running.get(commandId)
      if (waiting !== undefined) return endOf(waiting).pipe(Effect.zipRight(oneCopyAtATime(commandId, effect)))
      running.set(commandId, [])
      return effect.pipe(Effect.ensuring(ended(commandId)))
    })
  return {
    /**
     * Runs a command here only when no copy of it (same command id) runs here already;
     * else once that copy has ended. The gateway sends a command again when its answer is
     * late (a paused NATS node, a slow write): that copy is the same request, so it must
     * find the first one's record (answered from it), not the first one's
     * Idempotency-Key in flight (409, as a second request with the key would).
     */
    oneCopyAtATime,
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
