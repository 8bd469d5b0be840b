import { isIP } from "node:net"
import { Config, Data, Effect } from "effect"
import type { Resolver } from "./resolver.js"

/** One origin the operator allows although its address is private or loopback. */
export interface AllowedOrigin {
  readonly address: string
  readonly port: number
}

/** OUTBOUND_ALLOW holds something that is not `host:port`. */
export class OutboundAllowInvalid extends Data.TaggedError("OutboundAllowInvalid")<{ readonly message: string }> {}

/** `host:port` or `[v6]:port`; the host is an IP address or a name resolved once at start. */
const parseEntry = (entry: string): { readonly host: string; readonly port: number } | null => {
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(entry)
  if (match === null) return null
  const host = match[1] ?? match[2] ?? ""
  const port = Number(match[3])
  if (host === "" || port < 1 || port > 65535) return null
  if (match[1] !== undefined && isIP(host) !== 6) return null
  return { host, port }
}

/**
 * OUTBOUND_ALLOW (the only exemption to rule 5 of docs/architecture.md, "Rules every part keeps"): comma-separated `host:port` origins that
 * outbound calls may reach although they are private or loopback — a self-hosted network
 * or webhook receiver on a LAN, local simulators in tests. The exemption is for the
 * address AND port: every other port of the same host stays refused. Names are resolved
 * once when the process starts (every address they have is allowed on that port).
 */
export const parseOutboundAllow = (text: string, resolver: Resolver) =>
  Effect.gen(function* () {
    const entries = text
      .split(",")
      .map((e) => e.trim())
      .filter((e) => e !== "")
    const origins: Array<AllowedOrigin> = []
    for (const entry of entries) {
      const parsed = parseEntry(entry)
      if (parsed === null) {
        return yield* new OutboundAllowInvalid({
          message: `OUTBOUND_ALLOW: "${entry}" is not host:port. Write origins like 127.0.0.1:4000,[::1]:4000,simulator.lan:8080`
        })
      }
      if (isIP(parsed.host) !== 0) {
        origins.push({ address: parsed.host, port: parsed.port })
        continue
      }
      const answers = yield* Effect.tryPromise({
        try: () => resolver(parsed.host),
        catch: (e) => new OutboundAllowInvalid({ message: `OUTBOUND_ALLOW: cannot resolve ${parsed.host}: ${String(e)}` })
      })
      for (const { address } of answers) origins.push({ address, port: parsed.port })
    }
    return origins
  })

/** The allow list last logged by this process: each outbound client reads it, it is said once. */
let logged = ""

/** The allowed origins from the environment (empty when OUTBOUND_ALLOW is unset), logged when set. */
export const outboundAllowFromEnv = (resolver: Resolver) =>
  Effect.gen(function* () {
    const text = yield* Config.string("OUTBOUND_ALLOW").pipe(Config.withDefault(""))
    const origins = yield* parseOutboundAllow(text, resolver)
    const listed = origins.map((o) => (isIP(o.address) === 6 ? `[${o.address}]:${o.port}` : `${o.address}:${o.port}`)).join(",")
    if (origins.length > 0 && listed !== logged) {
      logged = listed
      yield* Effect.logInfo("OUTBOUND_ALLOW: outbound calls may reach these private or loopback origins").pipe(Effect.annotateLogs("origins", listed))
    }
    return origins
  })

/** Whether (address, port) is one of the allowed origins; `::ffff:a.b.c.d` counts as a.b.c.d. */
export const isAllowedOrigin = (origins: ReadonlyArray<AllowedOrigin>, address: string, port: number): boolean => {
  const plain = address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address
  return origins.some((o) => o.port === port && (o.address === plain || o.address === address))
}
