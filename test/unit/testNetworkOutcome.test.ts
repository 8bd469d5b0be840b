import { describe, expect, it } from "vitest"
import { testNetwork } from "../../domain/networks/test-network.js"
import { settingsProblems } from "../../domain/posts/rules.js"

/** The test network's `outcome` and `slowMs` settings (docs/networks.md, "Rehearsing outcomes on the test network") are checked like any setting. */
describe("test network settings: outcome and slowMs", () => {
  it.each([
    [{}, []],
    [{ outcome: "accept" }, []],
    [{ outcome: "reject" }, []],
    [{ outcome: "timeout" }, []],
    [{ outcome: "lose-answer" }, []],
    [{ outcome: "slow", slowMs: 250 }, []],
    [{ outcome: "process", processSteps: 3, processMs: 100 }, []],
    [{ outcome: "explode" }, ["T: the setting outcome must be one of accept, reject, timeout, lose-answer, slow, process."]],
    [{ outcome: "slow", slowMs: "soon" }, ["T: the setting slowMs must be a number of 0 or more."]],
    [{ outcome: "slow", slowMs: -1 }, ["T: the setting slowMs must be a number of 0 or more."]]
  ])("%j → %j", (settings, problems) => {
    expect(settingsProblems("T", testNetwork, settings)).toEqual(problems)
  })

  it("the rules say how to rehearse outcomes", () => {
    expect(testNetwork.rules).toContain("outcome")
    expect(testNetwork.settings.map((s) => s.key)).toEqual(["audience", "outcome", "slowMs", "processSteps", "processMs", "media_rules"])
  })
})
