import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { normalizeUserCode, pollAnswer, userCodeFrom, type DevicePoll } from "../../domain/oauth/deviceFlow.js"

/** Spec: Device flow, the poll table; RFC 8628 slow_down and user codes. */
describe("the poll answers (spec's table)", () => {
  it.each<readonly [DevicePoll, string]>([
    [{ _tag: "Pending" }, "authorization_pending"],
    [{ _tag: "Denied" }, "access_denied"],
    [{ _tag: "Expired" }, "expired_token"],
    [{ _tag: "Unknown" }, "invalid_grant"],
    [{ _tag: "TooFast" }, "slow_down"]
  ])("%o: 400 %s", (poll, error) => {
    const answer = pollAnswer(poll)
    expect(Either.isLeft(answer) && answer.left.error).toBe(error)
  })

  it("approved: the token's workspace and person", () => {
    expect(pollAnswer({ _tag: "Approved", workspaceId: "w", userId: "u" })).toEqual(Either.right({ workspaceId: "w", userId: "u" }))
  })
})

describe("user codes", () => {
  it("8 consonants as XXXX-XXXX", () => {
    expect(userCodeFrom(new Uint8Array([0, 1, 2, 3, 4, 5, 6, 19]))).toBe("BCDF-GHJZ")
    expect(userCodeFrom(new Uint8Array([255, 255, 255, 255, 255, 255, 255, 255]))).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
  })

  it.each([
    ["BCDF-GHJK", "BCDF-GHJK"],
    ["bcdfghjk", "BCDF-GHJK"],
    [" bcdf - ghjk ", "BCDF-GHJK"]
  ])("typed %j is %s", (typed, code) => {
    expect(normalizeUserCode(typed)).toBe(code)
  })

  it.each(["", "BCDF-GHJ", "BCDF-GHJKL", "AEIO-UBCD", "BCDF-GHJ1", "<script>"])("%j is no code", (typed) => {
    expect(normalizeUserCode(typed)).toBeNull()
  })
})
