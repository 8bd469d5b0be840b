import { Effect, Fiber, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { checkServers, markDraining, markReady, partUp, type ReadinessCheck, readinessAnswer, waitFor } from "../../services/platform/readiness.js"

/**
 * GET /readyz, the same on every process: 503 naming what start waits for until every part is up;
 * then 200 only when every server this process needs answers within 500 ms, otherwise 503 (Redis,
 * shared by every replica and needed by few requests, is named but keeps the process ready); after
 * SIGTERM 503 at once. A server's answer is asked for only once started, and never waited for longer.
 */

const answering = (name: string): ReadinessCheck => ({ name, probe: Effect.void })
const refusing = (name: string): ReadinessCheck => ({ name, probe: Effect.fail(new Error("connection refused")) })
const silent = (name: string): ReadinessCheck => ({ name, probe: Effect.never })
// a probe that, once interrupted, takes long to let go (a socket stuck in a write)
const stuck = (name: string): ReadinessCheck => ({ name, probe: Effect.uninterruptible(Effect.sleep("1 hour")) })

const run = (checks: ReadonlyArray<ReadinessCheck>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(checkServers(checks))
      yield* TestClock.adjust("500 millis")
      return yield* Fiber.join(fiber)
    }).pipe(Effect.provide(TestContext.TestContext))
  )

describe("GET /readyz once started: the servers' probes", () => {
  it("every server answers: 200, each check true", async () => {
    expect(await run([answering("postgres"), answering("nats")])).toEqual({
      status: 200,
      body: { ready: true, checks: { postgres: true, nats: true } }
    })
  })

  it("a server refuses: 503, that check false, named in the reason", async () => {
    expect(await run([answering("postgres"), refusing("nats")])).toEqual({
      status: 503,
      body: { ready: false, reason: "not answering: nats", checks: { postgres: true, nats: false } }
    })
  })

  it("a server the process does not need to serve (Redis) refuses: still 200, that check false, named in the reason", async () => {
    expect(await run([answering("postgres"), answering("nats"), { ...refusing("redis"), needed: false }])).toEqual({
      status: 200,
      body: {
        ready: true,
        reason: "not answering: redis (only the requests that need it answer 503)",
        checks: { postgres: true, nats: true, redis: false }
      }
    })
    // a needed server down as well: 503, both named
    expect(await run([refusing("postgres"), answering("nats"), { ...refusing("redis"), needed: false }])).toEqual({
      status: 503,
      body: { ready: false, reason: "not answering: postgres, redis", checks: { postgres: false, nats: true, redis: false } }
    })
  })

  it("a server does not answer within 500 ms: 503, that check false", async () => {
    expect(await run([silent("postgres"), answering("nats")])).toEqual({
      status: 503,
      body: { ready: false, reason: "not answering: postgres", checks: { postgres: false, nats: true } }
    })
  })

  it("a probe that does not let go when interrupted: still answered after 500 ms", async () => {
    expect(await run([stuck("postgres"), answering("nats")])).toEqual({
      status: 503,
      body: { ready: false, reason: "not answering: postgres", checks: { postgres: false, nats: true } }
    })
  })
})

describe("GET /readyz through a process's life (one module state: these run in order)", () => {
  it("starting: 503 naming what start still waits for, without asking any server", async () => {
    await Effect.runPromise(waitFor(["postgres", "nats"]))
    expect(await Effect.runPromise(readinessAnswer)).toEqual({ status: 503, body: { ready: false, reason: "starting: waiting for postgres, nats" } })
    await Effect.runPromise(partUp("postgres"))
    expect(await Effect.runPromise(readinessAnswer)).toEqual({ status: 503, body: { ready: false, reason: "starting: waiting for nats" } })
  })

  it("ready: the servers are asked", async () => {
    await Effect.runPromise(markReady([answering("postgres"), answering("nats")]))
    expect(await Effect.runPromise(readinessAnswer)).toEqual({ status: 200, body: { ready: true, checks: { postgres: true, nats: true } } })
  })

  it("draining (SIGTERM): 503 at once, and it stays so", async () => {
    markDraining()
    expect(await Effect.runPromise(readinessAnswer)).toEqual({ status: 503, body: { ready: false, reason: "shutting down" } })
    await Effect.runPromise(markReady([answering("postgres")]))
    await Effect.runPromise(waitFor(["postgres"]))
    expect(await Effect.runPromise(readinessAnswer)).toEqual({ status: 503, body: { ready: false, reason: "shutting down" } })
  })
})
