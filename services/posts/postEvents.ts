import type { PostEvent } from "../../domain/posts/states.js"
import type { EventOf, ServiceEvent } from "../../protocol/events.js"

/**
 * The spec's data of a post's events, from what the state machine decided (PostEvent)
 * and what the repositories know about the post: the one place their payloads are assembled.
 * Approval events come from the workspace actor's changes, publishing events from the
 * publisher's outcomes.
 */

export type ApprovalEvent = Extract<PostEvent, { readonly name: "approval.requested" | "approval.approved" | "approval.changes" }>
export type PublishingEvent = Extract<PostEvent, { readonly name: "post.published" | "post.failed" | "post.unconfirmed" }>

export const isApprovalEvent = (e: PostEvent): e is ApprovalEvent => e.name.startsWith("approval.")
export const isPublishingEvent = (e: PostEvent): e is PublishingEvent => e.name.startsWith("post.")

/** What approval events say about the whole post. */
export interface PostUnderReview {
  readonly groupId: string
  readonly publishAt: Date
  /** The post's channels after the change. */
  readonly channelIds: ReadonlyArray<string>
  readonly previewUrl: string
}

export const approvalEvent = (e: ApprovalEvent, post: PostUnderReview): ServiceEvent => {
  const common = { groupId: post.groupId, publishAt: post.publishAt, channelIds: post.channelIds, previewUrl: post.previewUrl }
  switch (e.name) {
    case "approval.requested":
      return { event: e.name, data: { ...common, requestedBy: e.requestedBy, approvalStatus: "requested" } }
    case "approval.approved":
      return { event: e.name, data: { ...common, approvedBy: e.approvedBy, approvalStatus: "approved" } }
    case "approval.changes":
      return { event: e.name, data: { ...common, comment: e.comment, requestedBy: e.requestedBy, approvalStatus: "changes" } }
  }
}

/** What publishing events say about one channel's post. */
export interface ChannelPostAttempt {
  readonly postId: string
  readonly groupId: string
  readonly channelId: string
  /** The network's identifier. */
  readonly provider: string
  readonly content: string
  /** Present when the post went live. */
  readonly release: { readonly releaseId: string; readonly releaseUrl: string; readonly publishedAt: Date } | null
}

export const publishingEvent = (e: PublishingEvent, post: ChannelPostAttempt): ServiceEvent => {
  const common = { postId: post.postId, groupId: post.groupId, provider: post.provider, channelId: post.channelId }
  switch (e.name) {
    case "post.published": {
      // the state machine emits post.published only for a published outcome, which has a release
      if (post.release === null) throw new Error(`post.published without a release for post ${post.postId}`)
      const data: EventOf<"post.published">["data"] = { ...common, content: post.content, ...post.release }
      return { event: e.name, data }
    }
    case "post.failed":
    case "post.unconfirmed":
      return { event: e.name, data: { ...common, error: e.error, fix: e.fix } }
  }
}
