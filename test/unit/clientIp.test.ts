import { HttpServerRequest } from "@effect/platform"
import { describe, expect, it } from "vitest"
import { clientIp } from "../../services/oauth/clientIp.js"

/** Whose window a request counts in: the socket's address, X-Forwarded-For only as far as TRUST_PROXY says. */
const request = (remoteAddress: string, forwarded?: string) =>
  HttpServerRequest.fromWeb(
    new Request("http://gateway/oauth/token", { headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded } })
  ).modify({ remoteAddress })

describe("the client address of the per-IP windows", () => {
  it("TRUST_PROXY=0 (default): the socket's address; X-Forwarded-For is ignored", () => {
    expect(clientIp(request("203.0.113.7", "198.51.100.1"), 0)).toBe("203.0.113.7")
  })

  it("IPv4 on a dual-stack socket counts as IPv4", () => {
    expect(clientIp(request("::ffff:203.0.113.7"), 0)).toBe("203.0.113.7")
  })

  it("TRUST_PROXY=1: the address the proxy appended; what the client wrote before it is not used", () => {
    expect(clientIp(request("10.0.0.2", "6.6.6.6, 198.51.100.1"), 1)).toBe("198.51.100.1")
  })

  it("TRUST_PROXY=2: two proxies, the address the outer one appended", () => {
    expect(clientIp(request("10.0.0.2", "6.6.6.6, 198.51.100.1, 10.0.0.9"), 2)).toBe("198.51.100.1")
  })

  it("TRUST_PROXY=1 without the header: the socket's address", () => {
    expect(clientIp(request("203.0.113.7"), 1)).toBe("203.0.113.7")
  })
})
