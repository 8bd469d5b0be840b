import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { Principal } from "../../../domain/roles.js"
import { ReviewPost } from "../../../protocol/actors.js"
import { AppConfig } from "../../platform/config.js"
import { makePostsStore } from "../../posts/postsStore.js"
import { ActorClient } from "../actorClient.js"
import { notFoundPage, sharePage } from "./sharePage.js"

const TokenParam = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{16,64}$/))
const ChangesForm = Schema.Struct({ comment: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(5000)) })

const html = (body: string, status = 200) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: { "cache-control": "no-store" } })

/**
 * The share page (no login; the link's token is the key): GET shows the post; for a
 * post in review the client approves or asks for changes, as the workspace actor's
 * `ReviewPost` command, acting as the post's customer.
 */
export const ShareRoutesLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* makePostsStore
    const actors = yield* ActorClient
    const { publicUrl } = yield* AppConfig

    const findByToken = (token: string) =>
      Effect.gen(function* () {
        if (!Schema.is(TokenParam)(token)) return Option.none()
        const rows = yield* sql<{ id: string; workspaceId: string; reviewer: string | null }>`
          SELECT g.id, g.workspace_id,
            (SELECT cu.name FROM posts p JOIN channels c ON c.id = p.channel_id JOIN customers cu ON cu.id = c.customer_id
             WHERE p.group_id = g.id AND p.deleted_at IS NULL ORDER BY p.ordinal LIMIT 1) AS reviewer
          FROM post_groups g WHERE g.share_token = ${token} AND g.deleted_at IS NULL`
        return Option.fromNullable(rows[0])
      })

    const show = (token: string, notice: string | null) =>
      Effect.gen(function* () {
        const found = yield* findByToken(token)
        if (Option.isNone(found)) return html(notFoundPage(), 404)
        const post = yield* store.renderWholePost(found.value.workspaceId, found.value.id)
        return html(sharePage(post, `${publicUrl}/p/${token}`, notice))
      })

    const decide = (decision: "approve" | "changes") =>
      Effect.gen(function* () {
        const token = (yield* HttpRouter.params)["token"] ?? ""
        const found = yield* findByToken(token)
        if (Option.isNone(found)) return html(notFoundPage(), 404)
        let comment = ""
        if (decision === "changes") {
          const form = yield* HttpServerRequest.schemaBodyForm(ChangesForm).pipe(Effect.option)
          if (Option.isNone(form)) return yield* show(token, "Please say what should change.")
          comment = form.value.comment
        }
        const reviewer = found.value.reviewer ?? "Client"
        const principal: Principal = { workspaceId: found.value.workspaceId, userId: null, role: "client", tokenKind: "share", actor: reviewer }
        const result = yield* actors.send(principal, new ReviewPost({ groupId: found.value.id, decision, comment, reviewer })).pipe(Effect.either)
        if (result._tag === "Left") return yield* show(token, result.left.error)
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
