import type { Hop } from "./exchange.js"

export const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308])

const bodyHeaders = new Set(["content-type", "content-length", "content-encoding", "content-language", "content-location"])
// Sent only to the origin the caller chose, as browsers do.
const credentialHeaders = new Set(["authorization", "cookie", "proxy-authorization"])

/** The next hop, with the fetch standard's rules: 303 (and 301/302 after POST) become a GET without body. */
export const redirectHop = (hop: Hop, status: number, from: URL, to: URL): Hop => {
  const toGet = status === 303 ? hop.method !== "HEAD" : (status === 301 || status === 302) && hop.method === "POST"
  const crossOrigin = from.origin !== to.origin
  const headers = Object.fromEntries(
    Object.entries(hop.headers).filter(([name]) => {
      const lower = name.toLowerCase()
      return !(toGet && bodyHeaders.has(lower)) && !(crossOrigin && credentialHeaders.has(lower))
    })
  )
  return toGet ? { method: "GET", headers, body: undefined } : { ...hop, headers }
}
