import { Effect, Either, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { makeGroupCommit } from "../../services/platform/groupCommit.js"

/**
 * Group commit (services/platform/groupCommit.ts): which calls go together, what each
 * call is answered, and what happens to the calls of a batch that fails.
 */

interface Batch {
  readonly inputs: ReadonlyArray<string>
  readonly answer: () => void
  readonly fail: () => void
}

/**
 * A group commit whose batches wait until the test answers or fails them: a call "bad"
 * gets its batch refused (nothing written), `fail` is a lost connection (maybe written).
 */
const harness = (options: { readonly maxInFlight: number; readonly maxBatch: number }) => {
  const batches: Array<Batch> = []
  const commit = makeGroupCommit<string, string, string>({
    ...options,
    run: (inputs) =>
      new Promise((resolve, reject) => {
        batches.push({
          inputs,
          answer: () => (inputs.includes("bad") ? reject(new Error("refused")) : resolve(inputs.map((i) => `${i} saved`))),
          fail: () => reject(new Error("connection lost"))
        })
      }),
    refused: (cause) => cause instanceof Error && cause.message === "refused",
    failure: (cause) => `failed: ${cause instanceof Error ? cause.message : String(cause)}`
  })
  return { batches, commit }
}

/** Lets the pump run (it waits for the end of the event-loop turn its calls came in). */
const turn = () => new Promise((resolve) => setImmediate(resolve))

const start = (commit: ReturnType<typeof harness>["commit"], input: string) => Effect.runFork(Effect.either(commit.submit(input)))
const outcome = (fiber: Fiber.RuntimeFiber<Either.Either<string, string>>) => Effect.runPromise(Fiber.join(fiber))

describe("group commit", () => {
  it("an idle process sends a call alone, right after the turn it came in, and answers it", async () => {
    const { batches, commit } = harness({ maxInFlight: 2, maxBatch: 64 })
    const call = start(commit, "a")
    await turn()
    expect(batches.map((b) => b.inputs)).toEqual([["a"]])
    batches[0]!.answer()
    expect(await outcome(call)).toEqual(Either.right("a saved"))
  })

  it("calls of one turn share a batch, and each is answered its own outcome", async () => {
    const { batches, commit } = harness({ maxInFlight: 2, maxBatch: 64 })
    const calls = ["a", "b", "c"].map((i) => start(commit, i))
    await turn()
    expect(batches.map((b) => b.inputs)).toEqual([["a", "b", "c"]])
    batches[0]!.answer()
    expect(await Promise.all(calls.map(outcome))).toEqual(["a saved", "b saved", "c saved"].map(Either.right))
  })

  it("calls that come while every slot is in flight wait, then go together as soon as one settles", async () => {
    const { batches, commit } = harness({ maxInFlight: 1, maxBatch: 64 })
    const first = start(commit, "a")
    await turn()
    const later = ["b", "c", "d"].map((i) => start(commit, i))
    await turn()
    expect(batches.map((b) => b.inputs)).toEqual([["a"]])
    expect(commit.waiting()).toBe(3)
    batches[0]!.answer()
    await outcome(first)
    expect(batches.map((b) => b.inputs)).toEqual([["a"], ["b", "c", "d"]])
    batches[1]!.answer()
    expect(await Promise.all(later.map(outcome))).toEqual(["b saved", "c saved", "d saved"].map(Either.right))
  })

  it("a batch holds maxBatch calls at most", async () => {
    const { batches, commit } = harness({ maxInFlight: 2, maxBatch: 2 })
    ;["a", "b", "c", "d", "e"].map((i) => start(commit, i))
    await turn()
    expect(batches.map((b) => b.inputs)).toEqual([
      ["a", "b"],
      ["c", "d"]
    ])
    batches[0]!.answer()
    await turn()
    expect(batches.map((b) => b.inputs)).toEqual([["a", "b"], ["c", "d"], ["e"]])
  })

  it("a failed batch: each of its calls runs again alone, so only the bad one fails; calls that came since wait behind them", async () => {
    const { batches, commit } = harness({ maxInFlight: 1, maxBatch: 64 })
    const calls = ["a", "bad", "c"].map((i) => start(commit, i))
    await turn()
    const since = start(commit, "d")
    batches[0]!.answer()
    // one at a time (one slot): a, bad, c alone, then d
    for (let i = 1; i <= 4; i++) {
      await turn()
      expect(batches).toHaveLength(i + 1)
      batches[i]!.answer()
    }
    expect(batches.map((b) => b.inputs)).toEqual([["a", "bad", "c"], ["a"], ["bad"], ["c"], ["d"]])
    expect(await Promise.all(calls.map(outcome))).toEqual([Either.right("a saved"), Either.left("failed: refused"), Either.right("c saved")])
    expect(await outcome(since)).toEqual(Either.right("d saved"))
  })

  it("a batch that may have committed (connection lost) is not run again: each of its calls fails, and the next calls still go", async () => {
    const { batches, commit } = harness({ maxInFlight: 1, maxBatch: 64 })
    const calls = ["a", "b"].map((i) => start(commit, i))
    await turn()
    const next = start(commit, "c")
    batches[0]!.fail()
    expect(await Promise.all(calls.map(outcome))).toEqual([Either.left("failed: connection lost"), Either.left("failed: connection lost")])
    await turn()
    expect(batches.map((b) => b.inputs)).toEqual([["a", "b"], ["c"]])
    batches[1]!.answer()
    expect(await outcome(next)).toEqual(Either.right("c saved"))
  })

  it("a run that throws at once fails its calls instead of leaving them waiting", async () => {
    const commit = makeGroupCommit<string, string, string>({
      maxInFlight: 1,
      maxBatch: 64,
      run: () => {
        throw new Error("no connection")
      },
      refused: () => false,
      failure: (cause) => `failed: ${cause instanceof Error ? cause.message : String(cause)}`
    })
    const exits = await Promise.all(["a", "b"].map((i) => Effect.runPromiseExit(commit.submit(i))))
    expect(exits).toEqual([Exit.fail("failed: no connection"), Exit.fail("failed: no connection")])
  })

  it("a run that answers fewer outcomes than calls is a defect for each call, never a wrong answer", async () => {
    const commit = makeGroupCommit<string, string, string>({
      maxInFlight: 1,
      maxBatch: 64,
      run: async (inputs) => inputs.slice(1),
      refused: () => false,
      failure: String
    })
    const exits = await Promise.all(["a", "b"].map((i) => Effect.runPromiseExit(commit.submit(i))))
    for (const exit of exits) expect(Exit.isFailure(exit) && exit.cause._tag === "Die").toBe(true)
  })
})
