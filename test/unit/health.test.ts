import type { HttpServerResponse } from "@effect/platform"
import { Effect, Fiber, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { readiness, type ReadinessCheck } from "../../services/platform/health.js"

/**
 * GET /readyz, the same on every process: 200 only when every server this process
 * uses answers within 2 seconds; otherwise 503. Either way `checks` says which did.
 */

const answering = (name: string): ReadinessCheck => ({ name, probe: Effect.void })
const refusing = (name: string): ReadinessCheck => ({ name, probe: Effect.fail(new Error("connection refused")) })
const silent = (name: string): ReadinessCheck => ({ name, probe: Effect.never })

const answer = (response: HttpServerResponse.HttpServerResponse) => {
  const body = response.body
  if (body._tag !== "Uint8Array") throw new Error(`unexpected body ${body._tag}`)
  return { status: response.status, json: JSON.parse(new TextDecoder().decode(body.body)) }
}

const run = (checks: ReadonlyArray<ReadinessCheck>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(readiness(checks))
      yield* TestClock.adjust("2 seconds")
      return answer(yield* Fiber.join(fiber))
    }).pipe(Effect.provide(TestContext.TestContext))
  )

describe("GET /readyz", () => {
  it("every server answers: 200, each check true", async () => {
    expect(await run([answering("postgres"), answering("nats")])).toEqual({
      status: 200,
      json: { ready: true, checks: { postgres: true, nats: true } }
    })
  })

  it("a server refuses: 503, that check false", async () => {
    expect(await run([answering("postgres"), answering("nats"), refusing("redis")])).toEqual({
      status: 503,
      json: { ready: false, checks: { postgres: true, nats: true, redis: false } }
    })
  })

  it("a server does not answer within 2 seconds: 503, that check false", async () => {
    expect(await run([silent("postgres"), answering("nats")])).toEqual({
      status: 503,
      json: { ready: false, checks: { postgres: false, nats: true } }
    })
  })
})
