import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { PostRef } from "../../../domain/ids.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { authorize } from "../../platform/policy.js"
import { Posts } from "../../posts/Posts.js"
import { readJsonBody } from "../errorResponse.js"

/** Posts: contract → Posts, each with its policy check. */
export const PostsHttpLive = HttpApiBuilder.group(PublicApi, "posts", (handlers) =>
  Effect.gen(function* () {
    const posts = yield* Posts
    // made once, not per request (docs/performance.md, "Generator functions made once")
    const createPosts = Effect.fnUntraced(function* (idempotencyKey: string | null) {
      // POST /posts reads its body itself: both forms, aliases and the spec's own 400 texts
      const body: unknown = yield* readJsonBody
      const answer = yield* posts.create(body, idempotencyKey).pipe(authorize("posts.write"))
      return HttpServerResponse.unsafeJson(answer.body, {
        status: answer.statusCode,
        headers: answer.replayed ? { "idempotent-replayed": "true" } : {}
      })
    })
    return handlers
      .handle("listPosts", ({ urlParams }) => posts.list(urlParams).pipe(authorize("posts.read")))
      .handleRaw("createPosts", ({ headers }) => createPosts(headers["idempotency-key"] ?? null))
      .handleRaw("previewPost", () =>
        Effect.flatMap(readJsonBody, (body) => posts.preview(body).pipe(authorize("posts.write"))).pipe(
          Effect.map((p) => HttpServerResponse.unsafeJson(p))
        )
      )
      .handle("getPost", ({ path }) => posts.get(PostRef.make(path.id)).pipe(authorize("posts.read")))
      .handle("retryPost", ({ path }) => posts.retry(PostRef.make(path.id)).pipe(authorize("posts.write")))
      .handle("linkRelease", ({ path, payload }) =>
        posts.linkRelease(PostRef.make(path.id), payload.releaseId, payload.releaseUrl ?? null).pipe(authorize("posts.write"))
      )
      .handle("missingPost", ({ path }) => posts.missing(PostRef.make(path.id)).pipe(authorize("posts.read")))
      .handle("postAttempts", ({ path }) => posts.attempts(PostRef.make(path.id)).pipe(authorize("posts.read")))
      .handle("movePost", ({ path, payload }) => posts.move(PostRef.make(path.id), payload.date).pipe(authorize("posts.write")))
      .handle("setPostStatus", ({ path, payload }) => posts.setStatus(PostRef.make(path.id), payload.status).pipe(authorize("posts.write")))
      .handle("setPostSettings", ({ path, payload }) => posts.setSettings(PostRef.make(path.id), payload.settings).pipe(authorize("posts.write")))
      .handle("deletePost", ({ path }) => posts.remove(PostRef.make(path.id)).pipe(authorize("posts.write")))
      .handle("deletePostGroup", ({ path }) => posts.remove(PostRef.make(path.group)).pipe(authorize("posts.write")))
  })
)
