import { Effect } from "effect"

/**
 * Where this process is in its life, as GET /readyz tells it (docs/operations.md, "Health checks").
 * Held here, per thread, so that every answer reads a value and never waits for a part that
 * is still starting: a request that arrives before Postgres, NATS or the actor host are up is
 * answered at once (503, naming what start waits for), and so is one during a shutdown.
 */
/** A server this process uses, and how to ask it whether it answers. */
export interface ReadinessCheck {
  readonly name: string
  readonly probe: Effect.Effect<unknown, unknown>
  /**
   * false: the process still serves most requests without this server, and it is shared by
   * every replica (Redis), so its loss leaves the process ready and only names it: a balancer
   * that followed it would take every replica out at once.
   */
  readonly needed?: boolean
}

type Phase =
  | { readonly _tag: "Starting"; readonly waitingFor: ReadonlyArray<string> }
  | { readonly _tag: "Ready"; readonly checks: ReadonlyArray<ReadinessCheck> }
  | { readonly _tag: "Draining" }

let phase: Phase = { _tag: "Starting", waitingFor: ["start"] }

/** How long one server may take to answer a check: the whole answer stays well within a second. */
export const PROBE_TIMEOUT_MS = 500

export interface ReadinessBody {
  readonly ready: boolean
  readonly reason?: string
  readonly checks?: Readonly<Record<string, boolean>>
}

export interface ReadinessAnswer {
  readonly status: 200 | 503
  readonly body: ReadinessBody
}

/** Start now waits for these parts (a draining or ready process keeps its phase). */
export const waitFor = (parts: ReadonlyArray<string>) =>
  Effect.sync(() => {
    if (phase._tag === "Starting") phase = { _tag: "Starting", waitingFor: parts }
  })

/** One part start waited for is up. */
export const partUp = (part: string) =>
  Effect.sync(() => {
    if (phase._tag === "Starting") phase = { _tag: "Starting", waitingFor: phase.waitingFor.filter((p) => p !== part) }
  })

/** Every part is up: from now on /readyz asks the servers this process uses. */
export const markReady = (checks: ReadonlyArray<ReadinessCheck>) =>
  Effect.sync(() => {
    if (phase._tag !== "Draining") phase = { _tag: "Ready", checks }
  })

/** A stop was asked for (SIGTERM, SIGINT): 503 from now on, for the balancer to take this process out first. */
export const markDraining = () => {
  phase = { _tag: "Draining" }
}

/** Each server's probe, bounded: a server that does not answer in time counts as down; a hung probe is left behind, not waited for. */
export const checkServers = (checks: ReadonlyArray<ReadinessCheck>): Effect.Effect<ReadinessAnswer> =>
  Effect.forEach(
    checks,
    ({ name, probe }) =>
      probe.pipe(
        // interruption of a probe stuck in a socket may itself take long; the answer must not wait for it
        Effect.disconnect,
        Effect.timeout(PROBE_TIMEOUT_MS),
        Effect.match({ onFailure: () => [name, false] as const, onSuccess: () => [name, true] as const })
      ),
    { concurrency: "unbounded" }
  ).pipe(
    Effect.map((results): ReadinessAnswer => {
      const down = results.filter(([, ok]) => !ok).map(([name]) => name)
      const checksBody = Object.fromEntries(results)
      const neededDown = down.filter((name) => checks.find((c) => c.name === name)?.needed !== false)
      if (neededDown.length > 0) return { status: 503, body: { ready: false, reason: `not answering: ${down.join(", ")}`, checks: checksBody } }
      return down.length === 0
        ? { status: 200, body: { ready: true, checks: checksBody } }
        : {
            status: 200,
            body: { ready: true, reason: `not answering: ${down.join(", ")} (only the requests that need it answer 503)`, checks: checksBody }
          }
    })
  )

/** The answer of GET /readyz now: a flag read for a starting or draining process, bounded probes for a ready one. */
export const readinessAnswer: Effect.Effect<ReadinessAnswer> = Effect.suspend(() => {
  switch (phase._tag) {
    case "Starting":
      return Effect.succeed({ status: 503, body: { ready: false, reason: `starting: waiting for ${phase.waitingFor.join(", ")}` } })
    case "Draining":
      return Effect.succeed({ status: 503, body: { ready: false, reason: "shutting down" } })
    case "Ready":
      return checkServers(phase.checks)
  }
})
