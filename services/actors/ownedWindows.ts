import { Context, Effect } from "effect"
import { decideWindow, type RateDecision, type RateLimit } from "../../domain/rateWindow.js"
import type { WindowCount } from "./rateWindows.js"

/**
 * Within this long of a window's end its count is asked of Redis again: the window may
 * have restarted there (Redis ends it by expiring the key).
 */
export const WINDOW_END_MARGIN_MS = 2_000
/** Windows whose end has passed are dropped every so many counts. */
const PRUNE_EVERY = 4_096

type Entry =
  /** A count sent to Redis whose answer says where the window stands; the workspace's other requests wait for it. */
  | { readonly _tag: "Asking"; readonly answered: Promise<void> }
  | { readonly _tag: "Known"; count: number; readonly endsAt: number }

/**
 * The rate windows of the workspaces this actor host owns (POST /posts). While the host
 * holds a workspace's shard it is the only one counting that workspace's windows, so one
 * count answered by Redis tells it where the window stands, and from then on it counts in
 * memory and decides at once, without a round trip. Each count still goes to Redis, in
 * order, before its request is answered: the next owner (a hand-over, a crash) asks Redis
 * and goes on from the exact count. `forget` drops a shard's workspaces when the host lets
 * it go, `sent` waits until every count has reached Redis (before a hand-over).
 *
 * Redis that does not answer: the request is let through and nothing is remembered, as
 * RateWindows.take does.
 */
export const makeOwnedWindows = (options: {
  /** Counts one request in Redis (RateWindows.count). */
  readonly count: (workspaceId: string, name: string, rate: RateLimit) => Promise<WindowCount>
  /** A count Redis did not take. */
  readonly unavailable: (cause: unknown) => void
  /** Milliseconds on a clock that never goes back. */
  readonly now?: () => number
}) => {
  const now = options.now ?? (() => performance.now())
  const windows = new Map<string, Entry>()
  const sending = new Set<Promise<void>>()
  let counted = 0
  const keyOf = (workspaceId: string, name: string) => `${workspaceId}:${name}`

  /** A count sent without waiting: its answer only matters if someone else counted too (then the higher count wins). */
  const send = (key: string, workspaceId: string, name: string, rate: RateLimit) => {
    const sent: Promise<void> = options
      .count(workspaceId, name, rate)
      .then(
        (answer) => {
          const entry = windows.get(key)
          if (entry?._tag === "Known" && answer.count > entry.count) entry.count = answer.count
        },
        options.unavailable
      )
      .finally(() => sending.delete(sent))
    sending.add(sent)
  }

  const prune = (at: number) => {
    for (const [key, entry] of windows) if (entry._tag === "Known" && entry.endsAt <= at) windows.delete(key)
  }

  /** The first count of a window (or of this ownership) waits for Redis's answer. */
  const ask = (key: string, workspaceId: string, name: string, rate: RateLimit, at: number): Effect.Effect<RateDecision> => {
    let done = () => {}
    const asking: Entry = { _tag: "Asking", answered: new Promise<void>((resolve) => (done = resolve)) }
    windows.set(key, asking)
    return Effect.tryPromise(() => options.count(workspaceId, name, rate)).pipe(
      Effect.map(({ count, msLeft }) => {
        // forgotten meanwhile (the shard went to another host): nothing is remembered
        if (windows.get(key) === asking) windows.set(key, { _tag: "Known", count, endsAt: at + msLeft })
        return decideWindow(count, msLeft, rate)
      }),
      Effect.catchAll((cause) => Effect.sync((): RateDecision => (options.unavailable(cause), { allowed: true }))),
      Effect.ensuring(
        Effect.sync(() => {
          if (windows.get(key) === asking) windows.delete(key)
          done()
        })
      )
    )
  }

  const take = (workspaceId: string, name: string, rate: RateLimit): Effect.Effect<RateDecision> =>
    Effect.suspend(() => {
      const key = keyOf(workspaceId, name)
      const entry = windows.get(key)
      if (entry?._tag === "Asking") return Effect.promise(() => entry.answered).pipe(Effect.zipRight(take(workspaceId, name, rate)))
      const at = now()
      if (++counted % PRUNE_EVERY === 0) prune(at)
      if (entry === undefined || at >= entry.endsAt - WINDOW_END_MARGIN_MS) return ask(key, workspaceId, name, rate, at)
      entry.count++
      send(key, workspaceId, name, rate)
      return Effect.succeed(decideWindow(entry.count, entry.endsAt - at, rate))
    })

  return {
    take,
    /** Forgets the windows of the workspaces `owns` names (a shard this host let go: another host counts them now). */
    forget: (owns: (workspaceId: string) => boolean) => {
      for (const key of windows.keys()) if (owns(key.slice(0, key.indexOf(":")))) windows.delete(key)
    },
    /** Resolves once every count sent so far has been answered by Redis (or failed). */
    sent: (): Promise<void> => Promise.allSettled([...sending]).then(() => undefined),
    /** Windows remembered (tests). */
    size: () => windows.size
  }
}

export type OwnedWindowsShape = ReturnType<typeof makeOwnedWindows>
export class OwnedWindows extends Context.Tag("actors/OwnedWindows")<OwnedWindows, OwnedWindowsShape>() {}
