import { SqlClient } from "@effect/sql"
import { Data, Duration, Effect, Option, Redacted, Schedule, Schema } from "effect"
import { findNetwork } from "../../domain/networks/index.js"
import { PublishMessages } from "../../domain/posts/messages.js"
import { afterAttempt, type AttemptOutcome } from "../../domain/posts/states.js"
import { type NetworkAdapter, PublishAnswer, type PublishRequest, SearchAnswer } from "../networks/adapter.js"
import { NetworkAdapters } from "../networks/registry.js"
import { AppConfig } from "../platform/config.js"
import { JobOutcome } from "../platform/jetstreamConsumer.js"
import * as Outbox from "../platform/outbox.js"
import { decryptSecret } from "../platform/secrets.js"
import { isPublishingEvent, publishingEvent } from "../posts/postEvents.js"
import { decodeSettings, StoredMedia } from "../posts/rows.js"

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
  media: Schema.Array(StoredMedia),
  status: Schema.String,
  settings: Schema.Unknown,
  credentials: Schema.NullOr(Schema.Uint8ArrayFromSelf),
  replyTo: Schema.NullOr(Schema.String)
})
type ItemContext = typeof ItemContext.Type
const decodeItemContexts = Schema.decodeUnknown(Schema.Array(ItemContext))

/** How the publisher runs its jobs (services/publisher/main.ts reads them from the environment). */
export interface PublishSettings {
  /** How long an attempt stays claimed by its job without a renewal (renewed at a third of it). */
  readonly leaseMs: number
  /** How long a network may take to answer a publish before it counts as no answer. */
  readonly networkTimeoutMs: number
}

/** Sends that reached nothing (connection refused …) before the item fails with a plain error. */
export const MAX_SENDS_THAT_REACHED_NOTHING = 5

type Start = Data.TaggedEnum<{
  /** The item is not (or no longer) publishing: nothing to do. */
  Nothing: {}
  /** Another job holds the item's open attempt: come back when its lease ends. */
  Busy: { readonly leaseLeftMs: number }
  /** An attempt of ours: send, or (an earlier attempt may have sent it) search. */
  Run: { readonly item: ItemContext; readonly attemptId: string; readonly mode: "send" | "search"; readonly reachedNothing: number }
}>
const Start = Data.taggedEnum<Start>()

/** What an attempt concludes, recorded with the item's state change. */
type Conclusion =
  | { readonly _tag: "Published"; readonly releaseId: string; readonly releaseUrl: string }
  | { readonly _tag: "Rejected"; readonly message: string; readonly fix: string }
  | { readonly _tag: "Unconfirmed" }

/** Plain-language outcome of a network this server cannot publish to. */
const noAdapter = (networkName: string): Conclusion => ({ _tag: "Rejected", ...PublishMessages.noAdapter(networkName) })

const unreadableCredentials: Conclusion = { _tag: "Rejected", ...PublishMessages.unreadableCredentials }

const unreachable = (networkName: string, reason: string): Conclusion => ({ _tag: "Rejected", ...PublishMessages.unreachable(networkName, reason) })

const lostAnswer = { error: PublishMessages.lostAnswer.message, fix: PublishMessages.lostAnswer.fix }

/**
 * Finds the item's open attempt or opens one, in one transaction with the item locked.
 * An open attempt whose lease another job still holds is left alone (its answer may still
 * come); an open attempt whose lease ran out belongs to a job that died: we take it over
 * and search, never send.
 */
const startAttempt = (itemId: string, owner: string, leaseMs: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql`
          SELECT i.id, i.post_id, p.group_id, i.workspace_id, p.channel_id, c.name AS channel_name, c.network,
                 i.position, i.content, i.media, i.status, p.settings, c.credentials,
                 (SELECT prev.release_id FROM post_items prev WHERE prev.post_id = i.post_id AND prev.position = i.position - 1) AS reply_to
          FROM post_items i JOIN posts p ON p.id = i.post_id JOIN channels c ON c.id = p.channel_id
          WHERE i.id = ${itemId} AND p.deleted_at IS NULL
          FOR UPDATE OF i`.pipe(Effect.flatMap(decodeItemContexts))
        const item = rows[0]
        if (item === undefined || item.status !== "publishing") return Start.Nothing()
        const open = yield* sql<{ id: string; leaseOwner: string | null; leaseLeftMs: number }>`
          SELECT id, lease_owner, greatest(0, ceil(extract(epoch FROM (lease_until - now())) * 1000))::int AS lease_left_ms
          FROM publish_attempts WHERE item_id = ${itemId} AND outcome IS NULL ORDER BY attempt DESC LIMIT 1`
        const history = yield* sql<{ n: number; reachedNothing: number }>`
          SELECT count(*)::int AS n, (count(*) FILTER (WHERE outcome = 'not_sent'))::int AS reached_nothing
          FROM publish_attempts WHERE item_id = ${itemId}`
        const reachedNothing = history[0]?.reachedNothing ?? 0
        const openAttempt = open[0]
        if (openAttempt !== undefined) {
          if (openAttempt.leaseLeftMs > 0 && openAttempt.leaseOwner !== owner) return Start.Busy({ leaseLeftMs: openAttempt.leaseLeftMs })
          yield* sql`UPDATE publish_attempts SET lease_owner = ${owner}, lease_until = now() + ${leaseMs} * interval '1 millisecond'
            WHERE id = ${openAttempt.id}`
          return Start.Run({ item, attemptId: openAttempt.id, mode: "search", reachedNothing })
        }
        const attemptId = crypto.randomUUID()
        yield* sql`INSERT INTO publish_attempts ${sql.insert({ id: attemptId, itemId, workspaceId: item.workspaceId, attempt: (history[0]?.n ?? 0) + 1, leaseOwner: owner })}`
        yield* sql`UPDATE publish_attempts SET lease_until = now() + ${leaseMs} * interval '1 millisecond' WHERE id = ${attemptId}`
        return Start.Run({ item, attemptId, mode: "send", reachedNothing })
      })
    )
  })

/** Keeps the attempt ours while its job runs; stops quietly if another job took it over. */
const holdLease = (attemptId: string, owner: string, leaseMs: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE publish_attempts SET lease_until = now() + ${leaseMs} * interval '1 millisecond'
      WHERE id = ${attemptId} AND lease_owner = ${owner} AND outcome IS NULL`.pipe(Effect.ignore)
  }).pipe(Effect.delay(Duration.millis(Math.max(50, Math.floor(leaseMs / 3)))), Effect.repeat(Schedule.forever))

/** An attempt that sent nothing (rate limited, nothing reached the network): closed, the item stays publishing. */
const closeUnsent = (attemptId: string, outcome: "rate_limited" | "not_sent", reason: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE publish_attempts SET finished_at = now(), outcome = ${outcome}, error = ${JSON.stringify({ message: reason, fix: "" })}
      WHERE id = ${attemptId} AND outcome IS NULL`
  })

const retryDelayAfter = (reachedNothing: number) => Math.min(60_000, 2000 * 2 ** reachedNothing)

const credentialsOf = (item: ItemContext) =>
  Effect.gen(function* () {
    if (item.credentials === null) return Option.some(Option.none<Redacted.Redacted<string>>())
    const { secretKey } = yield* AppConfig
    const sealed = Buffer.from(item.credentials)
    return yield* Effect.try(() => decryptSecret(secretKey, sealed)).pipe(
      Effect.map((plain) => Option.some(Option.some(Redacted.make(plain)))),
      Effect.orElseSucceed(() => Option.none<Option.Option<Redacted.Redacted<string>>>())
    )
  })

const searchConclusion = (adapter: NetworkAdapter, request: PublishRequest) =>
  adapter.search(request).pipe(
    Effect.map(
      SearchAnswer.$match({
        Found: ({ releaseId, releaseUrl }): Conclusion => ({ _tag: "Published", releaseId, releaseUrl }),
        NotFound: (): Conclusion => ({ _tag: "Unconfirmed" }),
        CannotTell: (): Conclusion => ({ _tag: "Unconfirmed" })
      })
    )
  )

/**
 * Publishes one claimed item, never twice (DESIGN rule 1): an attempt row is committed
 * before the network is called; a job that finds an attempt without an outcome (a crash
 * or a redelivery) searches instead of sending again, and leaves alone an attempt whose
 * job is still running. Answers map onto the item's states: published, rejected (error),
 * no answer (search: published or unconfirmed); rate limited and nothing-sent leave the
 * item publishing and the job comes back after the wait.
 */
export const publishItem = (itemId: string, settings: PublishSettings) =>
  Effect.gen(function* () {
    const owner = crypto.randomUUID()
    const start = yield* startAttempt(itemId, owner, settings.leaseMs)
    if (start._tag === "Nothing") return JobOutcome.Done()
    if (start._tag === "Busy") return JobOutcome.Retry({ delayMs: start.leaseLeftMs + 250 })
    const { attemptId, item, mode, reachedNothing } = start
    return yield* Effect.forkScoped(holdLease(attemptId, owner, settings.leaseMs)).pipe(
      Effect.zipRight(runAttempt(item, attemptId, mode, reachedNothing, settings)),
      Effect.scoped
    )
  }).pipe(Effect.withSpan("publisher.publishItem", { attributes: { itemId } }))

const runAttempt = (item: ItemContext, attemptId: string, mode: "send" | "search", reachedNothing: number, settings: PublishSettings) =>
  Effect.gen(function* () {
    const adapters = yield* NetworkAdapters
    const adapter = adapters.find(item.network)
    const networkName = Option.match(findNetwork(item.network), { onNone: () => item.network, onSome: (n) => n.name })
    const conclude = (conclusion: Conclusion) => recordOutcome(item, attemptId, conclusion).pipe(Effect.as(JobOutcome.Done()))
    if (Option.isNone(adapter)) return yield* conclude(noAdapter(networkName))
    const credentials = yield* credentialsOf(item)
    if (Option.isNone(credentials)) return yield* conclude(unreadableCredentials)
    const request: PublishRequest = {
      item: { id: item.id, position: item.position, content: item.content },
      media: item.media,
      channel: { id: item.channelId, credentials: credentials.value, settings: decodeSettings(item.settings) },
      previousReleaseId: item.replyTo
    }
    // we may have sent it before: ask the network, never send again
    if (mode === "search") return yield* conclude(yield* searchConclusion(adapter.value, request))
    const answer = yield* adapter.value.publish(request).pipe(
      Effect.timeoutTo({
        duration: Duration.millis(settings.networkTimeoutMs),
        onSuccess: (a): PublishAnswer => a,
        onTimeout: () => PublishAnswer.NoAnswer({ reason: `no answer within ${settings.networkTimeoutMs} ms` })
      })
    )
    return yield* PublishAnswer.$match(answer, {
      Published: ({ releaseId, releaseUrl }) => conclude({ _tag: "Published", releaseId, releaseUrl }),
      Rejected: ({ fix, message }) => conclude({ _tag: "Rejected", message, fix }),
      RateLimited: ({ retryAfterMs }) =>
        closeUnsent(attemptId, "rate_limited", `rate limited for ${retryAfterMs} ms`).pipe(Effect.as(JobOutcome.Retry({ delayMs: retryAfterMs }))),
      FailedBeforeSending: ({ reason }) =>
        reachedNothing + 1 >= MAX_SENDS_THAT_REACHED_NOTHING
          ? conclude(unreachable(networkName, reason))
          : closeUnsent(attemptId, "not_sent", reason).pipe(Effect.as(JobOutcome.Retry({ delayMs: retryDelayAfter(reachedNothing) }))),
      NoAnswer: () => searchConclusion(adapter.value, request).pipe(Effect.flatMap(conclude))
    })
  })

const outcomeOf = (result: Conclusion): AttemptOutcome =>
  result._tag === "Published"
    ? { kind: "published" }
    : result._tag === "Rejected"
      ? { kind: "rejected", error: result.message, fix: result.fix }
      : { kind: "unconfirmed", ...lostAnswer }

/** The outcome, the item, its channel's post, the whole post and the events, in one transaction. */
const recordOutcome = (item: ItemContext, attemptId: string, result: Conclusion) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const outcome = outcomeOf(result)
    const error = outcome.kind === "published" ? null : { message: outcome.error, fix: outcome.fix }
    const releaseId = result._tag === "Published" ? result.releaseId : null
    const releaseUrl = result._tag === "Published" ? result.releaseUrl : null
    yield* Outbox.transaction(
      Effect.gen(function* () {
        // A real "published" wins over the "unconfirmed" a search recorded meanwhile (a job that
        // took over an attempt whose answer was only late); any other concluded attempt stays.
        const lateAnswerWins = outcome.kind === "published" ? sql`OR outcome = 'unconfirmed'` : sql``
        const concluded = yield* sql<{ attempt: number }>`UPDATE publish_attempts SET finished_at = now(), outcome = ${outcome.kind},
          release_id = ${releaseId}, release_url = ${releaseUrl}, error = ${error === null ? null : JSON.stringify(error)}
          WHERE id = ${attemptId} AND (outcome IS NULL ${lateAnswerWins}) RETURNING attempt`
        const attempt = concluded[0]?.attempt
        if (attempt === undefined) return // concluded already by another job
        const status = outcome.kind === "published" ? "published" : outcome.kind === "rejected" ? "error" : "unconfirmed"
        const fromUnconfirmed = outcome.kind === "published" ? sql`OR status = 'unconfirmed'` : sql``
        // only the item's latest attempt moves it: after a retry the new attempt decides
        const updated = yield* sql<{ publishedAt: Date | null }>`
          UPDATE post_items SET status = ${status}, release_id = ${releaseId}, release_url = ${releaseUrl},
            published_at = ${outcome.kind === "published" ? sql`now()` : null}, error = ${error === null ? null : JSON.stringify(error)}
          WHERE id = ${item.id} AND (status = 'publishing' ${fromUnconfirmed})
            AND NOT EXISTS (SELECT 1 FROM publish_attempts later WHERE later.item_id = ${item.id} AND later.attempt > ${attempt})
          RETURNING published_at`
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
        const channelAttempt = {
          postId: item.postId,
          groupId: item.groupId,
          channelId: item.channelId,
          provider: item.network,
          content: item.content,
          release: result._tag === "Published" ? { releaseId: result.releaseId, releaseUrl: result.releaseUrl, publishedAt } : null
        }
        // the notifications (a failed post, …) are derived from these events by the writer
        yield* Outbox.write(item.workspaceId, step.events.filter(isPublishingEvent).map((e) => publishingEvent(e, channelAttempt)))
      })
    )
  })
