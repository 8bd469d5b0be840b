import type { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import type { ParseError } from "effect/ParseResult"
import { PublishMessages } from "../../domain/posts/messages.js"
import { nextOccurrenceAt } from "../../domain/posts/repeat.js"
import { type ActivityEntry, afterAttempt, type AttemptOutcome, type ChannelStatus, type WholePostStatus } from "../../domain/posts/states.js"
import type { ServiceEvent } from "../../protocol/events.js"
import * as Outbox from "../platform/outbox.js"
import { isPublishingEvent, publishingEvent } from "../posts/postEvents.js"
import { RepeatsRepo } from "../posts/repeatsRepo.js"
import { AttemptsRepo, type AttemptResult, type AttemptTrace, type ItemForAttempt } from "./attemptsRepo.js"

/** What an attempt concludes, recorded with the item's state change. */
export type Conclusion =
  | { readonly _tag: "Published"; readonly releaseId: string; readonly releaseUrl: string }
  | { readonly _tag: "Rejected"; readonly message: string; readonly fix: string }
  | { readonly _tag: "Unconfirmed" }

/** One attempt's outcome to record: the item, its attempt, what it concluded and what it asked of the network. */
export interface OutcomeToRecord {
  readonly item: ItemForAttempt
  readonly attemptId: string
  readonly conclusion: Conclusion
  readonly trace: AttemptTrace
}

const lostAnswer = { error: PublishMessages.lostAnswer.message, fix: PublishMessages.lostAnswer.fix }

export const outcomeOf = (result: Conclusion): AttemptOutcome =>
  result._tag === "Published"
    ? { kind: "published", releaseUrl: result.releaseUrl }
    : result._tag === "Rejected"
      ? { kind: "rejected", error: result.message, fix: result.fix }
      : { kind: "unconfirmed", ...lostAnswer }

/** What the attempt writes: its outcome, the release or the error. */
const resultOf = (conclusion: Conclusion, outcome: AttemptOutcome): AttemptResult => ({
  outcome: outcome.kind,
  releaseId: conclusion._tag === "Published" ? conclusion.releaseId : null,
  releaseUrl: conclusion._tag === "Published" ? conclusion.releaseUrl : null,
  error: outcome.kind === "published" ? null : { message: outcome.error, fix: outcome.fix }
})

/** Outcomes whose items appear once each (the first of each item), and the rest for a later round. */
const firstPerItem = (batch: ReadonlyArray<OutcomeToRecord>) => {
  const seen = new Set<string>()
  const first: Array<OutcomeToRecord> = []
  const rest: Array<OutcomeToRecord> = []
  for (const o of batch) {
    if (seen.has(o.item.id)) rest.push(o)
    else {
      seen.add(o.item.id)
      first.push(o)
    }
  }
  return { first, rest }
}

/**
 * The outcomes, their items, their channels' posts, the whole posts and the events, in
 * the caller's outbox transaction (publishBatches.ts runs many outcomes in one), in a few
 * statements for all of them: the attempts and items, the whole posts read (locked), the
 * posts, whole posts and activity moved, the events and notifications. Each outcome
 * decides as it would alone, in the order given: outcomes of one whole post see the
 * channels the ones before them moved. An item with two outcomes in the batch has its
 * second recorded in a round after the first. The channels of the outcomes that
 * published an item: the caller stamps their last successful call.
 */
export const outcomeStatements = (
  batch: ReadonlyArray<OutcomeToRecord>
): Effect.Effect<ReadonlyArray<string>, SqlError | ParseError, AttemptsRepo | RepeatsRepo | SqlClient.SqlClient | Outbox.OutboxTransaction> =>
  Effect.gen(function* () {
    if (batch.length === 0) return []
    const attempts = yield* AttemptsRepo
    const { first, rest } = firstPerItem(batch)
    const decided = first.map((o) => {
      const outcome = outcomeOf(o.conclusion)
      return { ...o, outcome, result: resultOf(o.conclusion, outcome) }
    })
    // only the item's latest attempt moves it: after a retry the new attempt decides
    const moved = yield* attempts.concludeAttempts(
      decided.map((d) => ({ itemId: d.item.id, attemptId: d.attemptId, result: d.result, trace: d.trace }))
    )
    // concluded already, or moved meanwhile (deleted, linked by hand): nothing changes
    const movers = decided.filter((d) => moved.has(d.attemptId))
    // the next follow-up becomes due `delay` minutes after this one went live; behind an
    // item that did not go out, the follow-ups end `error` saying why (a retry queues them)
    yield* Effect.forEach(
      movers.filter((d) => d.item.hasNext),
      (d) =>
        d.outcome.kind === "published"
          ? attempts.scheduleNextFollowUp(d.item.postId, d.item.position)
          : attempts.stopFollowUpsAfter(d.item.postId, d.item.position),
      { discard: true }
    )
    // a follow-up's outcome stays on the follow-up: it does not fail its post (retried alone)
    const roots = movers.filter((d) => d.item.position === 0)
    const groups = yield* attempts.loadGroupsForOutcome(roots.map((d) => d.item.groupId))
    const posts: Array<{ postId: string; status: ChannelStatus; result: AttemptResult }> = []
    const groupStatus = new Map<string, WholePostStatus>()
    const activity: Array<ActivityEntry & { readonly groupId: string }> = []
    const repeating: Array<{ readonly groupId: string; readonly next: Date }> = []
    const events: Array<{ readonly workspaceId: string; readonly events: ReadonlyArray<ServiceEvent> }> = []
    for (const d of roots) {
      const { item, conclusion } = d
      const post = groups.get(item.groupId)
      if (post === undefined) continue
      const step = afterAttempt(post, item.channelId, d.outcome)
      const channel = step.channels.find((c) => c.channelId === item.channelId)
      if (channel === undefined || channel.to === null || channel.to === channel.from) continue
      const to = channel.to
      // the next outcome of the same whole post sees this channel moved
      groups.set(item.groupId, { ...post, channels: post.channels.map((c) => (c.channelId === item.channelId ? { ...c, status: to } : c)) })
      posts.push({ postId: item.postId, status: to, result: d.result })
      groupStatus.set(item.groupId, step.status)
      activity.push(...step.activity.map((a) => ({ ...a, groupId: item.groupId })))
      // a repeating post's first channel to go live makes its next occurrence (once: unique repeat_of)
      if (to === "published" && post.repeatDays !== null) {
        repeating.push({ groupId: item.groupId, next: nextOccurrenceAt(post.publishAt, post.repeatDays, new Date()) })
      }
      const publishedAt = moved.get(d.attemptId)?.publishedAt ?? new Date()
      const channelAttempt = {
        postId: item.postId,
        groupId: item.groupId,
        channelId: item.channelId,
        provider: item.network,
        content: item.content,
        release: conclusion._tag === "Published" ? { releaseId: conclusion.releaseId, releaseUrl: conclusion.releaseUrl, publishedAt } : null
      }
      events.push({ workspaceId: item.workspaceId, events: step.events.filter(isPublishingEvent).map((e) => publishingEvent(e, channelAttempt)) })
    }
    yield* attempts.moveChannelPosts({ posts, groups: [...groupStatus].map(([groupId, status]) => ({ groupId, status })), activity })
    if (repeating.length > 0) {
      const repeats = yield* RepeatsRepo
      yield* Effect.forEach(repeating, (r) => repeats.createNextOccurrence(r.groupId, r.next), { discard: true })
    }
    // the notifications (a failed post, …) are derived from these events by the writer
    const names = new Map(batch.map((o) => [o.item.channelId, o.item.channelName]))
    yield* Outbox.writeAll(events, (id) => names.get(id))
    const published = movers.filter((d) => d.outcome.kind === "published").map((d) => d.item.channelId)
    return [...published, ...(yield* outcomeStatements(rest))]
  })
