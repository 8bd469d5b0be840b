import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Errors } from "../../../domain/errors.js"
import { dateExample, parseZonedDate } from "../../../domain/posts/dates.js"
import { CreatePosts, DeletePost, MovePost, SetPostSettings, SetPostStatus } from "../../../protocol/actors.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { makePostsStore } from "../../posts/postsStore.js"
import { ActorClient } from "../actorClient.js"
import { toApiError } from "../errorResponse.js"

const DAY_MS = 24 * 3600 * 1000

/** GET /posts range: ISO 8601 dates; default 30 days back to 30 days ahead. */
const rangeDate = (text: string | undefined, fallback: Date) =>
  Effect.gen(function* () {
    if (text === undefined || text === "") return fallback
    const parsed = parseZonedDate(text) ?? (Number.isNaN(Date.parse(text)) ? null : new Date(text))
    if (parsed === null) return yield* Effect.fail(Errors.invalidDate(dateExample(new Date())))
    return parsed
  })

export const PostsHttpLive = HttpApiBuilder.group(PublicApi, "posts", (handlers) =>
  Effect.gen(function* () {
    const store = yield* makePostsStore
    const actors = yield* ActorClient
    return handlers
      .handle("listPosts", ({ urlParams }) =>
        Effect.gen(function* () {
          const { workspaceId } = yield* CurrentPrincipal
          const now = Date.now()
          const start = yield* rangeDate(urlParams.startDate, new Date(now - 30 * DAY_MS))
          const end = yield* rangeDate(urlParams.endDate, new Date(now + 30 * DAY_MS))
          const posts = yield* store.listRows({ workspaceId, start, end, customerId: urlParams.customer ?? null }).pipe(Effect.orDie)
          return { posts }
        })
      )
      .handleRaw("createPosts", ({ headers }) =>
        Effect.gen(function* () {
          const principal = yield* CurrentPrincipal
          const request = yield* HttpServerRequest.HttpServerRequest
          const body: unknown = yield* request.json.pipe(
            Effect.catchAll((e) => Effect.fail(toApiError(e) ?? Errors.invalidJson()))
          )
          const answer = yield* actors.send(
            principal,
            new CreatePosts({ body, idempotencyKey: headers["idempotency-key"] ?? null })
          )
          return HttpServerResponse.unsafeJson(answer.body, {
            status: answer.statusCode,
            headers: answer.replayed ? { "idempotent-replayed": "true" } : {}
          })
        })
      )
      .handle("getPost", ({ path }) =>
        Effect.gen(function* () {
          const { workspaceId } = yield* CurrentPrincipal
          const groupId = yield* store.resolveGroupId(workspaceId, path.id).pipe(Effect.orDie)
          if (Option.isNone(groupId)) return yield* Effect.fail(Errors.postNotFound())
          return yield* store.renderWholePost(workspaceId, groupId.value).pipe(
            Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })
          )
        })
      )
      .handle("movePost", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => actors.send(p, new MovePost({ postId: path.id, date: payload.date })))
      )
      .handle("setPostStatus", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => actors.send(p, new SetPostStatus({ postId: path.id, status: payload.status })))
      )
      .handle("setPostSettings", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => actors.send(p, new SetPostSettings({ postId: path.id, settings: payload.settings })))
      )
      .handle("deletePost", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (p) => actors.send(p, new DeletePost({ postId: path.id })))
      )
      .handle("deletePostGroup", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (p) => actors.send(p, new DeletePost({ postId: path.group })))
      )
  })
)
