import { Effect, Option, Schema } from "effect"
import type { Principal } from "../../domain/roles.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { authorize } from "../platform/policy.js"
import { Posts } from "../posts/Posts.js"
import { PostsReadRepo } from "../posts/postsReadRepo.js"
import { withSpan } from "../platform/tracing.js"

/** The link's token: unguessable, URL-safe. */
const ShareToken = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{16,64}$/))
const isShareToken = Schema.is(ShareToken)

/**
 * Share and review (spec: previewUrl / shareUrl): anyone with the link sees the post; for
 * a post in review, the client approves or asks for changes. The link itself is the key,
 * so it acts as the post's customer with the client role, through the same Posts.review
 * (and the same policy) as every other edge.
 */
export class Share extends Effect.Service<Share>()("share/Share", {
  effect: Effect.gen(function* () {
    const store = yield* PostsReadRepo
    const posts = yield* Posts

    const find = (token: string) => (isShareToken(token) ? store.findByShareToken(token).pipe(Effect.orDie) : Effect.succeed(Option.none()))

    /** The post behind a link, as the whole post, or None. */
    const open = (token: string) =>
      Effect.gen(function* () {
        const found = yield* find(token)
        if (Option.isNone(found)) return Option.none()
        const post = yield* store
          .renderWholePost(found.value.workspaceId, found.value.id)
          .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
        return Option.some(post)
      }).pipe(withSpan("Share.open"))

    /** The client's decision; None when the link leads nowhere. */
    const decide = (token: string, decision: "approve" | "changes", comment: string) =>
      Effect.gen(function* () {
        const found = yield* find(token)
        if (Option.isNone(found)) return Option.none()
        const reviewer = found.value.reviewer ?? "Client"
        const principal: Principal = {
          workspaceId: found.value.workspaceId,
          userId: null,
          role: "client",
          tokenKind: "share",
          actor: reviewer
        }
        const result = yield* posts
          .review({ groupId: found.value.id, decision, comment, reviewer })
          .pipe(authorize("posts.review"), Effect.provideService(CurrentPrincipal, principal))
        return Option.some(result)
      }).pipe(withSpan("Share.decide"))

    return { open, decide }
  }),
  dependencies: [PostsReadRepo.Live, Posts.Default]
}) {}
