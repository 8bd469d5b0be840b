import http from "node:http"
import https from "node:https"
import type { CheckedUrl } from "../targetUrl.js"
import { pinnedLookup, type PinnedAddress } from "./pin.js"

/**
 * Keep-alive connections of one client (one address policy). A pooled socket is only ever
 * handed to a request for the same scheme, host name and port whose checked addresses
 * are exactly the ones it was pinned to: the agent is keyed by all of them and resolves
 * only from that list, and every new socket still passes the peer guard on connect. A
 * name that resolves differently later gets another agent, never the old sockets.
 */
export interface ConnectionPool {
  readonly agentFor: (checked: CheckedUrl, addresses: ReadonlyArray<PinnedAddress>) => http.Agent
  /** Closes every pooled socket (in use or idle). */
  readonly destroy: () => void
}

export interface PoolOptions {
  /** Connections open at once to one (origin, addresses); more requests wait for one. */
  readonly maxSocketsPerOrigin?: number
  /** Idle connections kept per (origin, addresses). */
  readonly maxIdlePerOrigin?: number
  /**
   * An idle connection is closed after this; below the 5 s of Node's servers so a socket
   * the server already closed is rarely reused (a `Keep-Alive: timeout` hint shortens it).
   */
  readonly idleMs?: number
  /** Origins remembered; the least recently used one without open requests is forgotten first. */
  readonly maxOrigins?: number
}

const busy = (agent: http.Agent) =>
  Object.values(agent.sockets).some((s) => (s?.length ?? 0) > 0) || Object.values(agent.requests).some((r) => (r?.length ?? 0) > 0)

export const makeConnectionPool = (options?: PoolOptions): ConnectionPool => {
  const maxOrigins = options?.maxOrigins ?? 256
  const agents = new Map<string, http.Agent>()
  const agentOptions = {
    keepAlive: true,
    maxSockets: options?.maxSocketsPerOrigin ?? 64,
    maxFreeSockets: options?.maxIdlePerOrigin ?? 64,
    timeout: options?.idleMs ?? 4_000,
    scheduling: "lifo" as const
  }

  const forgetOne = () => {
    for (const [key, agent] of agents) {
      if (busy(agent)) continue
      agent.destroy()
      agents.delete(key)
      return
    }
  }

  const agentFor = (checked: CheckedUrl, addresses: ReadonlyArray<PinnedAddress>) => {
    const host = checked.target.kind === "address" ? checked.target.address : checked.target.hostname.toLowerCase()
    const key = [checked.url.protocol, host, checked.port, ...addresses.map((a) => a.address).sort()].join(" ")
    const known = agents.get(key)
    if (known !== undefined) {
      // most recently used last, so forgetOne takes the oldest
      agents.delete(key)
      agents.set(key, known)
      return known
    }
    if (agents.size >= maxOrigins) forgetOne()
    const lookup = pinnedLookup(addresses)
    const agent = checked.url.protocol === "https:" ? new https.Agent({ ...agentOptions, lookup }) : new http.Agent({ ...agentOptions, lookup })
    agents.set(key, agent)
    return agent
  }

  return {
    agentFor,
    destroy: () => {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    }
  }
}
