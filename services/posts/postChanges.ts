import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Either, Option } from "effect"
import { Errors, RuleProblem } from "../../domain/errors.js"
import { GroupId } from "../../domain/ids.js"
import { findNetwork } from "../../domain/networks/index.js"
import { mediaRulesOf } from "../../domain/networks/mediaRules.js"
import { readSettings } from "../../domain/posts/body.js"
import { readZonedDate } from "../../domain/posts/dates.js"
import { PostMessages } from "../../domain/posts/messages.js"
import { checkPostAgainstNetworks, mediaProblemsOf, settingsChangeProblems } from "../../domain/posts/rules.js"
import {
  approve,
  linkRelease,
  moveDate,
  remove,
  removedWithChannel,
  requestChanges,
  retry,
  setStatus,
  wholePostStatus,
  type PostStep
} from "../../domain/posts/states.js"
import type { Principal } from "../../domain/roles.js"
import type {
  DeleteChannel,
  DeletePost,
  LinkRelease,
  MovePost,
  RetryPost,
  ReviewPost,
  SetPostSettings,
  SetPostStatus
} from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { prepareAhead, retryFailedRenditions } from "../media/renditions.js"
import { makeRenditionsRepo, RenditionsRepo } from "../media/renditionsRepo.js"
import { Nats } from "../platform/nats.js"
import { policyRequire } from "../platform/policy.js"
import { storageDefects } from "../platform/storageDefects.js"
import { withSpan } from "../platform/tracing.js"
import { Transactions } from "../platform/transactions.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { PostStepsRepo } from "./postStepsRepo.js"
import { PostsReadRepo, type LoadedPost } from "./postsReadRepo.js"
import { channelForRules, storedPostForRules } from "./rulesContext.js"
import { decodeSettings, decodeStoredMedia } from "./rows.js"
import { SqlClient } from "@effect/sql"

/**
 * The changes of a stored post (the PUTs, delete, review, retry, release, a disconnected
 * channel), run by PostWriter: each loads the post locked, lets the state machine
 * (domain/posts/states.ts) decide the step, and writes it in one transaction.
 */
export const makePostChanges = Effect.gen(function* () {
  const transactions = yield* Transactions
  const reads = yield* PostsReadRepo
  const steps = yield* PostStepsRepo
  const channelsRepo = yield* ChannelsRepo
  // where NATS is (the actor host), re-queued posts have their renditions asked for at once (services/media/renditions.ts)
  const nats = yield* Effect.serviceOption(Nats)
  const sqlClient = yield* Effect.serviceOption(SqlClient.SqlClient)
  const renditions = Option.isSome(sqlClient) ? yield* Effect.provideService(makeRenditionsRepo, SqlClient.SqlClient, sqlClient.value) : null

  /** Channels the step puts in the queue (scheduled, approved, retried): their files are prepared from now on. */
  const requeued = (loaded: LoadedPost, step: PostStep) => {
    const ids = step.channels.filter((c) => c.to === "queued" && c.from !== "queued").map((c) => c.channelId)
    return loaded.posts.filter((p) => ids.includes(p.channelId))
  }

  /** The library files of these channel posts' items, with the network and settings they are prepared for. */
  const filesToPrepare = (workspaceId: string, posts: LoadedPost["posts"]) =>
    Effect.gen(function* () {
      if (renditions === null || posts.length === 0) return []
      const items = yield* reads.itemsOf(
        workspaceId,
        posts.map((p) => p.id)
      )
      return items.flatMap((i) => {
        const post = posts.find((p) => p.id === i.postId)
        const media = decodeStoredMedia(i.media)
        return post === undefined || media.length === 0 ? [] : [{ network: post.network, settings: decodeSettings(post.settings), media }]
      })
    })

  /**
   * In the change's transaction: renditions of re-queued files that failed are made pending
   * again, so the publisher sees a fresh attempt, not the old failure.
   */
  const retryFailed = (files: Effect.Effect.Success<ReturnType<typeof filesToPrepare>>) =>
    renditions === null || files.length === 0 ? Effect.void : retryFailedRenditions(files).pipe(Effect.provideService(RenditionsRepo, renditions))

  /** After the commit: their preparation jobs are started (best effort; the publisher asks again when they fall due). */
  const startPreparation = (files: Effect.Effect.Success<ReturnType<typeof filesToPrepare>>) =>
    Option.isNone(nats) || renditions === null || files.length === 0
      ? Effect.void
      : prepareAhead(files).pipe(
          Effect.provideService(Nats, nats.value),
          Effect.provideService(RenditionsRepo, renditions),
          Effect.forkDaemon,
          Effect.asVoid
        )

  /** Channels that go from draft to queued are checked against their network's rules first. */
  const checkStoredDrafts = (workspaceId: string, loaded: LoadedPost, step: PostStep) =>
    Effect.gen(function* () {
      if (step.needsRuleCheck.length === 0) return
      const posts = loaded.posts.filter((p) => step.needsRuleCheck.includes(p.channelId))
      const items = yield* reads.itemsOf(
        workspaceId,
        posts.map((p) => p.id)
      )
      const channels = yield* channelsRepo.findMany({ workspaceId, ids: posts.map((p) => p.channelId) })
      const { media, post } = storedPostForRules(loaded, posts, items)
      if (post === null) return
      const problems = checkPostAgainstNetworks(post, { channels: channels.flatMap(channelForRules), media: (id) => media.get(id) })
      if (problems.length > 0) return yield* Effect.fail(Errors.fixBeforeSaving(problems))
    })

  /** The media rule problems of one channel's stored files under these settings (PUT /posts/{id}/settings). */
  const mediaProblemsWith = (
    workspaceId: string,
    loaded: LoadedPost,
    target: LoadedPost["posts"][number],
    settings: Readonly<Record<string, unknown>>
  ) =>
    Effect.gen(function* () {
      const items = yield* reads.itemsOf(workspaceId, [target.id])
      const channels = yield* channelsRepo.findMany({ workspaceId, ids: [target.channelId] })
      const { media, post } = storedPostForRules(loaded, [{ ...target, settings }], items)
      if (post === null) return []
      return mediaProblemsOf(post, target.channelId, { channels: channels.flatMap(channelForRules), media: (id) => media.get(id) })
    })

  /** Load (locked), decide, check, write, answer the whole post: the shape of every PUT. */
  const changePost = <E>(
    postId: string,
    decide: (loaded: LoadedPost, now: Date, principal: Principal) => Either.Either<{ step: PostStep; approvedBy?: string | null }, E>,
    /** Written in the same transaction, after the step (a reviewer's comment). */
    also: (loaded: LoadedPost) => Effect.Effect<void, SqlError> = () => Effect.void
  ) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const { files, groupId } = yield* transactions.run(
        Effect.gen(function* () {
          const loaded = yield* reads.loadOr404(principal.workspaceId, postId, true)
          const { approvedBy, step } = yield* decide(loaded, new Date(), principal)
          yield* checkStoredDrafts(principal.workspaceId, loaded, step)
          yield* steps.applyStep({
            workspaceId: principal.workspaceId,
            groupId: loaded.group.id,
            shareToken: loaded.group.shareToken,
            newGroup: null,
            step,
            ...(approvedBy !== undefined ? { approvedBy } : {})
          })
          yield* also(loaded)
          const files = yield* filesToPrepare(principal.workspaceId, requeued(loaded, step))
          yield* retryFailed(files)
          return { files, groupId: loaded.group.id }
        })
      )
      yield* startPreparation(files)
      return yield* reads.renderWholePost(principal.workspaceId, groupId)
    }).pipe(storageDefects)

  /** PUT /posts/{id}/date */
  const move = (command: MovePost) =>
    Effect.gen(function* () {
      const date = yield* readZonedDate(command.date, "date", new Date())
      return yield* changePost(command.postId, (loaded, now, principal) =>
        Either.map(moveDate(loaded.snapshot, { date, now, approvalRequired: loaded.approvalRequired, actor: principal.actor }), (step) => ({ step }))
      )
    }).pipe(withSpan("PostWriter.move"), policyRequire("posts.write"))

  /** PUT /posts/{id}/status */
  const changeStatus = (command: SetPostStatus) =>
    changePost(command.postId, (loaded, now, principal) =>
      Either.right({
        step: setStatus(loaded.snapshot, { status: command.status, now, approvalRequired: loaded.approvalRequired, actor: principal.actor })
      })
    ).pipe(withSpan("PostWriter.setStatus"), policyRequire("posts.write"))

  /**
   * PUT /posts/{id}/settings: merges into one channel's settings, only before it publishes;
   * checked with the same rule as POST /posts. A group id changes the first channel.
   */
  const changeSettings = (command: SetPostSettings) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const { files, groupId } = yield* transactions.run(
        Effect.gen(function* () {
          const loaded = yield* reads.loadOr404(principal.workspaceId, command.postId, true)
          const target = loaded.posts.find((p) => p.id === command.postId) ?? loaded.posts[0]
          if (target === undefined) return yield* Effect.fail(Errors.postNotFound())
          if (!(["draft", "queued", "error"] as ReadonlyArray<string>).includes(target.status)) {
            return yield* Effect.fail(Errors.settingsAfterPublishing())
          }
          const incoming = readSettings(command.settings)
          const merged = { ...decodeSettings(target.settings), ...incoming }
          const network = findNetwork(target.network)
          const problems: Array<string> = Option.isSome(network)
            ? [...settingsChangeProblems(target.channelName, network.value, incoming, merged)]
            : []
          // a setting that changes what the network takes (the test network's media_rules) has the files checked again
          const rulesChanged = mediaRulesOf(target.network, decodeSettings(target.settings)) !== mediaRulesOf(target.network, merged)
          if (problems.length === 0 && rulesChanged) problems.push(...(yield* mediaProblemsWith(principal.workspaceId, loaded, target, merged)))
          if (problems.length > 0) {
            return yield* Effect.fail(
              Errors.fixBeforeSaving(
                problems.map((message) => new RuleProblem({ channelId: target.channelId, channelName: target.channelName, message }))
              )
            )
          }
          yield* steps.replaceSettings({
            groupId: loaded.group.id,
            postId: target.id,
            settings: merged,
            actor: principal.actor,
            channelName: target.channelName
          })
          // a queued post whose files now need other renditions has them started now
          const files =
            rulesChanged && target.status === "queued" ? yield* filesToPrepare(principal.workspaceId, [{ ...target, settings: merged }]) : []
          return { files, groupId: loaded.group.id }
        })
      )
      yield* startPreparation(files)
      return yield* reads.renderWholePost(principal.workspaceId, groupId)
    }).pipe(storageDefects, withSpan("PostWriter.setSettings"), policyRequire("posts.write"))

  /** DELETE /posts/{id} and /posts/group/{group}: the whole post on every channel. */
  const deletePost = (command: DeletePost) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      yield* transactions.run(
        Effect.gen(function* () {
          const loaded = yield* reads.loadOr404(principal.workspaceId, command.postId, true)
          const step = remove(loaded.snapshot, { actor: principal.actor })
          yield* steps.applyStep({
            workspaceId: principal.workspaceId,
            groupId: loaded.group.id,
            shareToken: loaded.group.shareToken,
            newGroup: null,
            step
          })
          yield* steps.deleteGroup(loaded.group.id)
        })
      )
      return { error: false as const, success: true as const }
    }).pipe(storageDefects, withSpan("PostWriter.delete"), policyRequire("posts.write"))

  /** The client (share page) or an admin approves, or asks for changes with a comment. */
  const review = (command: ReviewPost) =>
    Effect.gen(function* () {
      return yield* changePost(
        command.groupId,
        (loaded, now) =>
          command.decision === "approve"
            ? Either.map(approve(loaded.snapshot, { now, approvedBy: command.reviewer }), (step) => ({ step, approvedBy: command.reviewer }))
            : Either.map(requestChanges(loaded.snapshot, { comment: command.comment, requestedBy: command.reviewer }), (step) => ({ step })),
        // the comment commits with the decision it explains
        (loaded) =>
          command.comment.trim() === ""
            ? Effect.void
            : steps.addComment({ groupId: loaded.group.id, author: command.reviewer, role: "client", content: command.comment })
      )
    }).pipe(withSpan("PostWriter.review"), policyRequire("posts.review"))

  /**
   * DELETE /integrations/{id}: the channel is disconnected and its drafts, queued,
   * failed and unconfirmed posts are deleted in one transaction; live posts stay.
   */
  const deleteChannel = (command: DeleteChannel) =>
    Effect.gen(function* () {
      const { workspaceId } = yield* CurrentPrincipal
      return yield* transactions.run(
        Effect.gen(function* () {
          const found = yield* channelsRepo.disconnect(workspaceId, command.channelId)
          if (Option.isNone(found)) return yield* Effect.fail(Errors.channelNotFound())
          const left = yield* steps.removeWithChannel(workspaceId, command.channelId, removedWithChannel)
          yield* steps.setGroupStatuses(left.map((g) => ({ id: g.id, status: wholePostStatus(g.statuses, g.approvalStatus) })))
          return { success: true as const }
        })
      )
    }).pipe(storageDefects, withSpan("PostWriter.deleteChannel"), policyRequire("channels.delete"))

  /**
   * POST /posts/{id}/retry: failed and unconfirmed channels queued now (`retried`), and
   * failed or unconfirmed follow-ups of live channels; unconfirmed items search first.
   */
  const retryPost = (command: RetryPost) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const { files, groupId } = yield* transactions.run(
        Effect.gen(function* () {
          const loaded = yield* reads.loadOr404(principal.workspaceId, command.postId, true)
          const postIds = loaded.posts.map((p) => p.id)
          const failedFollowUps = yield* steps.prepareRetry(postIds)
          const step = retry(loaded.snapshot, { now: new Date(), actor: principal.actor, failedFollowUps })
          yield* steps.applyStep({
            workspaceId: principal.workspaceId,
            groupId: loaded.group.id,
            shareToken: loaded.group.shareToken,
            newGroup: null,
            step
          })
          yield* steps.requeueFollowUps(postIds)
          const files = yield* filesToPrepare(principal.workspaceId, requeued(loaded, step))
          yield* retryFailed(files)
          return { files, groupId: loaded.group.id }
        })
      )
      yield* startPreparation(files)
      return yield* reads.renderWholePost(principal.workspaceId, groupId)
    }).pipe(storageDefects, withSpan("PostWriter.retry"), policyRequire("posts.write"))

  /** PUT /posts/{id}/release-id: one channel (a group id: its first) live with the caller's release. */
  const link = (command: LinkRelease) =>
    Effect.gen(function* () {
      const principal = yield* CurrentPrincipal
      const releaseId = command.releaseId.trim()
      if (releaseId === "") return yield* Effect.fail(Errors.badRequest(PostMessages.releaseIdMissing))
      const groupId = yield* transactions.run(
        Effect.gen(function* () {
          const loaded = yield* reads.loadOr404(principal.workspaceId, command.postId, true)
          const target = loaded.posts.find((p) => p.id === command.postId) ?? loaded.posts[0]
          if (target === undefined) return yield* Effect.fail(Errors.postNotFound())
          const step = linkRelease(loaded.snapshot, target.channelId, { actor: principal.actor, releaseId })
          yield* steps.applyStep({
            workspaceId: principal.workspaceId,
            groupId: loaded.group.id,
            shareToken: loaded.group.shareToken,
            newGroup: null,
            step
          })
          yield* steps.linkRelease({
            workspaceId: principal.workspaceId,
            groupId: loaded.group.id,
            postId: target.id,
            channelId: target.channelId,
            provider: target.network,
            releaseId,
            releaseUrl: command.releaseUrl,
            events: step.events
          })
          return loaded.group.id
        })
      )
      return yield* reads.renderWholePost(principal.workspaceId, groupId)
    }).pipe(storageDefects, withSpan("PostWriter.linkRelease"), policyRequire("posts.write"))

  /** The whole post as it is now (a command sent again is answered with it). */
  const current = (groupId: string) =>
    Effect.flatMap(CurrentPrincipal, ({ workspaceId }) => reads.renderWholePost(workspaceId, GroupId.make(groupId))).pipe(storageDefects)

  return {
    current,
    move,
    setStatus: changeStatus,
    setSettings: changeSettings,
    delete: deletePost,
    review,
    deleteChannel,
    retry: retryPost,
    link
  }
})
