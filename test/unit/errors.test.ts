import { describe, expect, it } from "vitest"
import { type ApiError, Errors, RuleProblem, errorBody, tooLongMessage } from "../../domain/errors.js"

import { statusOf } from "../../protocol/http/errors.js"
/** Spec: Errors → "Exact messages". The texts below are copied from the spec, not from the catalog. */

type Row = readonly [string, ApiError, number, string, Record<string, string>]

const exact: ReadonlyArray<Row> = [
  ["No Authorization header", Errors.noApiKey(), 401, "No API Key found", {}],
  ["Key wrong, rotated or revoked", Errors.invalidApiKey(), 401, "Invalid API key", {}],
  ["Body not valid JSON", Errors.invalidJson(), 400, "The request body is not valid JSON.", {}],
  ["Post missing", Errors.postNotFound(), 404, "Post not found", {}],
  ["Id not a UUID", Errors.invalidId(), 400, "One of the ids is not valid.", { fix: "Check the id. Copy it again from the list it came from." }],
  ["Path does not exist", Errors.notFound(), 404, "Not found", { fix: "Check the method and the path. The API reference lists every path." }],
  [
    "Unique value exists",
    Errors.alreadyExists(),
    409,
    "That already exists.",
    { fix: "Use a different name or value, or change the one that already exists." }
  ],
  ["First request with that key still running", Errors.idempotencyRunning(), 409, "A request with this Idempotency-Key is still running.", {}],
  ["Network connects with a form", Errors.formConnect(), 400, "This network connects with a form, not a link. Use the app to connect it.", {}],
  ["Unknown network (GET /rules)", Errors.unknownNetwork(), 404, "Unknown network", {}],
  [
    "Server failure",
    Errors.serverError("help@example.org"),
    500,
    "Something went wrong on our side. Try again. If it keeps happening, contact support.",
    { fix: "Try again in a minute. If it keeps happening, email help@example.org with the time of the request." }
  ]
]

describe("Exact messages: status, text and the spec's extra fields", () => {
  it.each(exact)("%s", (_condition, e, status, text, extra) => {
    expect(statusOf(e)).toBe(status)
    const body = errorBody(e)
    expect(body.error).toBe(text)
    expect(body.msg).toBe(text)
    for (const [field, value] of Object.entries(extra)) expect((body as Record<string, unknown>)[field]).toBe(value)
  })

  it("No plan: 401 `No subscription found`, code no_subscription, a fix that names the Billing page and says nothing was deleted", () => {
    const body = errorBody(Errors.noSubscription())
    expect(statusOf(Errors.noSubscription())).toBe(401)
    expect(body).toMatchObject({ error: "No subscription found", msg: "No subscription found", code: "no_subscription" })
    expect(body.fix).toMatch(/choose a plan on the Billing page/)
    expect(body.fix).toMatch(/Nothing was deleted/)
  })

  it("Grace over: 402, code payment_failed, a fix to pay the open invoice", () => {
    const body = errorBody(Errors.paymentFailed())
    expect(statusOf(Errors.paymentFailed())).toBe(402)
    expect(body).toMatchObject({
      error: "Publishing is paused because the last payment failed.",
      msg: "Publishing is paused because the last payment failed.",
      code: "payment_failed"
    })
    expect(body.fix).toMatch(/pay the open invoice/)
    expect(body.fix).toMatch(/Nothing was deleted/)
  })

  it("Idempotency key reused: 409, code idempotency_key_reused, a fix to use a new key", () => {
    const body = errorBody(Errors.idempotencyKeyReused())
    expect(statusOf(Errors.idempotencyKeyReused())).toBe(409)
    expect(body).toMatchObject({
      error: "This Idempotency-Key was already used with a different request body.",
      code: "idempotency_key_reused"
    })
    expect(body.fix).toMatch(/new/i)
  })

  it("Date cannot be parsed: 400 with the ISO 8601 example", () => {
    const e = Errors.invalidDate("2026-03-10T12:00:00.000Z")
    expect(statusOf(e)).toBe(400)
    expect(errorBody(e).error).toBe("The date is not valid. Use ISO 8601, for example 2026-03-10T12:00:00.000Z.")
  })

  it("Post too long: top-level `Please fix these before saving.` with errors[] in the spec's shape", () => {
    const problem = new RuleProblem({ channelId: "c1", channelName: "Our X", message: tooLongMessage("Our X", 300, 280) })
    const body = errorBody(Errors.fixBeforeSaving([problem]))
    expect(body).toEqual({
      error: "Please fix these before saving.",
      msg: "Please fix these before saving.",
      errors: [{ channelId: "c1", channelName: "Our X", message: "Our X: the post is too long, 300 of 280 characters." }]
    })
  })

  it("the spec's statuses: 403 for a role, 413 for a large body", () => {
    expect(statusOf(Errors.forbidden())).toBe(403)
    expect(statusOf(Errors.bodyTooLarge())).toBe(413)
    expect(statusOf(Errors.emailNotVerified())).toBe(403)
    expect(statusOf(Errors.memberPaused())).toBe(403)
  })
})

describe("errorBody", () => {
  const every: ReadonlyArray<readonly [string, ApiError]> = [
    ...exact.map(([name, e]) => [name, e] as const),
    ["noSubscription", Errors.noSubscription()],
    ["paymentFailed", Errors.paymentFailed()],
    ["idempotencyKeyReused", Errors.idempotencyKeyReused()],
    ["forbidden", Errors.forbidden()],
    ["emailNotVerified", Errors.emailNotVerified()],
    ["memberPaused", Errors.memberPaused()],
    ["channelNotFound", Errors.channelNotFound()],
    ["mediaNotFound", Errors.mediaNotFound()],
    ["bodyTooLarge", Errors.bodyTooLarge()],
    ["badRequest", Errors.badRequest("Missing or wrong field methodName")],
    ["tooManyRequests", Errors.tooManyRequests(90)],
    ["fixBeforeSaving", Errors.fixBeforeSaving([])]
  ]

  it.each(every)("%s: msg === error, non-empty", (_name, e) => {
    const body = errorBody(e)
    expect(body.error.length).toBeGreaterThan(0)
    expect(body.msg).toBe(body.error)
  })

  it.each(every)("%s: only the wire fields, no status, _tag or retryAfter", (_name, e) => {
    for (const key of Object.keys(errorBody(e))) expect(["error", "msg", "fix", "code", "errors"]).toContain(key)
  })

  it("optional fields are absent (not undefined) when not set", () => {
    const body = errorBody(Errors.noApiKey())
    expect(Object.keys(body)).toEqual(["error", "msg"])
    expect(JSON.stringify(body)).toBe('{"error":"No API Key found","msg":"No API Key found"}')
  })

  it("fix only: keys error, msg, fix", () => {
    expect(Object.keys(errorBody(Errors.invalidId())).sort()).toEqual(["error", "fix", "msg"])
  })

  it("fix and code: keys error, msg, fix, code", () => {
    expect(Object.keys(errorBody(Errors.noSubscription())).sort()).toEqual(["code", "error", "fix", "msg"])
  })

  it("errors is a plain array of {channelId, channelName, message}", () => {
    const body = errorBody(Errors.fixBeforeSaving([new RuleProblem({ channelId: "a", channelName: "b", message: "c" })]))
    expect(JSON.parse(JSON.stringify(body)).errors).toEqual([{ channelId: "a", channelName: "b", message: "c" }])
  })

  it("the fields the spec requires a fix on have one: plan limits, no plan, failed payment, invalid ids, unknown paths, conflicts, server errors", () => {
    for (const e of [
      Errors.noSubscription(),
      Errors.paymentFailed(),
      Errors.invalidId(),
      Errors.notFound(),
      Errors.alreadyExists(),
      Errors.idempotencyKeyReused(),
      Errors.idempotencyRunning(),
      Errors.serverError("s@example.com")
    ]) {
      expect(typeof errorBody(e).fix).toBe("string")
    }
  })
})

describe("Errors.tooManyRequests: `Too many requests. Try again in <n> minutes.` and Retry-After", () => {
  const cases: ReadonlyArray<readonly [number, number, number]> = [
    // [seconds to wait, Retry-After seconds, minutes in the message]
    [0, 1, 1],
    [0.2, 1, 1],
    [1, 1, 1],
    [59, 59, 1],
    [59.1, 60, 1],
    [60, 60, 1],
    [61, 61, 2],
    [119, 119, 2],
    [120, 120, 2],
    [121, 121, 3],
    [1799.5, 1800, 30],
    [3600, 3600, 60]
  ]

  it.each(cases)("%s s → Retry-After %s, %s minutes", (wait, retryAfter, minutes) => {
    const e = Errors.tooManyRequests(wait)
    expect(statusOf(e)).toBe(429)
    expect(e.retryAfter).toBe(retryAfter)
    expect(errorBody(e)).toEqual({
      error: `Too many requests. Try again in ${minutes} minutes.`,
      msg: `Too many requests. Try again in ${minutes} minutes.`
    })
  })

  it("Retry-After is a whole number of seconds, never 0", () => {
    for (const wait of [0, 0.001, 12.3, 45.9999, 3599.01]) {
      const e = Errors.tooManyRequests(wait)
      expect(Number.isInteger(e.retryAfter)).toBe(true)
      expect(e.retryAfter).toBeGreaterThanOrEqual(1)
      expect(e.retryAfter).toBeGreaterThanOrEqual(wait)
    }
  })
})
