import { describe, expect, it } from "vitest"
import { classifyAddress, isPublicAddress } from "../../services/platform/outbound/addressPolicy.js"

// Addresses as they reach the policy: after WHATWG URL parsing or from a resolver.
const refusedV4 = [
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["10.0.0.1", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.168.0.1", "private"],
  ["169.254.169.254", "linkLocal"],
  ["100.64.0.1", "carrierGradeNat"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "reserved"],
  ["198.18.0.1", "reserved"],
  ["224.0.0.1", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"]
] as const

const refusedV6 = [
  ["::1", "loopback"],
  ["::", "unspecified"],
  ["::ffff:7f00:1", "loopback IPv4"], // [::ffff:127.0.0.1] after URL parsing
  ["::ffff:a9fe:a9fe", "linkLocal IPv4"],
  ["::7f00:1", "IPv4-compatible"], // [::127.0.0.1]; ipaddr.js alone calls it unicast
  ["::808:808", "IPv4-compatible"],
  ["64:ff9b::a9fe:a9fe", "linkLocal IPv4 address embedded"],
  ["64:ff9b::a00:1", "private IPv4 address embedded"],
  ["64:ff9b:1::808:808", "rfc6052"], // local-use NAT64
  ["2002:7f00:1::", "loopback IPv4 address embedded"],
  ["2002:a00:1::", "private IPv4 address embedded"],
  ["2001:0:1::1", "teredo"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo"],
  ["fc00::1", "uniqueLocal"],
  ["fd00::1", "uniqueLocal"],
  ["fe80::1", "linkLocal"],
  ["fe80::1%eth0", "linkLocal"],
  ["fec0::1", "SiteLocal"],
  ["ff02::1", "multicast"],
  ["100::1", "discard"],
  ["2001:db8::1", "reserved"],
  ["::ffff:0:7f00:1", "rfc6145"],
  ["4000::1", "outside global unicast"]
] as const

const publicAddresses = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.215.14",
  "2606:4700:4700::1111",
  "2a00:1450:4001::1",
  "64:ff9b::808:808",
  "2002:808:808::1",
  "::ffff:808:808"
]

describe("address policy: only public unicast addresses", () => {
  it.each(refusedV4)("refuses IPv4 %s (%s)", (address, reason) => {
    const verdict = classifyAddress(address)
    expect(verdict.public).toBe(false)
    expect(verdict.public ? "" : verdict.reason).toContain(reason)
  })

  it.each(refusedV6)("refuses IPv6 %s (%s)", (address, reason) => {
    const verdict = classifyAddress(address)
    expect(verdict.public).toBe(false)
    expect(verdict.public ? "" : verdict.reason).toContain(reason)
  })

  it.each(publicAddresses)("allows public %s", (address) => {
    expect(isPublicAddress(address)).toBe(true)
  })

  // Only forms Node itself connects to are read, so the policy and the socket agree.
  it.each(["2130706433", "0x7f.1", "0177.0.0.1", "127.1", "localhost", "", "[::1]", "8.8.8.8 ", "010.0.0.1"])(
    "refuses non-canonical or non-IP input %j",
    (input) => {
      expect(isPublicAddress(input)).toBe(false)
    }
  )
})
