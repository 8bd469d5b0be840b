import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"

/**
 * The client's IP address, for the per-IP windows of the OAuth endpoints. By default the
 * socket's peer address: X-Forwarded-For is written by whoever sends the request, so
 * trusting it would let any client pick a fresh address per request. Behind proxies the
 * operator sets TRUST_PROXY to their number: each appends the address it received from,
 * so the client is the entry that many places from the right (the socket being the last
 * proxy). Entries further left were written by the client and are never used.
 */
export const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: number): string => {
  const socket = Option.getOrElse(request.remoteAddress, () => "unknown")
  if (trustProxy === 0) return normalize(socket)
  const forwarded = (request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  const chain = [...forwarded, socket]
  return normalize(chain[Math.max(0, chain.length - 1 - trustProxy)] ?? socket)
}

/** `::ffff:1.2.3.4` (IPv4 on a dual-stack socket) counts as `1.2.3.4`. */
const normalize = (address: string): string => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1")
