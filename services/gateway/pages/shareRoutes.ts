import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option, Schema } from "effect"
import { AppConfig } from "../../platform/config.js"
import { Share } from "../../share/Share.js"
import { notFoundPage, sharePage } from "./sharePage.js"

const ChangesForm = Schema.Struct({ comment: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(5000)) })

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })

/**
 * The share page (no login; the link's token is the key): GET shows the post; for a post
 * in review the client approves or asks for changes. Page shape only: Share does the work.
 */
export const ShareRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const share = yield* Share
    const { publicUrl } = yield* AppConfig

    const show = (token: string, notice: string | null) =>
      share.open(token).pipe(
        Effect.map(
          Option.match({
            onNone: () => html(notFoundPage(), 404),
            onSome: (post) => html(sharePage(post, `${publicUrl}/p/${token}`, notice))
          })
        )
      )

    const decide = (decision: "approve" | "changes") =>
      Effect.gen(function* () {
        const token = (yield* HttpRouter.params)["token"] ?? ""
        let comment = ""
        if (decision === "changes") {
          const form = yield* HttpServerRequest.schemaBodyForm(ChangesForm).pipe(Effect.option)
          if (Option.isNone(form)) return yield* show(token, "Please say what should change.")
          comment = form.value.comment
        }
        const result = yield* share.decide(token, decision, comment).pipe(Effect.either)
        if (Either.isLeft(result)) return yield* show(token, result.left.error)
        if (Option.isNone(result.right)) return html(notFoundPage(), 404)
        return HttpServerResponse.empty({ status: 303, headers: { location: `${publicUrl}/p/${token}?done=${decision}` } })
      })

    yield* router.get(
      "/p/:token",
      Effect.gen(function* () {
        const params = yield* HttpServerRequest.ParsedSearchParams
        const token = (yield* HttpRouter.params)["token"]
        const done = params["done"]
        const notice = done === "approve" ? "Thank you: the post is approved." : done === "changes" ? "Thank you: your comment was sent." : null
        return yield* show(token ?? "", notice)
      })
    )
    yield* router.post("/p/:token/approve", decide("approve"))
    yield* router.post("/p/:token/changes", decide("changes"))
  })
)
