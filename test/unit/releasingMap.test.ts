import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { installFiberRootRegistry } from "../../services/platform/fiberRoots.js"
import { ReleasingMap } from "../../services/platform/releasingMap.js"

describe("ReleasingMap: a Map whose deleted values are let go", () => {
  it("gets, sets, replaces, deletes and counts like a Map", () => {
    const map = new ReleasingMap<string, { readonly n: number }>()
    expect(map.get("a")).toBeUndefined()
    map.set("a", { n: 1 }).set("b", { n: 2 })
    map.set("a", { n: 3 })
    expect(map.size).toBe(2)
    expect(map.get("a")).toEqual({ n: 3 })
    expect(map.delete("a")).toBe(true)
    expect(map.delete("a")).toBe(false)
    expect(map.get("a")).toBeUndefined()
    expect([...map.values()]).toEqual([{ n: 2 }])
    expect(map.size).toBe(1)
  })

  it("lists only the values still in it after thousands come and go", () => {
    const map = new ReleasingMap<number, string>()
    for (let i = 0; i < 5_000; i++) {
      map.set(i, `v${i}`)
      if (i >= 3) map.delete(i - 3)
    }
    expect([...map.values()]).toEqual(["v4997", "v4998", "v4999"])
  })
})

describe("the root-fiber registry put in place of Effect's global Set", () => {
  it.effect("still lists the running root fibers, and forgets the ones that ended", () =>
    Effect.gen(function* () {
      expect(installFiberRootRegistry()).toBe(true)
      // installing again keeps the registry in place
      expect(installFiberRootRegistry()).toBe(true)
      const running = Effect.runFork(Effect.never)
      const done = Effect.runFork(Effect.void)
      yield* Fiber.await(done)
      const roots = yield* Fiber.roots
      expect(roots).toContain(running)
      expect(roots).not.toContain(done)
      yield* Fiber.interrupt(running)
      expect(yield* Fiber.roots).not.toContain(running)
    })
  )
})
