import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import { GroupId } from "../../domain/ids.js"
import type { PostSnapshot } from "../../domain/posts/states.js"
import { AppConfig } from "../platform/config.js"
import { postRow, wholePost } from "./render.js"
import {
  ActivityRow,
  ChannelPostRow,
  CommentRow,
  GroupRow,
  ItemRow,
  AttemptRow,
  RootItemRow,
  SharedPostRow,
  StoredItemRow,
  TagRow,
  type StoredItem
} from "./rows.js"

/** A post as the transitions see it, plus what a change needs to write it back. */
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
const decodeAttempts = Schema.decodeUnknown(Schema.Array(AttemptRow))
const decodeActivity = Schema.decodeUnknown(Schema.Array(ActivityRow))
const decodeRootItems = Schema.decodeUnknown(Schema.Array(RootItemRow))
const decodeComments = Schema.decodeUnknown(Schema.Array(CommentRow))
const decodeStoredItems = Schema.decodeUnknown(Schema.Array(StoredItemRow))
const decodeShared = Schema.decodeUnknown(Schema.Array(SharedPostRow))

/** Reads of posts (post_groups, posts, post_items, tags, activity, comments): what the edges answer and what a change loads first. SQL only. */
export const makePostsReadRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
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
    inOneSnapshot(
      Effect.gen(function* () {
        const loaded = yield* load(workspaceId, groupId, false)
        if (Option.isNone(loaded)) return yield* Effect.fail(Errors.postNotFound())
        const { group, posts } = loaded.value
        const items =
          posts.length === 0
            ? []
            : yield* sql`
              SELECT id, post_id, position, content, media, delay_minutes, status, release_id, release_url, published_at,
                     error, held, held_at, waiting_for, attempts
              FROM post_items WHERE post_id IN ${sql.in(posts.map((p) => p.id))} ORDER BY post_id, position`.pipe(Effect.flatMap(decodeItems))
        const tags = yield* selectTags([groupId])
        const activity = yield* sql`
        SELECT actor, action, detail, created_at FROM post_activity WHERE group_id = ${groupId} ORDER BY id`.pipe(Effect.flatMap(decodeActivity))
        const comments = yield* sql`
        SELECT id, author, role, content, created_at FROM post_comments WHERE group_id = ${groupId} ORDER BY created_at, id`.pipe(
          Effect.flatMap(decodeComments)
        )
        return wholePost({ group, posts, items, tags, activity, comments, publicUrl })
      })
    )

  /** GET /posts: one row per channel whose time is in the range, oldest first. */
  const listRows = (input: { workspaceId: string; start: Date; end: Date; customerId: string | null }) =>
    inOneSnapshot(
      Effect.gen(function* () {
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
               error, held, held_at, waiting_for, attempts
        FROM post_items WHERE post_id IN ${sql.in(posts.map((p) => p.id))} AND position = 0`.pipe(Effect.flatMap(decodeItems))
        const tags = yield* selectTags(groupIds)
        const groupById = new Map(groups.map((g) => [g.id, g]))
        const rootByPost = new Map(roots.map((r) => [r.postId, r]))
        return posts.flatMap((p) => {
          const group = groupById.get(p.groupId)
          const root = rootByPost.get(p.id)
          return group === undefined || root === undefined
            ? []
            : [
                postRow(
                  p,
                  group,
                  root,
                  tags.filter((t) => t.groupId === p.groupId)
                )
              ]
        })
      })
    )

  /** The stored items of channel posts, in order, for checking them against network rules again. */
  const itemsOf = (workspaceId: string, postIds: ReadonlyArray<string>) =>
    postIds.length === 0
      ? Effect.succeed([] as ReadonlyArray<StoredItem>)
      : sql`
          SELECT post_id, position, content, media, delay_minutes FROM post_items
          WHERE post_id IN ${sql.in(postIds)} AND workspace_id = ${workspaceId} ORDER BY post_id, position`.pipe(Effect.flatMap(decodeStoredItems))
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

  /** Every publish attempt of a whole post's items, by channel (as the post orders them), item and attempt. */
  const attemptsOf = (workspaceId: string, groupId: string) =>
    sql`
      SELECT p.channel_id, a.item_id, i.position, a.attempt, a.operation, a.started_at,
        CASE WHEN a.finished_at IS NULL THEN NULL ELSE round(extract(epoch FROM a.finished_at - a.started_at) * 1000)::int END AS duration_ms,
        a.outcome, a.error, a.calls
      FROM posts p JOIN post_items i ON i.post_id = p.id JOIN publish_attempts a ON a.item_id = i.id
      WHERE p.group_id = ${groupId} AND p.workspace_id = ${workspaceId} AND p.deleted_at IS NULL
      ORDER BY p.ordinal, i.position, a.attempt`.pipe(Effect.flatMap(decodeAttempts))

  return { resolveGroupId, load, loadOr404, rootItemOf, renderWholePost, listRows, itemsOf, findByShareToken, attemptsOf }
})

/** The reads as a service, built once per process (its queries and decoders are reused). */
export class PostsReadRepo extends Context.Tag("posts/PostsReadRepo")<PostsReadRepo, Effect.Effect.Success<typeof makePostsReadRepo>>() {
  static readonly Live = Layer.effect(PostsReadRepo, makePostsReadRepo)
}
