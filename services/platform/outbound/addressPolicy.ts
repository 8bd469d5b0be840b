import { isIP } from "node:net"
import ipaddr from "ipaddr.js"

/**
 * Which IP addresses outbound HTTP may connect to (docs/architecture.md, "Rules every part keeps", rule 5). Pure: callers pass the
 * address the socket will actually use, never a host string taken from a URL.
 */
export type AddressVerdict = { readonly public: true } | { readonly public: false; readonly reason: string }

const allowed: AddressVerdict = { public: true }
const refused = (reason: string): AddressVerdict => ({ public: false, reason })

/**
 * IPv6 blocks refused whatever ipaddr.js says: it calls `::/96` unicast, and the others are
 * tunnels or retired ranges that can lead back into private networks.
 */
const refusedV6: ReadonlyArray<readonly [cidr: string, reason: string]> = [
  ["::/96", "IPv4-compatible IPv6 address (::/96)"],
  ["64:ff9b:1::/48", "local-use NAT64 prefix (64:ff9b:1::/48)"],
  ["2001::/32", "Teredo tunnel address (2001::/32)"],
  ["fec0::/10", "site-local IPv6 address (fec0::/10)"],
  ["100::/64", "discard-only IPv6 address (100::/64)"]
]

const refusedV6Ranges = refusedV6.map(([cidr, reason]) => [ipaddr.IPv6.parseCIDR(cidr), reason] as const)
const nat64 = ipaddr.IPv6.parseCIDR("64:ff9b::/96")
const sixToFour = ipaddr.IPv6.parseCIDR("2002::/16")
// IANA has allocated global unicast only inside 2000::/3; anything else is not the internet.
const globalUnicast = ipaddr.IPv6.parseCIDR("2000::/3")

const v4FromParts = (high: number, low: number): ipaddr.IPv4 => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])

const classifyV4 = (address: ipaddr.IPv4): AddressVerdict => {
  const range = address.range()
  return range === "unicast" ? allowed : refused(`${range} IPv4 address`)
}

/** NAT64 and 6to4 carry an IPv4 address: they are exactly as public as that address. */
const embeddedV4 = (address: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const [, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = address.parts
  if (address.match(nat64)) return v4FromParts(p6, p7)
  if (address.match(sixToFour)) return v4FromParts(p1, p2)
  return undefined
}

const classifyV6 = (address: ipaddr.IPv6): AddressVerdict => {
  const range = address.range()
  const v4 = embeddedV4(address)
  if (v4 !== undefined) {
    const verdict = classifyV4(v4)
    return verdict.public ? verdict : refused(`${verdict.reason} embedded in ${range} IPv6 address`)
  }
  if (range !== "unicast") return refused(`${range} IPv6 address`)
  for (const [block, reason] of refusedV6Ranges) {
    if (address.match(block)) return refused(reason)
  }
  return address.match(globalUnicast) ? allowed : refused("IPv6 address outside global unicast 2000::/3")
}

/** Classifies a literal IPv4/IPv6 address (no brackets); anything else is refused. */
export const classifyAddress = (ip: string): AddressVerdict => {
  // net.isIP accepts only the forms Node will connect to, so ipaddr.js cannot read it differently.
  if (isIP(ip) === 0) return refused("not an IP address")
  try {
    const address = ipaddr.process(ip) // ::ffff:a.b.c.d becomes a.b.c.d
    return address instanceof ipaddr.IPv4 ? classifyV4(address) : classifyV6(address)
  } catch {
    return refused("unparseable IP address")
  }
}

export const isPublicAddress = (ip: string): boolean => classifyAddress(ip).public
