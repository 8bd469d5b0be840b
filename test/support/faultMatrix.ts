import { Duration, Effect } from "effect"
import { expect, it } from "vitest"
import { type NetworkAdapter, PublishAnswer, type PublishRequest } from "../../services/networks/adapter.js"
import type { FaultMode, Simulator } from "./simulator/core.js"

/**
 * Every simulator fault against a network's publish, and what the adapter must answer:
 * never "published" for a post the network did not confirm, "nothing sent" only when
 * nothing can have reached it, the network's own reason for a refusal, its wait for a 429.
 */
const expectations: ReadonlyArray<readonly [FaultMode, ReadonlyArray<PublishAnswer["_tag"]>, "none" | "one"]> = [
  ["hang", ["NoAnswer"], "none"],
  ["reset", ["NoAnswer"], "none"],
  ["accept-then-hang", ["NoAnswer"], "one"],
  ["accept-then-reset", ["NoAnswer"], "one"],
  ["accept-then-5xx", ["NoAnswer"], "one"],
  ["5xx", ["NoAnswer"], "none"],
  ["reject", ["Rejected"], "none"],
  ["rate-limit", ["RateLimited"], "none"],
  ["expired-token", ["Rejected"], "none"],
  ["garbage", ["NoAnswer"], "none"],
  ["html", ["NoAnswer"], "none"],
  ["no-id", ["NoAnswer"], "none"],
  ["huge", ["NoAnswer"], "none"],
  ["redirect-private", ["NoAnswer", "Rejected"], "none"]
]

/** The publisher's own deadline around a publish (PUBLISH_TIMEOUT_MS), short for tests. */
export const withDeadline = (answer: Effect.Effect<PublishAnswer>, ms = 1500) =>
  Effect.runPromise(
    answer.pipe(
      Effect.timeoutTo({
        duration: Duration.millis(ms),
        onSuccess: (a): PublishAnswer => a,
        onTimeout: () => PublishAnswer.NoAnswer({ reason: "deadline" })
      })
    )
  )

export const faultMatrix = (setup: {
  readonly network: string
  readonly sim: () => Simulator
  readonly adapter: () => NetworkAdapter
  /** A fresh request for a post of a seeded account. */
  readonly request: (content: string) => PublishRequest
  /** Where a network answers a fault its own documented way (Bluesky renews an expired session). */
  readonly overrides?: Partial<Record<FaultMode, readonly [ReadonlyArray<PublishAnswer["_tag"]>, "none" | "one"]>>
}) => {
  const table = expectations.map(([mode, allowed, copies]) => [mode, ...(setup.overrides?.[mode] ?? [allowed, copies])] as const)
  it.each(table)("publish fault %s → %j, the network holds %s", async (mode, allowed, copies) => {
    const sim = setup.sim()
    const content = `fault ${mode} ${crypto.randomUUID()}`
    sim.fail({ network: setup.network, op: "publish", mode, times: 1, retryAfterSeconds: 2 })
    try {
      const answer = await withDeadline(setup.adapter().publish(setup.request(content)))
      expect(allowed).toContain(answer._tag)
      if (answer._tag === "Rejected") {
        expect(answer.message.length).toBeGreaterThan(10)
        expect(answer.fix.length).toBeGreaterThan(5)
      }
      if (answer._tag === "RateLimited") expect(answer.retryAfterMs).toBe(2000)
      const held = sim.postsOf(setup.network).filter((p) => p.text === content)
      expect(held).toHaveLength(copies === "one" ? 1 : 0)
    } finally {
      sim.clearFaults()
    }
  })

  it("publish with connections refused → nothing sent (safe to send again), nothing posted", async () => {
    const sim = setup.sim()
    const content = `refused ${crypto.randomUUID()}`
    await sim.refuseConnections(400)
    const answer = await withDeadline(setup.adapter().publish(setup.request(content)))
    expect(answer._tag).toBe("FailedBeforeSending")
    await new Promise((r) => setTimeout(r, 600))
    expect(sim.postsOf(setup.network).filter((p) => p.text === content)).toHaveLength(0)
  })
}
