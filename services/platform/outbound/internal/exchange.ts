import http, { type IncomingMessage } from "node:http"
import https from "node:https"
import type { Socket } from "node:net"
import { Effect, type Scope } from "effect"
import { ConnectionFailed, ForbiddenAddress, OutboundTimeout } from "../errors.js"
import type { OutboundMethod } from "../request.js"
import type { CheckedUrl } from "../targetUrl.js"
import { pinnedLookup, type AddressPolicy, type Deadline, type PinnedAddress } from "./pin.js"

/** What is sent on one hop (a redirect may change the method and drop the body). */
export interface Hop {
  readonly method: OutboundMethod
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer | undefined
}

/** Destroys the socket unless the peer it is connected to passes the policy; answers whether it passed. */
const checkPeer = (socket: Socket, url: string, policy: AddressPolicy): boolean => {
  const address = socket.remoteAddress
  const verdict = address === undefined ? undefined : policy(address, socket.remotePort ?? 0)
  if (verdict?.public) return true
  const reason = verdict === undefined || verdict.public ? "peer address unknown" : verdict.reason
  socket.destroy(new ForbiddenAddress({ url, ...(address === undefined ? {} : { address }), reason }))
  return false
}

/**
 * Last line of defence: refuse the peer the socket really reached, before a byte is written.
 * A new socket is checked on connect; a pooled one (already connected) is checked again now.
 * Answers through `onConnected` once the socket is connected to an accepted peer.
 */
const guardPeer = (socket: Socket, url: string, policy: AddressPolicy, onConnected: () => void) => {
  if (!socket.connecting && socket.remoteAddress !== undefined) {
    if (checkPeer(socket, url, policy)) onConnected()
    return
  }
  socket.prependOnceListener("connect", () => {
    if (checkPeer(socket, url, policy)) onConnected()
  })
}

/**
 * One request to one checked URL, connected only to `addresses`; the response lives until
 * the scope closes. With `agent` (from the client's ConnectionPool, made for exactly this
 * URL's scheme, host, port and `addresses`) a kept-alive socket may be reused; without, a
 * fresh socket is opened and closed. At the `deadline` the request is abandoned.
 */
export const exchange = (
  checked: CheckedUrl,
  addresses: ReadonlyArray<PinnedAddress>,
  hop: Hop,
  policy: AddressPolicy,
  agent?: http.Agent,
  deadline?: Deadline
): Effect.Effect<IncomingMessage, ConnectionFailed | ForbiddenAddress | OutboundTimeout, Scope.Scope> => {
  const { url, port, target } = checked
  const send = Effect.async<
    { readonly request: http.ClientRequest; readonly response: IncomingMessage },
    ConnectionFailed | ForbiddenAddress | OutboundTimeout
  >((resume) => {
    const request = (url.protocol === "https:" ? https : http).request({
      protocol: url.protocol,
      hostname: target.kind === "address" ? target.address : target.hostname,
      port,
      path: `${url.pathname}${url.search}`,
      method: hop.method,
      headers: hop.headers,
      // never the global agent: no pooled sockets shared with code that did not check them
      agent: agent ?? false,
      lookup: pinnedLookup(addresses)
    })
    let connected = false
    request.on("socket", (socket) =>
      guardPeer(socket, url.href, policy, () => {
        connected = true
      })
    )
    const timer = deadline === undefined ? undefined : setTimeout(() => request.destroy(deadline.error()), Math.max(0, deadline.at - Date.now()))
    request.once("response", (response) => {
      clearTimeout(timer)
      // limitBody reports body errors; until it is attached a reset must not crash the process.
      response.on("error", () => {})
      resume(Effect.succeed({ request, response }))
    })
    request.on("error", (e) => {
      clearTimeout(timer)
      resume(
        Effect.fail(
          e instanceof ForbiddenAddress || e instanceof OutboundTimeout
            ? e
            : new ConnectionFailed({ url: url.href, reason: e.message, afterConnect: connected })
        )
      )
    })
    request.end(hop.body)
    return Effect.sync(() => {
      clearTimeout(timer)
      request.destroy()
    })
  })
  // Not acquireRelease: its acquire is uninterruptible and the deadline must be able to stop a silent server.
  return Effect.uninterruptibleMask((restore) =>
    restore(send).pipe(
      Effect.tap(({ request, response }) =>
        Effect.addFinalizer(() =>
          Effect.sync(() => {
            response.destroy()
            request.destroy()
          })
        )
      ),
      Effect.map(({ response }) => response)
    )
  )
}
