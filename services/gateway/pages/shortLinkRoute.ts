import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { SHORT_LINK_PATH } from "../../../domain/shortLinks.js"
import { ShortLinks } from "../../shortLinks/ShortLinks.js"
import { page } from "./html.js"

const notFound = () =>
  HttpServerResponse.text(page("Link not found", "<h1>This link does not exist</h1><p>Check the address; short links are case-sensitive.</p>"), {
    status: 404,
    contentType: "text/html; charset=utf-8",
    headers: { "cache-control": "no-store" }
  })

/**
 * GET /l/<code>: 302 to the link's address, the click counted; an unknown code gets a
 * 404 page and no redirect. Not cached by browsers or proxies, so every click is counted.
 */
export const ShortLinkRouteLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const links = yield* ShortLinks
    yield* router.get(
      `${SHORT_LINK_PATH}:code`,
      Effect.gen(function* () {
        const code = (yield* HttpRouter.params)["code"] ?? ""
        const url = yield* links.follow(code)
        return Option.match(url, {
          onNone: notFound,
          onSome: (location) => HttpServerResponse.empty({ status: 302, headers: { location, "cache-control": "no-store" } })
        })
      })
    )
  })
)
