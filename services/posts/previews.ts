import { Effect, Either } from "effect"
import { Errors } from "../../domain/errors.js"
import { normalizePostBody } from "../../domain/posts/body.js"
import { mediaIdsOf, withMediaByPath } from "../../domain/posts/mediaByPath.js"
import { planChanges, previewPost, type PreviewChannel } from "../../domain/posts/preview.js"
import type { RulesContext } from "../../domain/posts/rules.js"
import { type MediaForPost, MediaRepo } from "../media/mediaRepo.js"
import { AppConfig } from "../platform/config.js"
import { makeChannelsRepo } from "../repos/channelsRepo.js"
import { openPlan, planOf, signPlan, withoutPlanId } from "./postPlans.js"
import { channelForRules, libraryMediaForRules, withChannelDefaults } from "./rulesContext.js"

/**
 * Preview, then commit (docs/using-the-api.md, "Preview, then commit"): POST /posts/preview
 * reads the body, the channels and the library files exactly as POST /posts does and saves
 * nothing; POST /posts with its `planId` is let through only while the body, the channels'
 * state and the networks' rules are what the preview saw.
 */
export const makePreviews = Effect.gen(function* () {
  const channelsRepo = yield* makeChannelsRepo
  const mediaRepo = yield* MediaRepo
  const { publicUrl, secretKey } = yield* AppConfig

  /** The body's channels of the workspace as they are now (a channel it does not have: 404, as POST /posts). */
  const channelsOf = (workspaceId: string, ids: ReadonlyArray<string>) =>
    channelsRepo.findMany({ workspaceId, ids: [...new Set(ids)] }).pipe(Effect.orDie)

  const preview = (workspaceId: string, body: unknown) =>
    Effect.gen(function* () {
      const given = yield* normalizePostBody(withoutPlanId(body), new Date())
      const channels = yield* channelsOf(
        workspaceId,
        given.entries.map((e) => e.channelId)
      )
      const library = yield* mediaRepo.findMany(workspaceId, mediaIdsOf(given)).pipe(Effect.orDie)
      const byId: ReadonlyMap<string, MediaForPost> = new Map(library.map((m) => [m.id, m]))
      const post = withChannelDefaults(
        withMediaByPath(given, (id) => byId.has(id), new Map()),
        channels
      )
      const context: RulesContext = {
        channels: channels.flatMap(channelForRules),
        media: (id) => {
          const m = byId.get(id)
          return m === undefined ? undefined : libraryMediaForRules(m)
        }
      }
      if (post.entries.some((e) => !context.channels.some((c) => c.id === e.channelId))) return yield* Effect.fail(Errors.channelNotFound())
      const previewed: ReadonlyArray<PreviewChannel> = previewPost(
        post,
        context,
        (id) => {
          const m = byId.get(id)
          return m === undefined ? undefined : { id: m.id, path: m.path, name: m.name, type: m.type === "video" ? "video" : "image", size: m.size }
        },
        publicUrl
      )
      return { planId: signPlan(secretKey, workspaceId, planOf(body, channels)), channels: previewed }
    })

  /**
   * The check of POST /posts with a `planId`: nothing when there is none; 409 naming what
   * changed since the preview, or that the plan is not one (expired, another workspace's).
   */
  const checkPlan = (workspaceId: string, body: unknown) =>
    Effect.gen(function* () {
      const planId = typeof body === "object" && body !== null && "planId" in body ? body.planId : undefined
      if (planId === undefined) return
      if (typeof planId !== "string") return yield* Effect.fail(Errors.badRequest("planId must be the planId a preview answered."))
      const opened = openPlan(secretKey, workspaceId, planId)
      if (Either.isLeft(opened)) {
        return yield* Effect.fail(
          Errors.planChanged(
            opened.left === "expired" ? "the preview expired (a plan is kept one hour)" : "this planId is not a preview of this workspace"
          )
        )
      }
      // a channel added to the body changes the body's digest; one taken off it too
      const channels = yield* channelsOf(
        workspaceId,
        opened.right.channels.map((c) => c.channelId)
      )
      const changes = planChanges(opened.right, planOf(body, channels))
      if (changes.length > 0) return yield* Effect.fail(Errors.planChanged(changes.join("; ")))
    })

  return { preview, checkPlan }
})
