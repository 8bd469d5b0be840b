import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { type CallbackOutcome, Connections } from "../../channels/Connections.js"
import { escapeHtml, page } from "./html.js"

/** The page a person sees after a network's sign-in: connected, or why not (never the credentials). */
export const callbackPage = (outcome: CallbackOutcome): string =>
  outcome._tag === "Connected"
    ? page(
        "Connected",
        `<h1>Connected</h1><p>${escapeHtml(outcome.name)} on ${escapeHtml(outcome.networkName)} is connected. You can close this page.</p>`
      )
    : page("Not connected", `<h1>Not connected</h1><p>${escapeHtml(outcome.message)}</p>`)

/**
 * GET /integrations/social/:network: where networks send the person back after signing in
 * (the redirect URI of GET /public/v1/social). Query: code, state (and what else the
 * network adds, e.g. Discord's guild_id), or error.
 */
export const SocialCallbackRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const connections = yield* Connections
    yield* router.get(
      "/integrations/social/:network",
      Effect.gen(function* () {
        const network = (yield* HttpRouter.params)["network"] ?? ""
        const params = yield* HttpServerRequest.ParsedSearchParams
        const query = Object.fromEntries(
          Object.entries(params).flatMap(([k, v]) =>
            typeof v === "string" ? [[k, v]] : Array.isArray(v) && typeof v[0] === "string" ? [[k, v[0]]] : []
          )
        )
        const outcome = yield* connections.completeSignIn(network, query)
        return HttpServerResponse.text(callbackPage(outcome), {
          status: outcome._tag === "Connected" ? 200 : 400,
          contentType: "text/html; charset=utf-8",
          headers: { "cache-control": "no-store", "referrer-policy": "no-referrer" }
        })
      })
    )
  })
)
