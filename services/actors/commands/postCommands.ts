import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { Errors } from "../../../domain/errors.js"
import { findNetwork } from "../../../domain/networks/index.js"
import { parseZonedDate, dateExample } from "../../../domain/posts/dates.js"
import type { NormalizedPost } from "../../../domain/posts/normalizedPost.js"
import { checkPostAgainstNetworks, type ChannelForRules } from "../../../domain/posts/rules.js"
import { approve, moveDate, remove, requestChanges, setStatus, type PostStep } from "../../../domain/posts/states.js"
import type { Principal } from "../../../domain/roles.js"
import type { DeletePost, MovePost, ReviewPost, SetPostSettings, SetPostStatus } from "../../../protocol/actors.js"
import * as Outbox from "../../platform/outbox.js"
import { PostsStore, type LoadedPost } from "../../posts/postsStore.js"
import { decodeSettings, decodeStoredMedia } from "../../posts/rows.js"

/** Channels that go from draft to queued are checked against their network's rules first. */
const checkRulesFor = (workspaceId: string, loaded: LoadedPost, step: PostStep) =>
  Effect.gen(function* () {
    if (step.needsRuleCheck.length === 0) return
    const sql = yield* SqlClient.SqlClient
    const posts = loaded.posts.filter((p) => step.needsRuleCheck.includes(p.channelId))
    const items = yield* sql<{ postId: string; position: number; content: string; media: unknown; delayMinutes: number }>`
      SELECT post_id, position, content, media, delay_minutes FROM post_items
      WHERE post_id IN ${sql.in(posts.map((p) => p.id))} AND workspace_id = ${workspaceId} ORDER BY post_id, position`
    const channels = yield* sql<{ id: string; disabled: boolean; refreshNeeded: boolean; inBetweenSteps: boolean }>`
      SELECT id, disabled, refresh_needed, in_between_steps FROM channels WHERE id IN ${sql.in(posts.map((p) => p.channelId))}`
    const forRules: Array<ChannelForRules> = posts.flatMap((p) => {
      const c = channels.find((x) => x.id === p.channelId)
      return Option.match(findNetwork(p.network), {
        onNone: () => [],
        onSome: (network) => [{ id: p.channelId, name: p.channelName, network, disabled: c?.disabled ?? false, refreshNeeded: c?.refreshNeeded ?? false, inBetweenSteps: c?.inBetweenSteps ?? false }]
      })
    })
    const entries = posts.flatMap((p) => {
      const mine = items.filter((i) => i.postId === p.id)
      const [first, ...rest] = mine.map((i) => ({
        content: i.content,
        delay: i.position === 0 ? 0 : i.delayMinutes,
        media: decodeStoredMedia(i.media).map((m) => ({ id: m.id === "" ? null : m.id, path: m.url, alt: m.alt }))
      }))
      return first === undefined ? [] : [{ channelId: p.channelId, groupId: p.groupId, items: [first, ...rest] as const, settings: decodeSettings(p.settings) }]
    })
    const [head, ...tail] = entries
    if (head === undefined) return
    const known = new Set(items.flatMap((i) => decodeStoredMedia(i.media).map((m) => m.id)))
    const post: NormalizedPost = {
      type: "schedule",
      date: loaded.group.publishAt,
      dateGiven: true,
      groupId: loaded.group.id,
      entries: [head, ...tail],
      tags: [],
      shortLink: loaded.group.shortLink,
      repeatDays: loaded.group.repeatDays,
      creationMethod: null
    }
    // media was resolved when the post was saved: what is stored counts as existing
    const problems = checkPostAgainstNetworks(post, {
      channels: forRules,
      media: (id) => (known.has(id) ? { id, type: "image", mime: "" } : undefined)
    })
    if (problems.length > 0) return yield* Effect.fail(Errors.fixBeforeSaving(problems))
  })

/** Load (locked), decide, check, write, answer the whole post: the shape of every PUT. */
const changePost = (
  principal: Principal,
  postId: string,
  decide: (loaded: LoadedPost, now: Date) => Effect.Effect<{ step: PostStep; approvedBy?: string | null }, ReturnType<typeof Errors.badRequest>>
) =>
  Effect.gen(function* () {
    const store = yield* PostsStore
    const groupId = yield* Outbox.transaction(
      Effect.gen(function* () {
        const loaded = yield* store.loadOr404(principal.workspaceId, postId, true)
        const { approvedBy, step } = yield* decide(loaded, new Date())
        yield* checkRulesFor(principal.workspaceId, loaded, step)
        yield* store.applyStep({
          workspaceId: principal.workspaceId,
          groupId: loaded.group.id,
          shareToken: loaded.group.shareToken,
          newGroup: null,
          step,
          ...(approvedBy !== undefined ? { approvedBy } : {})
        })
        return loaded.group.id
      })
    )
    return yield* store.renderWholePost(principal.workspaceId, groupId)
  }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

/** PUT /posts/{id}/date */
export const movePost = (principal: Principal, command: MovePost) =>
  Effect.gen(function* () {
    const date = parseZonedDate(command.date)
    if (date === null) return yield* Effect.fail(Errors.invalidDate(dateExample(new Date())))
    return yield* changePost(principal, command.postId, (loaded, now) =>
      Effect.map(moveDate(loaded.snapshot, { date, now, approvalRequired: loaded.approvalRequired, actor: principal.actor }), (step) => ({ step }))
    )
  })

/** PUT /posts/{id}/status */
export const setPostStatus = (principal: Principal, command: SetPostStatus) =>
  changePost(principal, command.postId, (loaded, now) =>
    Effect.succeed({
      step: setStatus(loaded.snapshot, { status: command.status, now, approvalRequired: loaded.approvalRequired, actor: principal.actor })
    })
  )

/**
 * PUT /posts/{id}/settings: merges into one channel's settings, only before it
 * publishes. A group id changes the first channel of the post.
 */
export const setPostSettings = (principal: Principal, command: SetPostSettings) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* PostsStore
    const groupId = yield* sql.withTransaction(
      Effect.gen(function* () {
        const loaded = yield* store.loadOr404(principal.workspaceId, command.postId, true)
        const target = loaded.posts.find((p) => p.id === command.postId) ?? loaded.posts[0]
        if (target === undefined) return yield* Effect.fail(Errors.postNotFound())
        if (!["draft", "queued", "error"].includes(target.status)) {
          return yield* Effect.fail(Errors.badRequest("Settings can only change before the post is published."))
        }
        const { __type: _ignored, ...incoming } = command.settings
        const merged = { ...decodeSettings(target.settings), ...incoming }
        const network = findNetwork(target.network)
        if (Option.isSome(network)) {
          for (const setting of network.value.settings) {
            const value = merged[setting.key]
            if (setting.type === "select" && value !== undefined && !setting.options.includes(String(value))) {
              return yield* Effect.fail(
                Errors.badRequest(`${target.channelName}: ${setting.label} must be one of ${setting.options.join(", ")}.`)
              )
            }
          }
        }
        yield* sql`UPDATE posts SET settings = ${JSON.stringify(merged)}, updated_at = now() WHERE id = ${target.id}`
        yield* sql`UPDATE post_groups SET updated_at = now() WHERE id = ${loaded.group.id}`
        yield* sql`INSERT INTO post_activity ${sql.insert({ groupId: loaded.group.id, actor: principal.actor, action: "settings changed", detail: target.channelName })}`
        return loaded.group.id
      })
    )
    return yield* store.renderWholePost(principal.workspaceId, groupId)
  }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

/** DELETE /posts/{id} and /posts/group/{group}: the whole post on every channel. */
export const deletePost = (principal: Principal, command: DeletePost) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const store = yield* PostsStore
    yield* Outbox.transaction(
      Effect.gen(function* () {
        const loaded = yield* store.loadOr404(principal.workspaceId, command.postId, true)
        const step = remove(loaded.snapshot, { actor: principal.actor })
        yield* store.applyStep({ workspaceId: principal.workspaceId, groupId: loaded.group.id, shareToken: loaded.group.shareToken, newGroup: null, step })
        yield* sql`UPDATE post_groups SET deleted_at = now() WHERE id = ${loaded.group.id}`
      })
    )
    return { error: false as const, success: true as const }
  }).pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

/** The share page: the client approves, or asks for changes with a comment. */
export const reviewPost = (principal: Principal, command: ReviewPost) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const result = yield* changePost(principal, command.groupId, (loaded, now) =>
      command.decision === "approve"
        ? Effect.map(approve(loaded.snapshot, { now, approvedBy: command.reviewer }), (step) => ({ step, approvedBy: command.reviewer }))
        : Effect.map(requestChanges(loaded.snapshot, { comment: command.comment, requestedBy: command.reviewer }), (step) => ({ step }))
    )
    if (command.comment.trim() !== "") {
      yield* sql`INSERT INTO post_comments ${sql.insert({ id: crypto.randomUUID(), groupId: command.groupId, author: command.reviewer, role: "client", content: command.comment })}`.pipe(
        Effect.orDie
      )
    }
    return result
  })
