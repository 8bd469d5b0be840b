import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import { keptOnEdit, type ChannelStatus, type PostEvent, type PostStep, type WholePostStatus } from "../../domain/posts/states.js"
import { AppConfig } from "../platform/config.js"
import * as Outbox from "../platform/outbox.js"
import { approvalEvent, isApprovalEvent, isPublishingEvent, publishingEvent } from "./postEvents.js"
import type { EntryWrite, GroupFields, LiveChannelPost } from "./postWrites.js"
import { shareUrl } from "./render.js"
import { GroupChannelsRow, type GroupChannels } from "./rows.js"

const decodeGroupChannels = Schema.decodeUnknown(Schema.Array(GroupChannelsRow))

/** Records a multi-row statement of insertNewPosts takes at most. */
const BULK_ROWS = 500

/** `write` for each slice of at most BULK_ROWS records, in order. */
const inChunks = <A, E, R>(
  rows: ReadonlyArray<Record<string, unknown>>,
  write: (slice: ReadonlyArray<Record<string, unknown>>) => Effect.Effect<A, E, R>
) =>
  Effect.forEach(
    Array.from({ length: Math.ceil(rows.length / BULK_ROWS) }, (_, i) => rows.slice(i * BULK_ROWS, (i + 1) * BULK_ROWS)),
    write,
    { discard: true }
  )

/**
 * The writes of a post's changes, each in the caller's transaction: a transition of the
 * state machine (applyStep) and what some changes write beside it (retry, release, settings,
 * comments, a disconnected channel). SQL only.
 */
export const makePostStepsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const { publicUrl } = yield* AppConfig

  /**
   * POST /posts/{id}/retry, before the step: unconfirmed items of the post will search the
   * network before sending (they may be live); answers how many follow-ups of channels that
   * stay as they are (published) failed or are unconfirmed.
   */
  const prepareRetry = (postIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      if (postIds.length === 0) return 0
      yield* sql`UPDATE post_items SET search_first = true WHERE post_id IN ${sql.in(postIds)} AND status = 'unconfirmed'`
      const rows = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM post_items i JOIN posts p ON p.id = i.post_id
        WHERE i.post_id IN ${sql.in(postIds)} AND i.position > 0 AND i.status IN ('error', 'unconfirmed') AND p.status = 'published'`
      return rows[0]?.n ?? 0
    })

  /**
   * POST /posts/{id}/retry, after the step: failed and unconfirmed follow-ups are queued
   * again; the one whose previous item is live is due now, the others wait for it.
   */
  const requeueFollowUps = (postIds: ReadonlyArray<string>) =>
    postIds.length === 0
      ? Effect.void
      : sql`
          UPDATE post_items i SET status = 'queued', error = NULL,
            due_at = CASE WHEN EXISTS (
              SELECT 1 FROM post_items prev WHERE prev.post_id = i.post_id AND prev.position = i.position - 1 AND prev.status = 'published'
            ) THEN now() ELSE NULL END
          WHERE i.post_id IN ${sql.in(postIds)} AND i.position > 0 AND i.status IN ('error', 'unconfirmed')`.pipe(Effect.asVoid)

  /**
   * PUT /posts/{id}/release-id, after the step moved the channel: the release on the
   * channel's post and its first item; its next follow-up becomes due.
   */
  const linkRelease = (input: {
    readonly workspaceId: string
    readonly groupId: string
    readonly postId: string
    readonly channelId: string
    readonly provider: string
    readonly releaseId: string
    readonly releaseUrl: string | null
    /** The step made the channel live: post.published is written with the release. */
    readonly events: ReadonlyArray<PostEvent>
  }) =>
    Effect.gen(function* () {
      yield* sql`UPDATE posts SET release_id = ${input.releaseId}, release_url = ${input.releaseUrl}, error = NULL, updated_at = now() WHERE id = ${input.postId}`
      const items = yield* sql<{ publishedAt: Date }>`
        UPDATE post_items SET status = 'published', release_id = ${input.releaseId}, release_url = ${input.releaseUrl},
          published_at = coalesce(published_at, now()), error = NULL, search_first = false, due_at = NULL
        WHERE post_id = ${input.postId} AND position = 0
        RETURNING published_at`
      yield* sql`UPDATE post_items SET due_at = now() + make_interval(mins => delay_minutes)
        WHERE post_id = ${input.postId} AND position = 1 AND status = 'queued' AND due_at IS NULL`
      const root = yield* sql<{ content: string }>`SELECT content FROM post_items WHERE post_id = ${input.postId} AND position = 0`
      const attempt = {
        postId: input.postId,
        groupId: input.groupId,
        channelId: input.channelId,
        provider: input.provider,
        content: root[0]?.content ?? "",
        release: { releaseId: input.releaseId, releaseUrl: input.releaseUrl ?? "", publishedAt: items[0]?.publishedAt ?? new Date() }
      }
      yield* Outbox.write(
        input.workspaceId,
        input.events.filter(isPublishingEvent).map((e) => publishingEvent(e, attempt))
      ).pipe(Effect.provideService(SqlClient.SqlClient, sql))
    })

  const insertItems = (workspaceId: string, postId: string, entry: EntryWrite, status: ChannelStatus, rootDueAt: Date | null) =>
    sql`INSERT INTO post_items ${sql.insert(
      entry.items.map((item, position) => ({
        id: crypto.randomUUID(),
        postId,
        workspaceId,
        position,
        content: item.content,
        media: JSON.stringify(item.media),
        delayMinutes: position === 0 ? 0 : item.delay,
        status,
        dueAt: position === 0 ? rootDueAt : null
      }))
    )}`

  /** Moves a channel's items with its post: the root takes the due time, follow-ups wait for it. */
  const moveItems = (postId: string, to: ChannelStatus, dueAt: Date | null) =>
    Effect.gen(function* () {
      if (to === "queued") {
        yield* sql`UPDATE post_items SET status = 'queued', due_at = ${dueAt}, error = NULL WHERE post_id = ${postId} AND position = 0`
        yield* sql`
          UPDATE post_items SET status = 'queued', due_at = NULL, error = NULL
          WHERE post_id = ${postId} AND position > 0
            AND status IN ('draft', 'queued', 'error')`
      } else if (to === "draft") {
        yield* sql`UPDATE post_items SET status = 'draft', due_at = NULL WHERE post_id = ${postId} AND status IN ('queued', 'error', 'draft')`
      } else {
        yield* sql`UPDATE post_items SET status = ${to}, due_at = NULL WHERE post_id = ${postId} AND position = 0`
      }
    })

  /**
   * Writes one transition: the group, every channel step, items, activity and the
   * outbox rows of its events, in the caller's Outbox.transaction. Status changes are
   * conditional on the status the step started from.
   */
  const applyStep = (input: {
    readonly workspaceId: string
    readonly groupId: string
    /** The post's share token (for the links in its events). */
    readonly shareToken: string
    /** null: the group exists already. */
    readonly newGroup: GroupFields | null
    /** The channel posts the group already has (channel id → per-channel post id). */
    readonly existing?: ReadonlyMap<string, string>
    readonly editFields?: GroupFields
    readonly step: PostStep
    /** Channels whose content is (re)written: create and edit. */
    readonly entries?: ReadonlyMap<string, EntryWrite>
    readonly approvedBy?: string | null
    readonly tagIds?: ReadonlyArray<string>
  }) =>
    Effect.gen(function* () {
      const { groupId, step, workspaceId } = input
      if (input.newGroup !== null) {
        yield* sql`INSERT INTO post_groups ${sql.insert({
          id: groupId,
          workspaceId,
          status: step.status,
          approvalStatus: step.approval,
          publishAt: step.publishAt,
          repeatDays: input.newGroup.repeatDays,
          shortLink: input.newGroup.shortLink,
          creationMethod: input.newGroup.creationMethod,
          author: input.newGroup.author,
          shareToken: input.shareToken
        })}`
      } else {
        const edit = input.editFields
        yield* sql`
          UPDATE post_groups SET status = ${step.status}, approval_status = ${step.approval}, publish_at = ${step.publishAt},
            approved_by = ${input.approvedBy === undefined ? sql`approved_by` : input.approvedBy},
            ${edit === undefined ? sql`` : sql`repeat_days = ${edit.repeatDays}, short_link = ${edit.shortLink}, creation_method = ${edit.creationMethod},`}
            updated_at = now()
          WHERE id = ${groupId}`
      }
      if (input.tagIds !== undefined) {
        yield* sql`DELETE FROM post_tags WHERE group_id = ${groupId}`
        if (input.tagIds.length > 0) {
          yield* sql`INSERT INTO post_tags ${sql.insert(input.tagIds.map((tagId) => ({ groupId, tagId })))} ON CONFLICT DO NOTHING`
        }
      }
      // every channel post the group has after the step, in order (POST /posts answers these)
      const live: Array<LiveChannelPost> = []
      const keep = (postId: string | undefined, channelId: string, status: ChannelStatus) => {
        if (postId !== undefined) live.push({ postId, channelId, status })
      }
      let ordinal = 0
      for (const channel of step.channels) {
        ordinal++
        // a channel kept on edit (live or on its way) is never rewritten, whatever the body says
        const kept = channel.from !== null && channel.from === channel.to && keptOnEdit.includes(channel.from)
        const entry = kept ? undefined : input.entries?.get(channel.channelId)
        if (channel.to === null) {
          if (channel.from !== null) {
            yield* sql`UPDATE posts SET deleted_at = now(), updated_at = now()
              WHERE group_id = ${groupId} AND channel_id = ${channel.channelId} AND deleted_at IS NULL`
          }
          continue
        }
        if (channel.from === null) {
          if (entry === undefined) return yield* Effect.die(new Error(`no content for new channel ${channel.channelId}`))
          const postId = crypto.randomUUID()
          yield* sql`INSERT INTO posts ${sql.insert({
            id: postId,
            groupId,
            workspaceId,
            channelId: channel.channelId,
            ordinal,
            status: channel.to,
            settings: JSON.stringify(entry.settings),
            publishDate: channel.publishAt ?? step.publishAt
          })}`
          yield* insertItems(workspaceId, postId, entry, channel.to, channel.dueAt)
          keep(postId, channel.channelId, channel.to)
          continue
        }
        if (channel.from === channel.to && channel.publishAt === null && entry === undefined) {
          keep(input.existing?.get(channel.channelId), channel.channelId, channel.to)
          continue
        }
        const updated = yield* sql<{ id: string }>`
          UPDATE posts SET status = ${channel.to}, ordinal = ${ordinal},
            publish_date = ${channel.publishAt ?? sql`publish_date`},
            ${entry !== undefined ? sql`settings = ${JSON.stringify(entry.settings)},` : sql``}
            ${channel.to === "queued" || channel.to === "draft" ? sql`error = NULL,` : sql``}
            updated_at = now()
          WHERE group_id = ${groupId} AND channel_id = ${channel.channelId} AND deleted_at IS NULL AND status = ${channel.from}
          RETURNING id`
        const postId = updated[0]?.id
        if (postId === undefined) return yield* Effect.fail(Errors.changedMeanwhile())
        keep(postId, channel.channelId, channel.to)
        if (entry !== undefined) {
          yield* sql`DELETE FROM post_items WHERE post_id = ${postId}`
          yield* insertItems(workspaceId, postId, entry, channel.to, channel.dueAt)
        } else if (channel.from !== channel.to || channel.dueAt !== null) {
          yield* moveItems(postId, channel.to, channel.dueAt)
        }
      }
      if (step.activity.length > 0) {
        yield* sql`INSERT INTO post_activity ${sql.insert(step.activity.map((a) => ({ groupId, actor: a.actor, action: a.action, detail: a.detail })))}`
      }
      // publishing events are written by the publisher, with their release
      const post = {
        groupId,
        publishAt: step.publishAt,
        channelIds: step.channels.filter((c) => c.to !== null).map((c) => c.channelId),
        previewUrl: shareUrl(publicUrl, input.shareToken)
      }
      yield* Outbox.write(
        workspaceId,
        step.events.filter(isApprovalEvent).map((e) => approvalEvent(e, post))
      ).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      return live
    })

  /**
   * New posts in bulk (an import's rows): for each, exactly the rows applyStep writes for a
   * new group (the group, its tags, channel posts, items, activity, the outbox rows of its
   * events), but each table written for all the posts in a few multi-row statements instead
   * of several statements a post. In the caller's transaction; answers each post's channel
   * posts in order, as applyStep does. test/system/postsImport.batch.test.ts compares the rows
   * with those applyStep writes for the same file.
   */
  const insertNewPosts = (
    workspaceId: string,
    posts: ReadonlyArray<{
      readonly groupId: string
      readonly shareToken: string
      readonly fields: GroupFields
      readonly step: PostStep
      readonly entries: ReadonlyMap<string, EntryWrite>
      readonly tagIds: ReadonlyArray<string>
    }>
  ) =>
    Effect.gen(function* () {
      const groups: Array<Record<string, unknown>> = []
      const tags: Array<Record<string, unknown>> = []
      const channelPosts: Array<Record<string, unknown>> = []
      const items: Array<Record<string, unknown>> = []
      const activity: Array<Record<string, unknown>> = []
      const events: Array<ReturnType<typeof approvalEvent>> = []
      const lives: Array<ReadonlyArray<LiveChannelPost>> = []
      for (const p of posts) {
        const { groupId, step } = p
        groups.push({
          id: groupId,
          workspaceId,
          status: step.status,
          approvalStatus: step.approval,
          publishAt: step.publishAt,
          repeatDays: p.fields.repeatDays,
          shortLink: p.fields.shortLink,
          creationMethod: p.fields.creationMethod,
          author: p.fields.author,
          shareToken: p.shareToken
        })
        for (const tagId of new Set(p.tagIds)) tags.push({ groupId, tagId })
        const live: Array<LiveChannelPost> = []
        let ordinal = 0
        for (const channel of step.channels) {
          ordinal++
          if (channel.to === null) continue
          if (channel.from !== null) return yield* Effect.die(new Error(`insertNewPosts was given a step of a stored post (${groupId})`))
          const entry = p.entries.get(channel.channelId)
          if (entry === undefined) return yield* Effect.die(new Error(`no content for new channel ${channel.channelId}`))
          const postId = crypto.randomUUID()
          channelPosts.push({
            id: postId,
            groupId,
            workspaceId,
            channelId: channel.channelId,
            ordinal,
            status: channel.to,
            settings: JSON.stringify(entry.settings),
            publishDate: channel.publishAt ?? step.publishAt
          })
          entry.items.forEach((item, position) =>
            items.push({
              id: crypto.randomUUID(),
              postId,
              workspaceId,
              position,
              content: item.content,
              media: JSON.stringify(item.media),
              delayMinutes: position === 0 ? 0 : item.delay,
              status: channel.to,
              dueAt: position === 0 ? channel.dueAt : null
            })
          )
          live.push({ postId, channelId: channel.channelId, status: channel.to })
        }
        step.activity.forEach((a) => activity.push({ groupId, actor: a.actor, action: a.action, detail: a.detail }))
        const post = {
          groupId,
          publishAt: step.publishAt,
          channelIds: step.channels.filter((c) => c.to !== null).map((c) => c.channelId),
          previewUrl: shareUrl(publicUrl, p.shareToken)
        }
        step.events.filter(isApprovalEvent).forEach((e) => events.push(approvalEvent(e, post)))
        lives.push(live)
      }
      // at most BULK_ROWS records a statement: far below Postgres' 65535 parameters at any table's width
      yield* inChunks(groups, (rows) => sql`INSERT INTO post_groups ${sql.insert(rows)}`)
      yield* inChunks(tags, (rows) => sql`INSERT INTO post_tags ${sql.insert(rows)} ON CONFLICT DO NOTHING`)
      yield* inChunks(channelPosts, (rows) => sql`INSERT INTO posts ${sql.insert(rows)}`)
      yield* inChunks(items, (rows) => sql`INSERT INTO post_items ${sql.insert(rows)}`)
      yield* inChunks(activity, (rows) => sql`INSERT INTO post_activity ${sql.insert(rows)}`)
      yield* Outbox.write(workspaceId, events).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      return lives
    })

  /** PUT /posts/{id}/settings: the channel post's new settings and a line of history. */
  const replaceSettings = (input: {
    readonly groupId: string
    readonly postId: string
    readonly settings: Readonly<Record<string, unknown>>
    readonly actor: string
    readonly channelName: string
  }) =>
    Effect.gen(function* () {
      yield* sql`UPDATE posts SET settings = ${JSON.stringify(input.settings)}, updated_at = now() WHERE id = ${input.postId}`
      yield* sql`UPDATE post_groups SET updated_at = now() WHERE id = ${input.groupId}`
      yield* sql`INSERT INTO post_activity ${sql.insert({ groupId: input.groupId, actor: input.actor, action: "settings changed", detail: input.channelName })}`
    })

  /** The whole post is gone (its channel posts were removed by the step). */
  const deleteGroup = (groupId: string) => sql`UPDATE post_groups SET deleted_at = now() WHERE id = ${groupId}`.pipe(Effect.asVoid)

  const addComment = (input: { readonly groupId: string; readonly author: string; readonly role: string; readonly content: string }) =>
    sql`INSERT INTO post_comments ${sql.insert({ id: crypto.randomUUID(), ...input })}`.pipe(Effect.asVoid)

  /**
   * DELETE /integrations/{id}: the channel's posts in `statuses` are deleted; a whole post
   * left without channels is deleted too. Live posts keep their rows.
   */
  const removeWithChannel = (workspaceId: string, channelId: string, statuses: ReadonlyArray<ChannelStatus>) =>
    Effect.gen(function* () {
      const removed = yield* sql<{ id: string; groupId: string }>`
        UPDATE posts SET deleted_at = now(), updated_at = now()
        WHERE channel_id = ${channelId} AND workspace_id = ${workspaceId}
          AND deleted_at IS NULL AND status IN ${sql.in(statuses)}
        RETURNING id, group_id`
      if (removed.length === 0) return [] as ReadonlyArray<GroupChannels>
      const groups = [...new Set(removed.map((r) => r.groupId))]
      yield* sql`
        UPDATE post_groups g SET deleted_at = now(), updated_at = now()
        WHERE g.id IN ${sql.in(groups)} AND g.deleted_at IS NULL
          AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.group_id = g.id AND p.deleted_at IS NULL)`
      // the posts left with fewer channels, for their whole-post status
      return yield* sql`
        SELECT g.id, g.approval_status, array_agg(p.status ORDER BY p.ordinal) AS statuses
        FROM post_groups g JOIN posts p ON p.group_id = g.id AND p.deleted_at IS NULL
        WHERE g.id IN ${sql.in(groups)} AND g.deleted_at IS NULL
        GROUP BY g.id, g.approval_status`.pipe(Effect.flatMap(decodeGroupChannels))
    })

  /** The stored whole-post status (kept for SQL readers; answers derive it: render.ts). */
  const setGroupStatuses = (statuses: ReadonlyArray<{ readonly id: string; readonly status: WholePostStatus }>) =>
    statuses.length === 0
      ? Effect.void
      : sql`
          UPDATE post_groups g SET status = s.status, updated_at = now()
          FROM jsonb_to_recordset(${JSON.stringify(statuses)}::jsonb) AS s(id uuid, status text)
          WHERE g.id = s.id`.pipe(Effect.asVoid)

  return {
    applyStep,
    insertNewPosts,
    prepareRetry,
    requeueFollowUps,
    linkRelease,
    replaceSettings,
    deleteGroup,
    addComment,
    removeWithChannel,
    setGroupStatuses
  }
})

export class PostStepsRepo extends Context.Tag("posts/PostStepsRepo")<PostStepsRepo, Effect.Effect.Success<typeof makePostStepsRepo>>() {
  static readonly Live = Layer.effect(PostStepsRepo, makePostStepsRepo)
}
