import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { findNetwork } from "../../domain/networks/index.js"
import { afterAttempt, type AttemptOutcome } from "../../domain/posts/states.js"
import { adapterFor } from "../networks/registry.js"
import type { PublishRequest, PublishResult } from "../networks/adapter.js"
import * as Outbox from "../platform/outbox.js"
import { isPublishingEvent, publishingEvent } from "../posts/postEvents.js"
import { decodeSettings } from "../posts/rows.js"

const ItemContext = Schema.Struct({
  id: Schema.String,
  postId: Schema.String,
  groupId: Schema.String,
  workspaceId: Schema.String,
  channelId: Schema.String,
  channelName: Schema.String,
  network: Schema.String,
  position: Schema.Number,
  content: Schema.String,
  status: Schema.String,
  settings: Schema.Unknown,
  replyTo: Schema.NullOr(Schema.String)
})
type ItemContext = typeof ItemContext.Type
const decodeItemContexts = Schema.decodeUnknown(Schema.Array(ItemContext))

interface Start {
  readonly item: ItemContext
  readonly attemptId: string
  readonly mode: "send" | "search"
}

/** Plain-language outcome of a network that could not be reached or asked. */
const noAdapter = (networkName: string): PublishResult => ({
  _tag: "Rejected",
  error: `Publishing to ${networkName} is not connected on this server yet.`,
  fix: "Connect the network's server keys, then retry the post."
})

const lostAnswer = {
  error: "The network did not answer, and a search could not tell whether the post went live.",
  fix: "Check the channel on the network. If the post is live, link it with PUT /posts/{id}/release-id; if not, retry it."
}

/**
 * Publishes one claimed item, never twice (DESIGN rule 1): an attempt row is committed
 * before the network is called; a job that finds an attempt without an outcome (a crash
 * or a redelivery) searches instead of sending again.
 */
export const publishItem = (itemId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const start = yield* sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql`
          SELECT i.id, i.post_id, p.group_id, i.workspace_id, p.channel_id, c.name AS channel_name, c.network,
                 i.position, i.content, i.status, p.settings,
                 (SELECT prev.release_id FROM post_items prev WHERE prev.post_id = i.post_id AND prev.position = i.position - 1) AS reply_to
          FROM post_items i JOIN posts p ON p.id = i.post_id JOIN channels c ON c.id = p.channel_id
          WHERE i.id = ${itemId} AND p.deleted_at IS NULL
          FOR UPDATE OF i`.pipe(Effect.flatMap(decodeItemContexts))
        const item = rows[0]
        if (item === undefined || item.status !== "publishing") return Option.none<Start>()
        const open = yield* sql<{ id: string }>`SELECT id FROM publish_attempts WHERE item_id = ${itemId} AND outcome IS NULL LIMIT 1`
        const openAttempt = open[0]
        if (openAttempt !== undefined) return Option.some<Start>({ item, attemptId: openAttempt.id, mode: "search" })
        const attemptId = crypto.randomUUID()
        const count = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM publish_attempts WHERE item_id = ${itemId}`
        yield* sql`INSERT INTO publish_attempts ${sql.insert({ id: attemptId, itemId, workspaceId: item.workspaceId, attempt: (count[0]?.n ?? 0) + 1 })}`
        return Option.some<Start>({ item, attemptId, mode: "send" })
      })
    )
    if (Option.isNone(start)) return
    const { attemptId, item, mode } = start.value
    const request: PublishRequest = {
      itemId: item.id,
      channelId: item.channelId,
      position: item.position,
      content: item.content,
      replyTo: item.replyTo,
      settings: decodeSettings(item.settings)
    }
    const adapter = adapterFor(item.network)
    const networkName = Option.match(findNetwork(item.network), { onNone: () => item.network, onSome: (n) => n.name })
    let result: PublishResult
    if (Option.isNone(adapter)) result = noAdapter(networkName)
    else if (mode === "send") result = yield* adapter.value.publish(request)
    else {
      // we may have sent it: ask the network, never send again
      const found = yield* adapter.value.search(request).pipe(Effect.either)
      result =
        found._tag === "Right" && Option.isSome(found.right)
          ? { _tag: "Published", ...found.right.value }
          : { _tag: "NoAnswer", reason: "search could not find the post" }
    }
    if (result._tag === "NoAnswer" && mode === "send" && Option.isSome(adapter)) {
      const found = yield* adapter.value.search(request).pipe(Effect.either)
      if (found._tag === "Right" && Option.isSome(found.right)) result = { _tag: "Published", ...found.right.value }
    }
    yield* recordOutcome(item, attemptId, result)
  })

const outcomeOf = (result: PublishResult): AttemptOutcome =>
  result._tag === "Published"
    ? { kind: "published" }
    : result._tag === "Rejected"
      ? { kind: "rejected", error: result.error, fix: result.fix }
      : { kind: "unconfirmed", ...lostAnswer }

/** The outcome, the item, its channel's post, the whole post and the events, in one transaction. */
const recordOutcome = (item: ItemContext, attemptId: string, result: PublishResult) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const outcome = outcomeOf(result)
    const error = outcome.kind === "published" ? null : { message: outcome.error, fix: outcome.fix }
    const releaseId = result._tag === "Published" ? result.releaseId : null
    const releaseUrl = result._tag === "Published" ? result.releaseUrl : null
    yield* Outbox.transaction(
      Effect.gen(function* () {
        yield* sql`UPDATE publish_attempts SET finished_at = now(), outcome = ${result._tag === "Published" ? "published" : outcome.kind},
          release_id = ${releaseId}, release_url = ${releaseUrl}, error = ${error === null ? null : JSON.stringify(error)} WHERE id = ${attemptId}`
        const status = outcome.kind === "published" ? "published" : outcome.kind === "rejected" ? "error" : "unconfirmed"
        const updated = yield* sql<{ publishedAt: Date | null }>`
          UPDATE post_items SET status = ${status}, release_id = ${releaseId}, release_url = ${releaseUrl},
            published_at = ${outcome.kind === "published" ? sql`now()` : null}, error = ${error === null ? null : JSON.stringify(error)}
          WHERE id = ${item.id} AND status = 'publishing' RETURNING published_at`
        if (updated.length === 0) return // moved meanwhile (deleted, linked by hand): its outcome changes nothing
        if (outcome.kind === "published") {
          // the next follow-up becomes due `delay` minutes after this one went live
          yield* sql`UPDATE post_items SET due_at = now() + make_interval(mins => delay_minutes)
            WHERE post_id = ${item.postId} AND position = ${item.position + 1} AND status = 'queued'`
        }
        if (item.position !== 0) return
        const group = yield* sql<{ publishAt: Date; approvalStatus: "requested" | "approved" | "changes" | null }>`
          SELECT publish_at, approval_status FROM post_groups WHERE id = ${item.groupId} FOR UPDATE`
        const channels = yield* sql<{ channelId: string; status: "draft" | "queued" | "publishing" | "pending" | "published" | "error" | "unconfirmed" }>`
          SELECT channel_id, status FROM posts WHERE group_id = ${item.groupId} AND deleted_at IS NULL`
        const g = group[0]
        if (g === undefined) return
        const step = afterAttempt({ publishAt: g.publishAt, approval: g.approvalStatus, channels }, item.channelId, outcome)
        const moved = step.channels.find((c) => c.channelId === item.channelId)
        if (moved === undefined || moved.to === null || moved.to === moved.from) return
        yield* sql`UPDATE posts SET status = ${moved.to}, release_id = ${releaseId}, release_url = ${releaseUrl},
          error = ${error === null ? null : JSON.stringify(error)}, updated_at = now() WHERE id = ${item.postId}`
        yield* sql`UPDATE post_groups SET status = ${step.status}, updated_at = now() WHERE id = ${item.groupId}`
        if (step.activity.length > 0) {
          yield* sql`INSERT INTO post_activity ${sql.insert(step.activity.map((a) => ({ groupId: item.groupId, actor: a.actor, action: a.action, detail: a.detail })))}`
        }
        const publishedAt = updated[0]?.publishedAt ?? new Date()
        const attempt = {
          postId: item.postId,
          groupId: item.groupId,
          channelId: item.channelId,
          provider: item.network,
          content: item.content,
          release: result._tag === "Published" ? { releaseId: result.releaseId, releaseUrl: result.releaseUrl, publishedAt } : null
        }
        // the notifications (a failed post, …) are derived from these events by the writer
        yield* Outbox.write(item.workspaceId, step.events.filter(isPublishingEvent).map((e) => publishingEvent(e, attempt)))
      })
    )
  })
