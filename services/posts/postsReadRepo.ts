import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import { GroupId } from "../../domain/ids.js"
import { keptOnEdit, type ChannelStatus, type PostEvent, type PostSnapshot, type PostStep, type WholePostStatus } from "../../domain/posts/states.js"
import { IDEMPOTENCY_TTL_MS } from "../../domain/idempotency.js"
import { AppConfig } from "../platform/config.js"
import * as Outbox from "../platform/outbox.js"
import { currentTraceparent } from "../platform/tracing.js"
import { PgPool } from "../platform/pgPool.js"
import { makeCreatePostBatches } from "./createPostRepo.js"
import type { Fence, FencedOutcome } from "../platform/transactions.js"
import { approvalEvent, isApprovalEvent, isPublishingEvent, publishingEvent } from "./postEvents.js"
import { shareUrl, postRow, wholePost } from "./render.js"
import { ActivityRow, ChannelPostRow, CommentRow, GroupChannelsRow, GroupRow, ItemRow, RootItemRow, SharedPostRow, StoredItemRow, TagRow, type GroupChannels, type StoredItem, type StoredMedia } from "./rows.js"

/** An item to write for a channel (create and edit). */
export interface ItemWrite {
  readonly content: string
  readonly media: ReadonlyArray<StoredMedia>
  readonly delay: number
}

export interface EntryWrite {
  readonly items: ReadonlyArray<ItemWrite>
  readonly settings: Readonly<Record<string, unknown>>
}

export interface GroupFields {
  readonly repeatDays: number | null
  readonly shortLink: boolean
  readonly creationMethod: string
  readonly author: string
}

/** A post as the transitions see it, plus what the store needs to write it back. */
export interface LoadedPost {
  readonly group: GroupRow
  readonly posts: ReadonlyArray<ChannelPostRow>
  readonly snapshot: PostSnapshot
  /** A channel of the post has a customer with approval on. */
  readonly approvalRequired: boolean
}

// decoders built once: building a schema on every query costs more than the query's decode
const decodeChannelPosts = Schema.decodeUnknown(Schema.Array(ChannelPostRow))
const decodeTags = Schema.decodeUnknown(Schema.Array(TagRow))
const decodeGroups = Schema.decodeUnknown(Schema.Array(GroupRow))
const decodeItems = Schema.decodeUnknown(Schema.Array(ItemRow))
const decodeActivity = Schema.decodeUnknown(Schema.Array(ActivityRow))
const decodeRootItems = Schema.decodeUnknown(Schema.Array(RootItemRow))
const decodeComments = Schema.decodeUnknown(Schema.Array(CommentRow))
const decodeStoredItems = Schema.decodeUnknown(Schema.Array(StoredItemRow))
const decodeShared = Schema.decodeUnknown(Schema.Array(SharedPostRow))
const decodeGroupChannels = Schema.decodeUnknown(Schema.Array(GroupChannelsRow))

export const makePostsStore = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const createPosts = makeCreatePostBatches(yield* PgPool)
  const { publicUrl } = yield* AppConfig

  const selectPosts = (workspaceId: string, groupIds: ReadonlyArray<string>) =>
    sql`
      SELECT p.id, p.group_id, p.channel_id, p.ordinal, p.status, p.settings, p.publish_date, p.release_id, p.release_url,
             p.error, c.name AS channel_name, c.network, c.picture, c.profile, cu.approval AS customer_approval
      FROM posts p JOIN channels c ON c.id = p.channel_id LEFT JOIN customers cu ON cu.id = c.customer_id
      WHERE p.workspace_id = ${workspaceId} AND p.group_id IN ${sql.in(groupIds)} AND p.deleted_at IS NULL
      ORDER BY p.group_id, p.ordinal, p.id`.pipe(Effect.flatMap(decodeChannelPosts))

  const selectTags = (groupIds: ReadonlyArray<string>) =>
    sql`
      SELECT pt.group_id, t.id, t.name, t.color FROM post_tags pt JOIN tags t ON t.id = pt.tag_id
      WHERE pt.group_id IN ${sql.in(groupIds)} ORDER BY lower(t.name)`.pipe(Effect.flatMap(decodeTags))

  /** The group a per-channel id or a group id stands for, in this workspace. */
  const resolveGroupId = (workspaceId: string, id: string) =>
    sql<{ groupId: string }>`
      SELECT group_id FROM posts WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL
      UNION ALL
      SELECT id AS group_id FROM post_groups WHERE id = ${id} AND workspace_id = ${workspaceId} AND deleted_at IS NULL
      LIMIT 1`.pipe(Effect.map((rows) => Option.map(Option.fromNullable(rows[0]?.groupId), GroupId.make)))

  /**
   * GET /posts/{id}/missing: the channel post an id names (a per-channel id, or a group id →
   * its first channel) with what a search needs: its first item, network and settings.
   */
  const rootItemOf = (workspaceId: string, id: string) =>
    sql`
      SELECT p.id AS post_id, p.channel_id, c.network, p.settings, i.id AS item_id, i.content, i.media
      FROM posts p JOIN channels c ON c.id = p.channel_id JOIN post_items i ON i.post_id = p.id AND i.position = 0
      WHERE p.workspace_id = ${workspaceId} AND p.deleted_at IS NULL AND (p.id = ${id} OR p.group_id = ${id})
      ORDER BY (p.id = ${id}) DESC, p.ordinal LIMIT 1`.pipe(
      Effect.flatMap(decodeRootItems),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

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
      yield* Outbox.write(input.workspaceId, input.events.filter(isPublishingEvent).map((e) => publishingEvent(e, attempt))).pipe(
        Effect.provideService(SqlClient.SqlClient, sql)
      )
    })

  /** Loads a post, locking its group row so concurrent writers queue behind us. */
  const load = (workspaceId: string, groupId: GroupId, lock: boolean) =>
    Effect.gen(function* () {
      const groups = yield* sql`
        SELECT id, workspace_id, approval_status, approved_by, publish_at, repeat_days, short_link,
               creation_method, author, share_token, created_at, updated_at
        FROM post_groups WHERE id = ${groupId} AND workspace_id = ${workspaceId} AND deleted_at IS NULL
        ${lock ? sql`FOR UPDATE` : sql``}`.pipe(Effect.flatMap(decodeGroups))
      const group = groups[0]
      if (group === undefined) return Option.none<LoadedPost>()
      const posts = yield* selectPosts(workspaceId, [groupId])
      return Option.some<LoadedPost>({
        group,
        posts,
        snapshot: {
          publishAt: group.publishAt,
          approval: group.approvalStatus,
          channels: posts.map((p) => ({ channelId: p.channelId, status: p.status }))
        },
        approvalRequired: posts.some((p) => p.customerApproval === true)
      })
    })

  /** Loads the post for a per-channel or group id, or fails with 404 Post not found. */
  const loadOr404 = (workspaceId: string, id: string, lock: boolean) =>
    Effect.gen(function* () {
      const groupId = yield* resolveGroupId(workspaceId, id)
      if (Option.isNone(groupId)) return yield* Effect.fail(Errors.postNotFound())
      const loaded = yield* load(workspaceId, groupId.value, lock)
      if (Option.isNone(loaded)) return yield* Effect.fail(Errors.postNotFound())
      return loaded.value
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
      const live: Array<{ readonly postId: string; readonly channelId: string; readonly status: ChannelStatus }> = []
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
      yield* Outbox.write(workspaceId, step.events.filter(isApprovalEvent).map((e) => approvalEvent(e, post))).pipe(
        Effect.provideService(SqlClient.SqlClient, sql)
      )
      return live
    })

  /**
   * POST /posts of a new post without tags, in one statement (createPostRepo.ts),
   * which it shares with the other posts this process writes meanwhile (group commit):
   * what applyStep writes for a new group, plus the key's record, checked and recorded
   * under the fence. `keyTaken` (nothing written): a live record of the key is another owner's.
   */
  const createInOneStatement = Effect.fnUntraced(function* (input: {
    readonly fence: Fence
    readonly workspaceId: string
    readonly groupId: string
    readonly shareToken: string
    readonly fields: GroupFields
    readonly step: PostStep
    readonly entries: ReadonlyMap<string, EntryWrite>
    readonly channelNames: ReadonlyMap<string, string>
    /** The versions of the channels the rules were checked against, when they were remembered rows (channelVersionSql). */
    readonly channelVersions: ReadonlyArray<string> | null
    /** The Idempotency-Key to keep the answer under. */
    readonly key: { readonly key: string; readonly requestHash: string; readonly now: Date } | null
    /** What the command answers (the record a copy is answered from, and the key's response). */
    readonly answer: (live: ReadonlyArray<{ readonly postId: string; readonly channelId: string; readonly status: ChannelStatus }>) => {
      readonly keyResponse: unknown
      readonly commandAnswer: unknown
    }
  }) {
    const { groupId, step, workspaceId } = input
    const posts: Array<Record<string, unknown>> = []
    const items: Array<Record<string, unknown>> = []
    const live: Array<{ readonly postId: string; readonly channelId: string; readonly status: ChannelStatus }> = []
    let ordinal = 0
    for (const channel of step.channels) {
      ordinal++
      if (channel.to === null) continue
      const entry = input.entries.get(channel.channelId)
      if (channel.from !== null || entry === undefined) return yield* Effect.die(new Error(`a new post has no content for channel ${channel.channelId}`))
      const postId = crypto.randomUUID()
      posts.push({
        id: postId,
        group_id: groupId,
        workspace_id: workspaceId,
        channel_id: channel.channelId,
        ordinal,
        status: channel.to,
        settings: entry.settings,
        publish_date: channel.publishAt ?? step.publishAt
      })
      entry.items.forEach((item, position) =>
        items.push({
          id: crypto.randomUUID(),
          post_id: postId,
          workspace_id: workspaceId,
          position,
          content: item.content,
          media: item.media,
          delay_minutes: position === 0 ? 0 : item.delay,
          status: channel.to,
          due_at: position === 0 ? channel.dueAt : null
        })
      )
      live.push({ postId, channelId: channel.channelId, status: channel.to })
    }
    const post = { groupId, publishAt: step.publishAt, channelIds: live.map((l) => l.channelId), previewUrl: shareUrl(publicUrl, input.shareToken) }
    const written = yield* Outbox.prepare(
      workspaceId,
      step.events.filter(isApprovalEvent).map((e) => approvalEvent(e, post)),
      (id) => input.channelNames.get(id)
    )
    const { commandAnswer, keyResponse } = input.answer(live)
    const { command, lease } = input.fence
    const traceParent = yield* currentTraceparent
    const flags = yield* createPosts.submit([
      lease?.shard ?? null,
      lease?.epoch ?? null,
      command?.commandId ?? null,
      workspaceId,
      input.key?.key ?? null,
      input.key?.requestHash ?? null,
      input.key === null ? null : JSON.stringify(keyResponse),
      input.key === null ? null : new Date(input.key.now.getTime() - IDEMPOTENCY_TTL_MS),
      command === null ? null : JSON.stringify(commandAnswer ?? null),
      {
        id: groupId,
        workspace_id: workspaceId,
        status: step.status,
        approval_status: step.approval,
        publish_at: step.publishAt,
        repeat_days: input.fields.repeatDays,
        short_link: input.fields.shortLink,
        creation_method: input.fields.creationMethod,
        author: input.fields.author,
        share_token: input.shareToken
      },
      posts,
      items,
      step.activity.map((a) => ({ group_id: groupId, actor: a.actor, action: a.action, detail: a.detail })),
      written.outbox.map((o) => ({ id: o.id, workspace_id: o.workspaceId, event: o.event, data: o.data })),
      written.notifications.map((n) => ({ id: n.id, workspace_id: n.workspaceId, type: n.type, title: n.title, body: n.body, link: n.link })),
      traceParent,
      input.channelVersions
    ])
    if (flags.went) yield* Outbox.track(written.outbox.map((o) => o.id))
    type Created = { readonly keyTaken: boolean; readonly channelsChanged: boolean; readonly live: typeof live }
    // refused before anything: the lease is another's, or a remembered channel changed;
    // not fresh: a command that committed before went ahead (as far as the caller knows) and was not recorded
    const outcome: FencedOutcome<Created> = !flags.leaseHeld || !flags.current
      ? { leaseHeld: flags.leaseHeld, wentAhead: false, recorded: false, value: { keyTaken: false, channelsChanged: flags.leaseHeld, live } }
      : flags.fresh
        ? { leaseHeld: true, wentAhead: flags.ahead, recorded: flags.went, value: { keyTaken: !flags.ahead, channelsChanged: false, live } }
        : { leaseHeld: true, wentAhead: true, recorded: false, value: { keyTaken: false, channelsChanged: false, live } }
    return outcome
  })

  /** GET /posts/{id} and the answers of the PUT operations. */
  /**
   * Reads that take several statements see one snapshot: a post published between two of
   * them must not read as published on its item and scheduled on the whole post.
   */
  const inOneSnapshot = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (inTransaction) =>
      Option.isSome(inTransaction)
        ? effect
        : sql.withTransaction(Effect.zipRight(sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY`, effect))
    )

  const renderWholePost = (workspaceId: string, groupId: GroupId) =>
    inOneSnapshot(Effect.gen(function* () {
      const loaded = yield* load(workspaceId, groupId, false)
      if (Option.isNone(loaded)) return yield* Effect.fail(Errors.postNotFound())
      const { group, posts } = loaded.value
      const items =
        posts.length === 0
          ? []
          : yield* sql`
              SELECT id, post_id, position, content, media, delay_minutes, status, release_id, release_url, published_at,
                     error, held, held_at, attempts
              FROM post_items WHERE post_id IN ${sql.in(posts.map((p) => p.id))} ORDER BY post_id, position`.pipe(
              Effect.flatMap(decodeItems)
            )
      const tags = yield* selectTags([groupId])
      const activity = yield* sql`
        SELECT actor, action, detail, created_at FROM post_activity WHERE group_id = ${groupId} ORDER BY id`.pipe(
        Effect.flatMap(decodeActivity)
      )
      const comments = yield* sql`
        SELECT id, author, role, content, created_at FROM post_comments WHERE group_id = ${groupId} ORDER BY created_at, id`.pipe(
        Effect.flatMap(decodeComments)
      )
      return wholePost({ group, posts, items, tags, activity, comments, publicUrl })
    }))

  /** GET /posts: one row per channel whose time is in the range, oldest first. */
  const listRows = (input: { workspaceId: string; start: Date; end: Date; customerId: string | null }) =>
    inOneSnapshot(Effect.gen(function* () {
      const posts = yield* sql`
        SELECT p.id, p.group_id, p.channel_id, p.ordinal, p.status, p.settings, p.publish_date, p.release_id, p.release_url,
               p.error, c.name AS channel_name, c.network, c.picture, c.profile, cu.approval AS customer_approval
        FROM posts p
        JOIN post_groups g ON g.id = p.group_id AND g.deleted_at IS NULL
        JOIN channels c ON c.id = p.channel_id
        LEFT JOIN customers cu ON cu.id = c.customer_id
        WHERE p.workspace_id = ${input.workspaceId} AND p.deleted_at IS NULL
          AND p.publish_date >= ${input.start} AND p.publish_date <= ${input.end}
          ${input.customerId === null ? sql`` : sql`AND c.customer_id = ${input.customerId}`}
        ORDER BY p.publish_date, p.group_id, p.ordinal`.pipe(Effect.flatMap(decodeChannelPosts))
      if (posts.length === 0) return []
      const groupIds = [...new Set(posts.map((p) => p.groupId))]
      const groups = yield* sql`
        SELECT id, workspace_id, approval_status, approved_by, publish_at, repeat_days, short_link,
               creation_method, author, share_token, created_at, updated_at
        FROM post_groups WHERE id IN ${sql.in(groupIds)}`.pipe(Effect.flatMap(decodeGroups))
      const roots = yield* sql`
        SELECT id, post_id, position, content, media, delay_minutes, status, release_id, release_url, published_at,
               error, held, held_at, attempts
        FROM post_items WHERE post_id IN ${sql.in(posts.map((p) => p.id))} AND position = 0`.pipe(
        Effect.flatMap(decodeItems)
      )
      const tags = yield* selectTags(groupIds)
      const groupById = new Map(groups.map((g) => [g.id, g]))
      const rootByPost = new Map(roots.map((r) => [r.postId, r]))
      return posts.flatMap((p) => {
        const group = groupById.get(p.groupId)
        const root = rootByPost.get(p.id)
        return group === undefined || root === undefined ? [] : [postRow(p, group, root, tags.filter((t) => t.groupId === p.groupId))]
      })
    }))

  /** The stored items of channel posts, in order, for checking them against network rules again. */
  const itemsOf = (workspaceId: string, postIds: ReadonlyArray<string>) =>
    postIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<StoredItem>)
      : sql`
          SELECT post_id, position, content, media, delay_minutes FROM post_items
          WHERE post_id IN ${sql.in(postIds)} AND workspace_id = ${workspaceId} ORDER BY post_id, position`.pipe(
          Effect.flatMap(decodeStoredItems)
        )

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

  /** The post a share link opens, with who reviews it (the customer of its first channel). */
  const findByShareToken = (token: string) =>
    sql`
      SELECT g.id, g.workspace_id,
        (SELECT cu.name FROM posts p JOIN channels c ON c.id = p.channel_id JOIN customers cu ON cu.id = c.customer_id
         WHERE p.group_id = g.id AND p.deleted_at IS NULL ORDER BY p.ordinal LIMIT 1) AS reviewer
      FROM post_groups g WHERE g.share_token = ${token} AND g.deleted_at IS NULL`.pipe(
      Effect.flatMap(decodeShared),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )

  return {
    resolveGroupId,
    load,
    loadOr404,
    applyStep,
    createInOneStatement,
    rootItemOf,
    prepareRetry,
    requeueFollowUps,
    linkRelease,
    renderWholePost,
    listRows,
    itemsOf,
    replaceSettings,
    deleteGroup,
    addComment,
    removeWithChannel,
    setGroupStatuses,
    findByShareToken
  }
})

export type PostsStoreShape = Effect.Effect.Success<typeof makePostsStore>

/** The store as a service, built once per process (its queries and decoders are reused). SQL only. */
export class PostsStore extends Context.Tag("PostsStore")<PostsStore, PostsStoreShape>() {
  static readonly Live = Layer.effect(PostsStore, makePostsStore)
}
