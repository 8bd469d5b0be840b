import { describe, expect, it } from "vitest"
import { Errors, Messages } from "../../domain/errors.js"
import { statusOf } from "../../protocol/http/errors.js"
import { JsonRpcCode, jsonRpcError, toolError } from "../../protocol/mcp/errors.js"
import { oauthError } from "../../protocol/oauth/errors.js"

/** Each surface maps a case of the catalog once: REST (statusOf + errorBody), OAuth, MCP. */
describe("one error, three surfaces", () => {
  it("OAuth: {error, error_description, msg}, the catalog's text twice, the REST status", () => {
    const e = Errors.badRequest("redirect_uris is required.")
    expect(oauthError(e)).toEqual({
      status: 400,
      body: { error: "invalid_request", error_description: "redirect_uris is required.", msg: "redirect_uris is required." }
    })
    expect(oauthError(Errors.tooManyRequests(30)).body.error).toBe("slow_down")
    expect(oauthError(Errors.serverError("s@example.com"))).toMatchObject({ status: 500, body: { error: "server_error" } })
  })

  it("MCP: a billing refusal is a tool error carrying exactly the REST body (spec: the same bodies)", () => {
    const e = Errors.paymentFailed()
    const result = toolError(e)
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toEqual({
      error: Messages.paymentFailed,
      msg: Messages.paymentFailed,
      code: "payment_failed",
      fix: Messages.paymentFailedFix
    })
    expect(JSON.parse(result.content[0]!.text)).toEqual(result.structuredContent)
    expect(statusOf(e)).toBe(402)
  })

  it("MCP: wrong arguments are JSON-RPC invalid params; a server fault is internal error; other cases the service range", () => {
    expect(jsonRpcError(Errors.invalidId()).code).toBe(JsonRpcCode.invalidParams)
    expect(jsonRpcError(Errors.serverError("s@example.com")).code).toBe(JsonRpcCode.internalError)
    expect(jsonRpcError(Errors.noSubscription())).toMatchObject({ code: -32000, message: Messages.noSubscription, data: { code: "no_subscription" } })
  })
})
