import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Config, Effect, Option } from "effect"
import { Errors, PlanLimit } from "../../domain/errors.js"
import type { ChannelId, CustomerId } from "../../domain/ids.js"
import { findNetwork } from "../../domain/networks/index.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { type Choice, ConnectFailed } from "../networks/adapter.js"
import { openCredentials } from "../networks/credentials.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { AppConfig } from "../platform/config.js"
import { policyRequire } from "../platform/policy.js"
import { isRedisUnavailable } from "../platform/redis.js"
import { storageDefects } from "../platform/storageDefects.js"
import { findChannelForChoice, findChannelOnNetwork } from "../repos/channelsRepo.js"
import { customerExists } from "../repos/customersRepo.js"
import { channelLimitReached, ReconnectRefused, saveChoice, saveConnection } from "./channelConnections.js"
import { CHOICE_TTL_SECONDS, ChoiceTokens, type PendingChoice } from "./choiceTokens.js"
import { SignInStates } from "./signInStates.js"
import { withSpan } from "../platform/tracing.js"

/** The callback of a network's sign-in: `${PUBLIC_URL}/integrations/social/<network>` (not under /public/v1). */
export const callbackPath = (network: string) => `/integrations/social/${network}`

/** Where the choice of a page, organization or location is sent (a form post with `token` and `choice`). */
export const choosePath = (network: string) => `/integrations/social/${network}/choose`

/** What the callback page shows. */
export type CallbackOutcome =
  | { readonly _tag: "Connected"; readonly channelId: string; readonly name: string; readonly networkName: string }
  | {
      /** Signed in; the channel waits (inBetweenSteps) until the person picks one of `choices` with `token`. */
      readonly _tag: "Choose"
      readonly network: string
      readonly networkName: string
      readonly channelId: string
      readonly name: string
      readonly token: string
      readonly choices: ReadonlyArray<Choice>
    }
  | { readonly _tag: "Failed"; readonly message: string }
  /** Redis was away: nothing was taken, the same page works again in a moment (503, Retry-After). */
  | { readonly _tag: "Unavailable"; readonly message: string }

/** Keys a network's adapter reads from another network's when unset (LinkedIn Pages may use the LinkedIn app). */
const KEY_FALLBACKS: Readonly<Record<string, string>> = {
  LINKEDIN_PAGE_CLIENT_ID: "LINKEDIN_CLIENT_ID",
  LINKEDIN_PAGE_CLIENT_SECRET: "LINKEDIN_CLIENT_SECRET"
}

const isUnset = (key: string) =>
  Config.string(key).pipe(Config.option, Effect.map(Option.match({ onNone: () => true, onSome: (v) => v.trim() === "" })), Effect.orDie)

/** The environment variables a network's sign-in needs that this server does not have (nor their fallback). */
const missingKeys = (keys: ReadonlyArray<string>) =>
  Effect.filter(keys, (key) => {
    const fallback = KEY_FALLBACKS[key]
    return fallback === undefined ? isUnset(key) : Effect.zipWith(isUnset(key), isUnset(fallback), (a, b) => a && b)
  })

const joinNames = (names: ReadonlyArray<string>) =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`

/**
 * Connecting channels (spec: GET /social/{integration}): the sign-in link with a state
 * bound to the workspace, the customer and the channel to reconnect; the callback that
 * exchanges the code and stores the channel. The admin CLI's connection with credentials
 * is services/channels/connectWithCredentials.ts (no Redis there).
 */
export class Connections extends Effect.Service<Connections>()("channels/Connections", {
  effect: Effect.gen(function* () {
    const adapters = yield* NetworkAdapters
    const states = yield* SignInStates
    const choiceTokens = yield* ChoiceTokens
    const config = yield* AppConfig
    const { publicUrl } = config
    const sql = yield* SqlClient.SqlClient
    /** The repositories and connection writes run with the service's own database and configuration. */
    const withRepos = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      effect.pipe(Effect.provideService(SqlClient.SqlClient, sql), Effect.provideService(AppConfig, config))

    /** GET /social/{integration}?customer=&refresh=&instance= → {url}. */
    const signInLink = (input: {
      readonly network: string
      readonly customer: CustomerId | null
      readonly refresh: ChannelId | null
      readonly instance: string | null
    }) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const network = findNetwork(input.network)
        if (Option.isNone(network)) return yield* Effect.fail(Errors.unknownNetwork())
        if (network.value.noPublicApi !== undefined) {
          return yield* Effect.fail(
            Errors.badRequest(network.value.noPublicApi, "Choose another network: GET /public/v1/networks says which publish.")
          )
        }
        if (network.value.connect === "form") return yield* Effect.fail(Errors.formConnect())
        const missing = yield* missingKeys(network.value.serverKeys)
        if (missing.length > 0) {
          return yield* Effect.fail(
            Errors.badRequest(
              `${network.value.name} cannot be connected on this server yet: set ${joinNames(missing)}.`,
              "Ask the operator to set the network's keys, then try again."
            )
          )
        }
        const adapter = adapters.find(network.value.identifier)
        if (Option.isNone(adapter) || adapter.value.connect.kind !== "link") {
          return yield* Effect.fail(Errors.badRequest(`${network.value.name} cannot be connected on this server.`))
        }
        if (input.customer !== null && !(yield* customerExists(workspaceId, input.customer))) {
          return yield* Effect.fail(Errors.badRequest("There is no such customer in this workspace. GET /public/v1/groups lists them."))
        }
        if (input.refresh !== null && Option.isNone(yield* findChannelOnNetwork(workspaceId, input.refresh, network.value.identifier))) {
          return yield* Effect.fail(Errors.channelNotFound())
        }
        // a new channel over the plan's limit is refused before the person signs in (and checked again when it is stored)
        const overLimit = input.refresh === null ? yield* channelLimitReached(workspaceId, false) : Option.none()
        if (Option.isSome(overLimit)) {
          return yield* Effect.fail(overLimit.value)
        }
        const state = randomBytes(32).toString("base64url")
        const signIn = {
          workspaceId,
          customerId: input.customer,
          refreshChannelId: input.refresh,
          network: network.value.identifier,
          codeVerifier: randomBytes(48).toString("base64url"),
          instance: input.instance,
          redirectUri: `${publicUrl}${callbackPath(network.value.identifier)}`
        }
        const url = yield* adapter.value.connect
          .authorizeUrl({ state, redirectUri: signIn.redirectUri, codeVerifier: signIn.codeVerifier, instance: signIn.instance })
          .pipe(Effect.mapError((e) => Errors.badRequest(e.message)))
        // Redis away: no link without its state; 503 and the same request works in a moment
        yield* states.put(state, signIn).pipe(Effect.catchTag("RedisUnavailable", () => Effect.fail(Errors.serviceUnavailable())))
        return { url }
      }).pipe(withRepos, storageDefects, withSpan("Connections.signInLink"), policyRequire("channels.connect"))

    /** The network sent the person back: exchange the code, store the channel. Never fails: the page says what happened. */
    const completeSignIn = (network: string, query: Readonly<Record<string, string>>) =>
      Effect.gen(function* () {
        const state = query["state"] ?? ""
        const signIn = state === "" ? Option.none() : yield* states.take(state)
        if (Option.isNone(signIn) || signIn.value.network !== network) {
          return { _tag: "Failed", message: "This sign-in link has expired or was already used. Start connecting again." } as const
        }
        const networkName = Option.match(findNetwork(network), { onNone: () => network, onSome: (n) => n.name })
        if (query["error"] !== undefined) {
          return {
            _tag: "Failed",
            message: `${networkName} did not connect: ${query["error_description"] ?? query["error"]}. Start connecting again if that was a mistake.`
          } as const
        }
        const adapter = adapters.find(network)
        if (Option.isNone(adapter) || adapter.value.connect.kind !== "link")
          return { _tag: "Failed", message: `${networkName} cannot be connected on this server.` } as const
        const { codeVerifier, customerId, instance, redirectUri, refreshChannelId, workspaceId } = signIn.value
        const connected = yield* adapter.value.connect.exchange({ code: query["code"] ?? "", redirectUri, codeVerifier, instance, query })
        const saved = yield* saveConnection({ workspaceId, network, customerId, refreshChannelId, connected, name: null, postingTimes: [] })
        const choices = connected.choices ?? []
        if (choices.length > 1) {
          const token = randomBytes(32).toString("base64url")
          yield* choiceTokens.put(token, {
            workspaceId,
            channelId: saved.channelId,
            network,
            choices: choices.map((c) => ({ id: c.id, name: c.name, picture: c.picture })),
            expiresAt: Date.now() + CHOICE_TTL_SECONDS * 1000
          })
          return { _tag: "Choose", network, networkName, channelId: saved.channelId, name: connected.profile.name, token, choices } as const
        }
        return { _tag: "Connected", channelId: saved.channelId, name: connected.profile.name, networkName } as const
      }).pipe(outcomeOf, withSpan("Connections.completeSignIn", { attributes: { network } }), withRepos)

    /**
     * The person chose one of the sign-in's choices (the form of the callback page): the
     * adapter's credentials for it, stored on the waiting channel. Never fails: the page says
     * what happened; a choice that failed keeps its token so the person can choose again.
     */
    const choose = (network: string, token: string, choiceId: string) =>
      Effect.gen(function* () {
        const taken = token === "" ? Option.none<PendingChoice>() : yield* choiceTokens.take(token)
        if (Option.isNone(taken) || taken.value.network !== network) {
          return { _tag: "Failed", message: "This choice has expired or was already made. Start connecting again." } as const
        }
        const pending = taken.value
        const giveBack = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.tapError(effect, () => choiceTokens.put(token, pending))
        const networkName = Option.match(findNetwork(network), { onNone: () => network, onSome: (n) => n.name })
        const choice = pending.choices.find((c) => c.id === choiceId)
        if (choice === undefined) {
          yield* choiceTokens.put(token, pending)
          return { _tag: "Failed", message: "That is not one of the choices of this sign-in. Go back and choose one from the list." } as const
        }
        const adapter = adapters.find(network)
        if (Option.isNone(adapter) || adapter.value.choose === undefined)
          return { _tag: "Failed", message: `${networkName} cannot be connected on this server.` } as const
        const key = { workspaceId: pending.workspaceId, network, channelId: pending.channelId }
        const row = yield* findChannelForChoice(key)
        const credentials = Option.flatMap(row, (r) => (r.inBetweenSteps ? openCredentials(config.secretKey, r.credentials) : Option.none()))
        if (Option.isNone(credentials))
          return {
            _tag: "Failed",
            message: "This channel is no longer waiting for a choice (already chosen or removed). Start connecting again."
          } as const
        const connected = yield* giveBack(adapter.value.choose(credentials.value, choice.id))
        const saved = yield* giveBack(saveChoice({ ...key, connected }))
        return { _tag: "Connected", channelId: saved.channelId, name: connected.profile.name, networkName } as const
      }).pipe(outcomeOf, withSpan("Connections.choose", { attributes: { network } }), withRepos)

    return { signInLink, completeSignIn, choose }
  }),
  dependencies: [NetworkAdapters.Default, SignInStates.Live, ChoiceTokens.Live]
}) {}

/** While Redis is away the state of the sign-in is neither found nor lost: the same address works once it is back. */
const UNAVAILABLE_MESSAGE = "This sign-in cannot be checked right now: a part of the service is restarting. Reload this page in a few seconds."

/** What a refused sign-in or choice says on the page. */
const messageOf = (e: unknown): string => {
  if (e instanceof PlanLimit) return `${e.error} ${e.fix ?? ""}`.trim()
  if (e instanceof ConnectFailed || e instanceof ReconnectRefused) return e.message
  return "Something went wrong on our side. Start connecting again."
}

/** Every failure of a sign-in or a choice as the page that says it; never a 500. */
const outcomeOf = <E, R>(effect: Effect.Effect<CallbackOutcome, E, R>): Effect.Effect<CallbackOutcome, never, R> =>
  effect.pipe(
    storageDefects,
    Effect.catchAll((e) =>
      Effect.succeed<CallbackOutcome>(
        isRedisUnavailable(e) ? { _tag: "Unavailable", message: UNAVAILABLE_MESSAGE } : { _tag: "Failed", message: messageOf(e) }
      )
    ),
    Effect.catchAllDefect((defect) =>
      Effect.logError("sign-in callback failed", defect).pipe(
        Effect.as<CallbackOutcome>({ _tag: "Failed", message: "Something went wrong on our side. Start connecting again." })
      )
    )
  )
