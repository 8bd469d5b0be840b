import { isIP, type LookupFunction } from "node:net"
import { Effect } from "effect"
import type { AddressVerdict } from "../addressPolicy.js"
import { ConnectionFailed, ForbiddenAddress, OutboundTimeout } from "../errors.js"
import type { Resolver } from "../resolver.js"
import type { CheckedUrl } from "../targetUrl.js"

/** Decides per connection; production always uses classifyAddress, tests may allow a loopback port. */
export type AddressPolicy = (address: string, port: number) => AddressVerdict

/**
 * The request's one deadline, enforced with plain timers by each waiting step (resolution,
 * each hop, the body) rather than a forked timeout fiber per request.
 */
export interface Deadline {
  /** Epoch milliseconds. */
  readonly at: number
  readonly error: () => OutboundTimeout
}

/** Settles with the deadline's error if `promise` has not settled by then. */
export const beforeDeadline = <A>(promise: Promise<A>, deadline: Deadline | undefined): Promise<A> =>
  deadline === undefined
    ? promise
    : new Promise<A>((resolve, reject) => {
        const timer = setTimeout(() => reject(deadline.error()), Math.max(0, deadline.at - Date.now()))
        promise.then(
          (value) => {
            clearTimeout(timer)
            resolve(value)
          },
          (e: unknown) => {
            clearTimeout(timer)
            reject(e)
          }
        )
      })

export interface PinnedAddress {
  readonly address: string
  readonly family: 4 | 6
}

const familyOf = (address: string): 4 | 6 | undefined => {
  const family = isIP(address)
  return family === 4 || family === 6 ? family : undefined
}

/** Every address the connection may use, each one checked; one refused address refuses the name. */
export const pinTarget = (
  checked: CheckedUrl,
  policy: AddressPolicy,
  resolver: Resolver,
  deadline?: Deadline
): Effect.Effect<ReadonlyArray<PinnedAddress>, ForbiddenAddress | ConnectionFailed | OutboundTimeout> =>
  Effect.gen(function* () {
    const url = checked.url.href
    const target = checked.target
    const answers =
      target.kind === "address"
        ? [{ address: target.address }]
        : yield* Effect.tryPromise({
            try: () => beforeDeadline(resolver(target.hostname), deadline),
            catch: (e) =>
              e instanceof OutboundTimeout ? e : new ConnectionFailed({ url, reason: `could not resolve ${target.hostname}: ${String(e)}` })
          })
    if (answers.length === 0) return yield* new ConnectionFailed({ url, reason: "the name has no address" })
    const pinned: Array<PinnedAddress> = []
    for (const { address } of answers) {
      const family = familyOf(address)
      if (family === undefined) return yield* new ForbiddenAddress({ url, address, reason: "resolver answered with a non-IP" })
      const verdict = policy(address, checked.port)
      if (!verdict.public) return yield* new ForbiddenAddress({ url, address, reason: verdict.reason })
      pinned.push({ address, family })
    }
    return pinned
  })

const wantedFamily = (family: number | "IPv4" | "IPv6" | undefined): 4 | 6 | undefined =>
  family === 4 || family === "IPv4" ? 4 : family === 6 || family === "IPv6" ? 6 : undefined

/**
 * Node calls this at connect time; answering only from the checked list (never asking DNS
 * again) is what closes the DNS-rebinding gap.
 */
export const pinnedLookup =
  (addresses: ReadonlyArray<PinnedAddress>): LookupFunction =>
  (hostname, options, callback) => {
    const family = wantedFamily(options.family)
    const candidates = family === undefined ? addresses : addresses.filter((a) => a.family === family)
    process.nextTick(() => {
      const first = candidates[0]
      if (first === undefined) {
        callback(Object.assign(new Error(`no checked IPv${family} address for ${hostname}`), { code: "ENOTFOUND" }), "", 0)
      } else if (options.all === true) {
        callback(
          null,
          candidates.map(({ address, family }) => ({ address, family }))
        )
      } else {
        callback(null, first.address, first.family)
      }
    })
  }
