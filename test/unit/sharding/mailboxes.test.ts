import { Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeMailboxes } from "../../../services/sharding/mailboxes.js"

/**
 * Workspace mailboxes: one workspace's commands one at a time in arrival order,
 * different workspaces in parallel, and no mailbox left behind when idle.
 */

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** A command that records when it starts and ends, with a short random pause between. */
const recording = (log: Array<string>, running: { now: number; max: number }, name: string, pauseMs: number) =>
  Effect.gen(function* () {
    running.now++
    running.max = Math.max(running.max, running.now)
    log.push(`start ${name}`)
    yield* Effect.sleep(pauseMs)
    log.push(`end ${name}`)
    running.now--
    return name
  })

describe("Workspace mailboxes", () => {
  it("runs one workspace's commands one at a time, in arrival order", async () => {
    const mailboxes = makeMailboxes()
    const log: Array<string> = []
    const running = { now: 0, max: 0 }
    const results = await run(
      Effect.gen(function* () {
        const fibers: Array<Fiber.RuntimeFiber<string>> = []
        for (let i = 0; i < 40; i++) {
          fibers.push(yield* Effect.fork(mailboxes.run("w1", recording(log, running, String(i), i % 3))))
          // arrivals interleave with commands finishing (yields and short pauses)
          if (i % 2 === 0) yield* Effect.yieldNow()
          else yield* Effect.sleep(i % 4)
        }
        return yield* Fiber.joinAll(fibers)
      })
    )
    expect(results).toEqual(Array.from({ length: 40 }, (_, i) => String(i)))
    expect(running.max).toBe(1)
    const starts = log.filter((l) => l.startsWith("start")).map((l) => l.slice(6))
    expect(starts).toEqual(Array.from({ length: 40 }, (_, i) => String(i)))
    // strictly alternating start/end: never two at once
    log.forEach((l, i) => {
      expect(l.startsWith(i % 2 === 0 ? "start" : "end")).toBe(true)
    })
    expect(mailboxes.active()).toBe(0)
  })

  it("a command arriving just as the running one ends does not overtake the waiting one", async () => {
    const mailboxes = makeMailboxes()
    const order: Array<number> = []
    await run(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const first = yield* Effect.fork(mailboxes.run("w1", Deferred.await(gate).pipe(Effect.tap(() => order.push(1)))))
        yield* Effect.yieldNow()
        const second = yield* Effect.fork(
          mailboxes.run(
            "w1",
            Effect.sync(() => void order.push(2))
          )
        )
        yield* Effect.yieldNow()
        // the first ends; in the same scheduler round a third command arrives
        yield* Deferred.succeed(gate, undefined)
        yield* Effect.yieldNow()
        const third = yield* Effect.fork(
          mailboxes.run(
            "w1",
            Effect.sync(() => void order.push(3))
          )
        )
        yield* Fiber.joinAll([first, second, third])
      })
    )
    expect(order).toEqual([1, 2, 3])
    expect(mailboxes.active()).toBe(0)
  })

  it("runs different workspaces' commands in parallel", async () => {
    const mailboxes = makeMailboxes()
    const workspaces = ["a", "b", "c", "d", "e"]
    const started = await run(
      Effect.gen(function* () {
        // each command waits until all five have started: serialized, they would never finish
        const allStarted = yield* Deferred.make<void>()
        let count = 0
        let during = 0
        const command = (w: string) =>
          Effect.gen(function* () {
            count++
            if (count === workspaces.length) {
              during = mailboxes.active()
              yield* Deferred.succeed(allStarted, undefined)
            }
            yield* Deferred.await(allStarted)
            return w
          })
        const fibers = yield* Effect.forEach(workspaces, (w) => Effect.fork(mailboxes.run(w, command(w))))
        const results = yield* Fiber.joinAll(fibers).pipe(Effect.timeout("2 seconds"))
        return { results, during }
      })
    )
    expect(started.results).toEqual(workspaces)
    expect(started.during).toBe(5)
    expect(mailboxes.active()).toBe(0)
  })

  it("one workspace's slow command does not hold up another workspace", async () => {
    const mailboxes = makeMailboxes()
    const order: Array<string> = []
    await run(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const slow = yield* Effect.fork(mailboxes.run("slow", Deferred.await(gate).pipe(Effect.tap(() => order.push("slow")))))
        const queued = yield* Effect.fork(
          mailboxes.run(
            "slow",
            Effect.sync(() => void order.push("slow 2"))
          )
        )
        const fast = yield* Effect.fork(
          mailboxes.run(
            "fast",
            Effect.sync(() => void order.push("fast"))
          )
        )
        yield* Fiber.join(fast)
        expect(order).toEqual(["fast"])
        expect(mailboxes.active()).toBe(1)
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.joinAll([slow, queued])
      })
    )
    expect(order).toEqual(["fast", "slow", "slow 2"])
    expect(mailboxes.active()).toBe(0)
  })

  it("failures, defects and interrupted commands neither block the queue nor leave a mailbox behind", async () => {
    const mailboxes = makeMailboxes()
    const order: Array<string> = []
    const exits = await run(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const first = yield* Effect.fork(mailboxes.run("w", Deferred.await(gate).pipe(Effect.tap(() => order.push("first")))))
        yield* Effect.yieldNow()
        const failing = yield* Effect.fork(mailboxes.run("w", Effect.fail("nope" as const)))
        const dying = yield* Effect.fork(mailboxes.run("w", Effect.die("boom")))
        const waiting = yield* Effect.fork(
          mailboxes.run(
            "w",
            Effect.sync(() => void order.push("interrupted one ran"))
          )
        )
        const last = yield* Effect.fork(
          mailboxes.run(
            "w",
            Effect.sync(() => void order.push("last"))
          )
        )
        yield* Effect.yieldNow()
        // interrupt a command while it still waits for its turn
        yield* Fiber.interrupt(waiting)
        // the interrupted one left; the last one still waits for the first
        yield* Effect.sleep(10)
        expect(order).toEqual([])
        yield* Deferred.succeed(gate, undefined)
        return yield* Effect.forEach([first, failing, dying, last], Fiber.await)
      })
    )
    expect(order).toEqual(["first", "last"])
    expect(exits.map((e) => (Exit.isSuccess(e) ? "ok" : "failed"))).toEqual(["ok", "failed", "failed", "ok"])
    expect(mailboxes.active()).toBe(0)
  })

  it("empties when idle and activates again on the next command", async () => {
    const mailboxes = makeMailboxes()
    expect(mailboxes.active()).toBe(0)
    await run(mailboxes.run("w", Effect.void))
    expect(mailboxes.active()).toBe(0)
    await run(Effect.all([mailboxes.run("w", Effect.sleep(5)), mailboxes.run("v", Effect.sleep(5))], { concurrency: "unbounded" }))
    expect(mailboxes.active()).toBe(0)
  })
})
