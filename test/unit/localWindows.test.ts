import { describe, expect, it } from "vitest"
import { makeLocalWindows } from "../../services/actors/localWindows.js"

/** The windows a process counts while Redis is away (docs/operations.md, "When Redis is lost"): the same rules as Redis's. */
describe("local rate windows", () => {
  const rate = { limit: 3, periodMs: 60_000 }

  it("allows the limit, refuses the next with the seconds left of the window, and starts a new window when it ends", () => {
    let now = 1_000_000
    const windows = makeLocalWindows(() => now)
    expect([1, 2, 3].map(() => windows.take("w1", rate, 1).allowed)).toEqual([true, true, true])
    now += 20_000
    expect(windows.take("w1", rate, 1)).toEqual({ allowed: false, retryAfterSeconds: 40 })
    // another key has its own window
    expect(windows.take("w2", rate, 1).allowed).toBe(true)
    now += 40_000
    expect(windows.take("w1", rate, 1).allowed).toBe(true)
  })

  it("counts a batch as its requests (an MCP batch of 4 over a limit of 3)", () => {
    const windows = makeLocalWindows(() => 0)
    expect(windows.take("m", rate, 4).allowed).toBe(false)
  })

  it("sweeps windows that ended instead of growing without end", () => {
    let now = 0
    const windows = makeLocalWindows(() => now)
    for (let i = 0; i < 10_000; i++) windows.take(`ip${i}`, rate, 1)
    now += 60_000
    windows.take("next", rate, 1)
    expect(windows.size()).toBe(1)
  })
})
