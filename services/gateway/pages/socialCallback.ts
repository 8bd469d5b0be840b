import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { type CallbackOutcome, Connections } from "../../channels/Connections.js"
import { choosePage } from "./choosePage.js"
import { escapeHtml, page } from "./html.js"
import { readForm, readQuery } from "./sessionEdge.js"

/** The page a person sees after a network's sign-in: connected, the choices to make, or why not (never the credentials). */
export const callbackPage = (outcome: CallbackOutcome): string =>
  outcome._tag === "Connected"
    ? page(
        "Connected",
        `<h1>Connected</h1><p>${escapeHtml(outcome.name)} on ${escapeHtml(outcome.networkName)} is connected. You can close this page.</p>`
      )
    : outcome._tag === "Choose"
      ? choosePage(outcome)
      : outcome._tag === "Unavailable"
        ? page("Try again in a moment", `<h1>Try again in a moment</h1><p>${escapeHtml(outcome.message)}</p>`)
        : page("Not connected", `<h1>Not connected</h1><p>${escapeHtml(outcome.message)}</p>`)

const pageHeaders = { "cache-control": "no-store", "referrer-policy": "no-referrer", "x-frame-options": "DENY" }

const respond = (outcome: CallbackOutcome) =>
  HttpServerResponse.text(callbackPage(outcome), {
    status: outcome._tag === "Failed" ? 400 : outcome._tag === "Unavailable" ? 503 : 200,
    contentType: "text/html; charset=utf-8",
    headers: outcome._tag === "Unavailable" ? { ...pageHeaders, "retry-after": "2" } : pageHeaders
  })

/**
 * GET /integrations/social/:network: where networks send the person back after signing in
 * (the redirect URI of GET /public/v1/social). Query: code, state (and what else the
 * network adds, e.g. Discord's guild_id), or error.
 * POST /integrations/social/:network/choose: the page, organization or location chosen on
 * that page (form fields `token` and `choice`).
 */
export const SocialCallbackRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const connections = yield* Connections
    yield* router.get(
      "/integrations/social/:network",
      Effect.gen(function* () {
        const network = (yield* HttpRouter.params)["network"] ?? ""
        return respond(yield* connections.completeSignIn(network, yield* readQuery))
      })
    )
    yield* router.post(
      "/integrations/social/:network/choose",
      Effect.gen(function* () {
        const network = (yield* HttpRouter.params)["network"] ?? ""
        const form = yield* readForm
        return respond(yield* connections.choose(network, form["token"] ?? "", form["choice"] ?? ""))
      })
    )
  })
)
