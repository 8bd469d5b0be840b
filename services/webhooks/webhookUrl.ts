import { Effect, Either } from "effect"
import { Errors } from "../../domain/errors.js"
import { classifyAddress } from "../platform/outbound/addressPolicy.js"
import { type AllowedOrigin, isAllowedOrigin } from "../platform/outbound/allowList.js"
import type { Resolver } from "../platform/outbound/resolver.js"
import { checkUrl } from "../platform/outbound/targetUrl.js"

const refused = (reason: string) =>
  Errors.badRequest(
    `url must be a public http or https address (${reason}).`,
    "Use the address of a receiver on the internet, for example https://example.com/webhooks. Localhost and private addresses are refused."
  )

/**
 * Configuring a webhook: the address must be public http or https; localhost and private
 * addresses are refused, with the outbound client's own rules (the same URL parsing and
 * address policy, OUTBOUND_ALLOW's origins counting as public). A name is resolved once:
 * an answer with a private address is refused; a name that does not resolve yet is kept
 * (every delivery checks the address it connects to again).
 */
export const checkWebhookUrl = (raw: string, allow: ReadonlyArray<AllowedOrigin>, resolver: Resolver) =>
  Effect.gen(function* () {
    const checked = checkUrl(raw.trim())
    if (Either.isLeft(checked)) return yield* Effect.fail(refused(checked.left.reason))
    const { url, port, target } = checked.right
    const verdict = (address: string) => (isAllowedOrigin(allow, address, port) ? { public: true as const } : classifyAddress(address))
    const addresses =
      target.kind === "address"
        ? [target.address]
        : yield* Effect.tryPromise(() => resolver(target.hostname)).pipe(
            Effect.timeout("3 seconds"),
            Effect.map((answers) => answers.map((a) => a.address)),
            Effect.orElseSucceed(() => [])
          )
    for (const address of addresses) {
      const v = verdict(address)
      if (!v.public) return yield* Effect.fail(refused(v.reason))
    }
    return url.href
  })
