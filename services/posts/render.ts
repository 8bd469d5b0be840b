import { legacyState, wholePostStatus } from "../../domain/posts/states.js"
import { isoOrNull, isoUtc } from "../../domain/time.js"
import type { PostAttempt, WholePost } from "../../protocol/http/postResources.js"
import {
  decodeSettings,
  decodeStoredError,
  decodeStoredMedia,
  type ChannelPostRow,
  type GroupRow,
  type ItemRow,
  type TagRow,
  type AttemptRow
} from "./rows.js"

/** Spec resources from stored rows: the Post row of GET /posts and the whole post. */

export const shareUrl = (publicUrl: string, shareToken: string) => `${publicUrl}/p/${shareToken}`

const channelSettings = (post: ChannelPostRow) => ({ __type: post.network, ...decodeSettings(post.settings) })

export const postRow = (post: ChannelPostRow, group: GroupRow, root: ItemRow, tags: ReadonlyArray<TagRow>) => ({
  id: post.id,
  group: post.groupId,
  content: root.content,
  publishDate: isoUtc(post.publishDate),
  releaseURL: post.releaseUrl,
  releaseId: post.releaseId,
  state: legacyState(post.status),
  status: post.status,
  error: decodeStoredError(post.error),
  intervalInDays: group.repeatDays,
  creationMethod: group.creationMethod,
  settings: channelSettings(post),
  tags: tags.map((t) => ({ tag: { id: t.id, name: t.name, color: t.color } })),
  image: decodeStoredMedia(root.media).map((m) => ({ id: m.id, path: m.url, alt: m.alt })),
  integration: { id: post.channelId, providerIdentifier: post.network, name: post.channelName, picture: post.picture }
})

const item = (post: ChannelPostRow, i: ItemRow) => ({
  id: i.id,
  channelId: post.channelId,
  position: i.position,
  content: i.content,
  media: decodeStoredMedia(i.media),
  settings: i.position === 0 ? channelSettings(post) : {},
  delay: i.position === 0 ? 0 : i.delayMinutes,
  state: i.status,
  releaseId: i.releaseId,
  releaseUrl: i.releaseUrl,
  publishedAt: isoOrNull(i.publishedAt),
  error: decodeStoredError(i.error),
  held: i.held,
  heldAt: isoOrNull(i.heldAt),
  waitingFor: i.waitingFor,
  attempts: i.attempts
})

export interface WholePostParts {
  readonly group: GroupRow
  readonly posts: ReadonlyArray<ChannelPostRow>
  readonly items: ReadonlyArray<ItemRow>
  readonly tags: ReadonlyArray<TagRow>
  readonly activity: ReadonlyArray<{ actor: string; action: string; detail: string | null; createdAt: Date }>
  readonly comments: ReadonlyArray<{ id: string; author: string; role: string; content: string; createdAt: Date }>
  readonly publicUrl: string
}

export const wholePost = (parts: WholePostParts): WholePost => {
  const { group } = parts
  return {
    id: group.id,
    status: wholePostStatus(
      parts.posts.map((p) => p.status),
      group.approvalStatus
    ),
    approvalStatus: group.approvalStatus,
    approvedBy: group.approvedBy,
    publishAt: isoUtc(group.publishAt),
    repeatDays: group.repeatDays,
    shortLink: group.shortLink,
    creationMethod: group.creationMethod,
    createdAt: isoUtc(group.createdAt),
    updatedAt: isoUtc(group.updatedAt),
    tags: parts.tags.map((t) => ({ id: t.id, name: t.name, color: t.color })),
    shareUrl: shareUrl(parts.publicUrl, group.shareToken),
    channels: parts.posts.flatMap((post) => {
      const items = parts.items.filter((i) => i.postId === post.id).sort((a, b) => a.position - b.position)
      const [root, ...thread] = items
      if (root === undefined) return []
      return [
        {
          postId: post.id,
          channelId: post.channelId,
          channelName: post.channelName,
          provider: post.network,
          picture: post.picture,
          username: post.profile,
          root: item(post, root),
          thread: thread.map((i) => item(post, i))
        }
      ]
    }),
    comments: parts.comments.map((c) => ({
      id: c.id,
      author: c.author,
      role: c.role,
      content: c.content,
      created_at: isoUtc(c.createdAt)
    })),
    activity: parts.activity.map((a) => ({ actor: a.actor, action: a.action, detail: a.detail, created_at: isoUtc(a.createdAt) }))
  }
}

/**
 * One attempt of the timeline: the network's last status and error text as received
 * (services/networks/networkCalls.ts), else this service's reason; `running` while it has
 * no outcome.
 */
export const attemptResource = (a: AttemptRow): PostAttempt => {
  const calls = a.calls ?? []
  const last = calls[calls.length - 1]
  const networkError = [...calls].reverse().find((c) => c.error !== null)?.error ?? null
  return {
    channelId: a.channelId,
    itemId: a.itemId,
    position: a.position,
    attempt: a.attempt,
    operation: a.operation,
    startedAt: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    networkStatus: last?.status ?? null,
    error: networkError ?? (a.outcome === "published" ? null : (a.error?.message ?? null)),
    outcome: a.outcome ?? "running",
    calls
  }
}
