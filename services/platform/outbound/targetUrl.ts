import { isIP } from "node:net"
import { Either } from "effect"
import { BadUrl, ForbiddenAddress } from "./errors.js"

/** Where a checked URL points: an IP literal is classified as is, a name must be resolved first. */
export type Target = { readonly kind: "address"; readonly address: string } | { readonly kind: "name"; readonly hostname: string }

export interface CheckedUrl {
  readonly url: URL
  readonly port: number
  readonly target: Target
}

const defaultPorts: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 }

/** Names refused before any resolution; their addresses would be refused too, this is belt and braces. */
const refusedNames: ReadonlyArray<{ readonly matches: (name: string) => boolean; readonly reason: string }> = [
  { matches: (n) => n === "localhost" || n.endsWith(".localhost"), reason: "localhost names are loopback" },
  { matches: (n) => n.endsWith(".internal"), reason: ".internal names are private (metadata.google.internal)" },
  { matches: (n) => !n.includes("."), reason: "single-label names resolve through local search domains" }
]

/**
 * Parses with the WHATWG parser (which turns 2130706433, 0x7f.1, 0177.0.0.1 into 127.0.0.1)
 * and refuses what can never be a public http(s) target. `base` resolves redirect Locations.
 */
export const checkUrl = (raw: string, base?: URL): Either.Either<CheckedUrl, BadUrl | ForbiddenAddress> => {
  const bad = (reason: string) => Either.left(new BadUrl({ url: raw, reason }))
  // WHATWG reads "\" as "/" while other parsers do not; refuse rather than guess what was meant.
  if (raw.includes("\\")) return bad("URL contains a backslash")
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    return bad("not a valid URL")
  }
  const defaultPort = defaultPorts[url.protocol]
  if (defaultPort === undefined) return bad(`scheme ${url.protocol} is not allowed (http or https only)`)
  if (url.username !== "" || url.password !== "") return bad("URL must not contain a user name or password")
  const checked = (target: Target) => Either.right({ url, port: Number(url.port || defaultPort), target })
  if (url.hostname.startsWith("[")) return checked({ kind: "address", address: url.hostname.slice(1, -1) })
  if (isIP(url.hostname) === 4) return checked({ kind: "address", address: url.hostname })
  const name = url.hostname.toLowerCase().replace(/\.+$/, "")
  const refusal = refusedNames.find((rule) => rule.matches(name))
  if (refusal !== undefined) return Either.left(new ForbiddenAddress({ url: url.href, reason: refusal.reason }))
  return checked({ kind: "name", hostname: url.hostname })
}
