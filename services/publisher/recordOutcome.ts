import { Effect, Option } from "effect"
import { PublishMessages } from "../../domain/posts/messages.js"
import { nextOccurrenceAt } from "../../domain/posts/repeat.js"
import { afterAttempt, type AttemptOutcome } from "../../domain/posts/states.js"
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

/**
 * The outcome, the item, its channel's post, the whole post and the events, in the
 * caller's outbox transaction (publishBatches.ts runs several outcomes in one). Whether it
 * published the item: the caller stamps the channel's last successful call.
 */
export const outcomeStatements = ({ item, attemptId, conclusion, trace }: OutcomeToRecord) =>
  Effect.gen(function* () {
    const attempts = yield* AttemptsRepo
    const outcome = outcomeOf(conclusion)
    const result = resultOf(conclusion, outcome)
    // only the item's latest attempt moves it: after a retry the new attempt decides
    const moved = yield* attempts.concludeAttempt(item.id, attemptId, result, trace)
    if (Option.isNone(moved)) return false // concluded already, or moved meanwhile (deleted, linked by hand): nothing changes
    yield* Effect.gen(function* () {
      // the next follow-up becomes due `delay` minutes after this one went live; behind an
      // item that did not go out, the follow-ups end `error` saying why (a retry queues them)
      if (item.hasNext) {
        yield* outcome.kind === "published"
          ? attempts.scheduleNextFollowUp(item.postId, item.position)
          : attempts.stopFollowUpsAfter(item.postId, item.position)
      }
      // a follow-up's outcome stays on the follow-up: it does not fail its post (retried alone)
      if (item.position !== 0) return
      const post = yield* attempts.loadGroupForOutcome(item.groupId)
      if (Option.isNone(post)) return
      const step = afterAttempt(post.value, item.channelId, outcome)
      const channel = step.channels.find((c) => c.channelId === item.channelId)
      if (channel === undefined || channel.to === null || channel.to === channel.from) return
      yield* attempts.moveChannelPost({
        postId: item.postId,
        groupId: item.groupId,
        status: channel.to,
        groupStatus: step.status,
        result,
        activity: step.activity
      })
      // a repeating post's first channel to go live makes its next occurrence (once: unique repeat_of)
      if (channel.to === "published" && post.value.repeatDays !== null) {
        const repeats = yield* RepeatsRepo
        yield* repeats.createNextOccurrence(item.groupId, nextOccurrenceAt(post.value.publishAt, post.value.repeatDays, new Date()))
      }
      const publishedAt = moved.value.publishedAt ?? new Date()
      const channelAttempt = {
        postId: item.postId,
        groupId: item.groupId,
        channelId: item.channelId,
        provider: item.network,
        content: item.content,
        release: conclusion._tag === "Published" ? { releaseId: conclusion.releaseId, releaseUrl: conclusion.releaseUrl, publishedAt } : null
      }
      // the notifications (a failed post, …) are derived from these events by the writer
      yield* Outbox.write(
        item.workspaceId,
        step.events.filter(isPublishingEvent).map((e) => publishingEvent(e, channelAttempt))
      )
    })
    return outcome.kind === "published"
  })
