import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { planChanges, type Plan } from "../../domain/posts/preview.js"
import { openPlan, PLAN_TTL_SECONDS, signPlan } from "../../services/posts/postPlans.js"

/**
 * A preview's planId (docs/using-the-api.md, "Preview, then commit"): signed, bound to its
 * workspace, valid one hour; what changed between a plan and now, in plain words.
 */

const key = Redacted.make("plan-test-key")
const plan: Plan = {
  body: "b1",
  channels: [
    { channelId: "c1", channelName: "Alpha", state: "s1", rules: "r1" },
    { channelId: "c2", channelName: "Beta", state: "s2", rules: "r2" }
  ]
}

describe("planId", () => {
  it("opens to its plan in its workspace until it expires", () => {
    const now = Date.now()
    const id = signPlan(key, "ws", plan, now)
    expect(openPlan(key, "ws", id, now)).toEqual(Either.right(plan))
    expect(openPlan(key, "other", id, now)).toEqual(Either.left("malformed"))
    expect(openPlan(key, "ws", id, now + PLAN_TTL_SECONDS * 1000)).toEqual(Either.left("expired"))
  })

  it("a changed byte, another key or garbage does not open", () => {
    const id = signPlan(key, "ws", plan)
    const [payload = "", mac = ""] = id.slice("plan_".length).split(".")
    const tampered = `plan_${Buffer.from(Buffer.from(payload, "base64url").toString("utf8").replace('"b1"', '"b2"')).toString("base64url")}.${mac}`
    expect(openPlan(key, "ws", tampered)).toEqual(Either.left("malformed"))
    expect(openPlan(Redacted.make("another"), "ws", id)).toEqual(Either.left("malformed"))
    expect(openPlan(key, "ws", "plan_x.y")).toEqual(Either.left("malformed"))
  })
})

describe("planChanges", () => {
  it.each([
    ["nothing", plan, []],
    ["the body", { ...plan, body: "b2" }, ["the body is not the one previewed"]],
    [
      "a channel's state",
      { ...plan, channels: [{ ...plan.channels[0]!, state: "s9" }, plan.channels[1]!] },
      ["the channel Alpha changed (connection, settings or approval)"]
    ],
    ["a network's rules", { ...plan, channels: [plan.channels[0]!, { ...plan.channels[1]!, rules: "r9" }] }, ["the rules of Beta's network changed"]],
    ["a channel gone", { ...plan, channels: [plan.channels[0]!] }, ["the channel Beta was disconnected"]]
  ] as const)("%s", (_what, now, expected) => {
    expect(planChanges(plan, now)).toEqual(expected)
  })
})
