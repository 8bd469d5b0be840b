import { SqlClient } from "@effect/sql"
import { Clock, Effect, Option, Schema } from "effect"
import { headers as natsHeaders } from "nats"
import { publishingPaused } from "../../domain/billing.js"
import { nextOccurrenceAt } from "../../domain/posts/repeat.js"
import { PublishJobJson } from "../../protocol/jobs.js"
import { RepeatsRepo } from "../posts/repeatsRepo.js"
import { Nats } from "../platform/nats.js"
import { pausePoint } from "../platform/testHooks.js"
import { injectTraceparent, withRemoteParent } from "../platform/tracing.js"
import { DueItemsRepo, type PublishJobRow } from "./dueItemsRepo.js"

/**
 * Due items → jobs on PUBLISH. Each claim of an item writes, in the claim transaction, one
 * publish job (item, claim) that is marked enqueued once JetStream acknowledged its message;
 * the message id is `<item>:<claim>`, so a repeated publish of the same claim is dropped by
 * the stream. Two sweepers repair from Postgres instead of guessing from the clock:
 * - a job whose enqueue was never acknowledged is published again (same message id);
 * - a job whose message has left the stream while its item is still publishing under that
 *   claim (NATS lost it, or it was settled without an outcome), or whose message the
 *   publisher's consumer delivered and then forgot, is claimed again.
 */

const encodeJob = Schema.encodeSync(PublishJobJson)

/** The PUBLISH message id of a claim: the stream drops a repeat of it. */
export const publishMessageId = (job: { readonly itemId: string; readonly claim: number }) => `${job.itemId}:${job.claim}`

/** A new claim's job is left to its claimer this long before the sweeper publishes it too. */
export const ENQUEUE_GRACE_MS = 5_000

/**
 * Puts one job on PUBLISH; JetStream's acknowledgement with the message's sequence. With
 * tracing on, in a span of the trace the item was written in, carried on to the publisher in
 * the message's headers.
 */
const enqueue = (job: PublishJobRow, traceParent: string | null = null) =>
  Effect.gen(function* () {
    const nats = yield* Nats
    const h = yield* injectTraceparent(natsHeaders())
    h.set("Nats-Msg-Id", publishMessageId(job))
    const ack = yield* Effect.tryPromise(() =>
      nats.jetstream.publish(nats.names.publishSubject(job.channelId), encodeJob({ itemId: job.itemId, workspaceId: job.workspaceId }), {
        headers: h
      })
    )
    return { ...job, sequence: ack.seq }
  }).pipe(withRemoteParent(traceParent, "scheduler.enqueue", { itemId: job.itemId }))

/** Jobs put on PUBLISH at once: a minute with thousands of due items is not enqueued one round trip at a time. */
const ENQUEUE_CONCURRENCY = 64

/** Enqueues each job and records the acknowledged ones in one statement; one that fails stays unacknowledged for the sweeper. */
const enqueueAll = (jobs: ReadonlyArray<PublishJobRow>, traces: ReadonlyMap<string, string | null> = new Map()) =>
  Effect.gen(function* () {
    const repo = yield* DueItemsRepo
    const acknowledged = yield* Effect.forEach(
      jobs,
      (job) =>
        enqueue(job, traces.get(job.itemId) ?? null).pipe(
          Effect.map(Option.some),
          Effect.catchAllCause((cause) =>
            Effect.logWarning(`publish job ${publishMessageId(job)} not enqueued; the sweeper retries`, cause).pipe(Effect.as(Option.none()))
          )
        ),
      { concurrency: ENQUEUE_CONCURRENCY }
    )
    yield* repo.markEnqueued(acknowledged.flatMap(Option.toArray))
  })

/**
 * Holds the due items of workspaces whose publishing billing pauses, and releases the held
 * items of workspaces that may publish again (domain/billing.ts decides which). Returns the
 * workspaces found publishing: only their items may be claimed in this tick, since an item
 * that fell due after this look (a post created or moved meanwhile) has not been checked.
 */
const applyBillingHolds = (leadMs: number) =>
  Effect.gen(function* () {
    const repo = yield* DueItemsRepo
    const now = new Date(yield* Clock.currentTimeMillis)
    const workspaces = yield* repo.workspacesWithDueOrHeldItems(leadMs)
    const paused = workspaces.filter((w) => publishingPaused(w.billingState, w.pastDueSince, now)).map((w) => w.id)
    const publishing = workspaces.filter((w) => !paused.includes(w.id)).map((w) => w.id)
    yield* repo.holdForBilling(paused, leadMs)
    yield* repo.releaseBillingHolds(publishing)
    return publishing
  })

/**
 * How long before its due time an item is claimed and its job put on PUBLISH: the job
 * waits in JetStream (a delayed redelivery, no worker slot held) and the publisher sends at
 * the due time (publishItem), so a busy minute does not start with the claims.
 */
export const CLAIM_LEAD_MS = 2_000

/**
 * Claims items due within `leadMs` (FOR UPDATE SKIP LOCKED, so schedulers share the work),
 * marks them publishing, writes their jobs and, after commit, puts the jobs on PUBLISH.
 * Workspaces whose publishing is paused by billing are skipped: their items wait, marked held.
 */
export const claimDueItems = (batch = 100, leadMs = 0) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DueItemsRepo
    const claimed = yield* sql.withTransaction(
      Effect.gen(function* () {
        const publishing = yield* applyBillingHolds(leadMs)
        const claimed = yield* repo.claimDue(batch, leadMs, publishing)
        if (claimed.length === 0) return { jobs: [], traces: new Map<string, string | null>() }
        // a channel's post is publishing once its first item is
        yield* repo.markPostsPublishing(claimed.filter((c) => c.position === 0).map((c) => c.postId))
        const jobs = claimed.map(({ channelId, claim, itemId, workspaceId }) => ({ itemId, claim, workspaceId, channelId }))
        yield* repo.recordJobs(jobs)
        return { jobs, traces: new Map(claimed.map((c) => [c.itemId, c.traceParent])) }
      })
    )
    if (claimed.jobs.length > 0) yield* pausePoint("scheduler.claimed")
    yield* enqueueAll(claimed.jobs, claimed.traces)
    return claimed.jobs.length
  })

/** Claims batch after batch until fewer than a batch were due, so a busy minute is not spread over many ticks. */
export const claimAllDueItems = (batch = 500, leadMs = CLAIM_LEAD_MS) =>
  claimDueItems(batch, leadMs).pipe(Effect.repeat({ while: (claimed) => claimed === batch }))

/**
 * Jobs whose enqueue JetStream never acknowledged (the publish failed, or the process died
 * between commit and publish) are published again under the same message id.
 */
export const enqueueUnacknowledgedJobs = (options: { readonly graceMs?: number; readonly batch?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DueItemsRepo
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const jobs = yield* repo.unacknowledgedJobs({ graceMs: options.graceMs ?? ENQUEUE_GRACE_MS, batch: options.batch ?? 100 })
        yield* enqueueAll(jobs)
        return jobs.length
      })
    )
  })

/** Whether the stream still holds the message of a job (same sequence and message id); unknown on other errors. */
const stillInStream = (job: PublishJobRow, sequence: number) =>
  Effect.gen(function* () {
    const nats = yield* Nats
    return yield* Effect.tryPromise({
      try: async () => {
        try {
          const stored = await nats.manager.streams.getMessage(nats.names.publishStream, { seq: sequence })
          return stored.header?.get("Nats-Msg-Id") === publishMessageId(job) ? ("present" as const) : ("gone" as const)
        } catch (e) {
          if ((e as { api_error?: { err_code?: number } }).api_error?.err_code === 10037) return "gone" as const
          throw e
        }
      },
      catch: (cause) => cause
    }).pipe(Effect.orElseSucceed(() => "unknown" as const))
  })

/**
 * The longest delay the publisher gives a job of its own accord (a failed send's back-off,
 * a full per-minute window): a message the consumer delivered and that has come back
 * neither after this nor after an ack wait on top of it was forgotten by the consumer.
 */
export const LONGEST_PUBLISHER_DELAY_MS = 60_000

/**
 * Where the publisher's consumer stands: every message up to `deliveredThrough` (a stream
 * sequence) was delivered at least once; `ackWaitMs` is how long a delivery lasts without a
 * heartbeat. None when the consumer cannot be read (not created yet, NATS away).
 */
const publisherConsumer = Effect.gen(function* () {
  const nats = yield* Nats
  return yield* Effect.tryPromise(() => nats.manager.consumers.info(nats.names.publishStream, nats.names.publisherConsumer)).pipe(
    // a consumer of some subjects only says nothing about the sequences of the others
    Effect.map((info) =>
      (info.config.filter_subject ?? "") === ""
        ? Option.some({ deliveredThrough: info.delivered.stream_seq, ackWaitMs: (info.config.ack_wait ?? 30_000_000_000) / 1_000_000 })
        : Option.none()
    ),
    Effect.orElseSucceed(() => Option.none())
  )
})

/** Deletes a job's message from PUBLISH (its item was claimed again); a failure only leaves a message whose job finds the item taken. */
const deleteMessage = (sequence: number) =>
  Effect.flatMap(Nats, (nats) => Effect.tryPromise(() => nats.manager.streams.deleteMessage(nats.names.publishStream, sequence, false))).pipe(
    Effect.ignore
  )

/**
 * Claims again the items whose job left PUBLISH without settling them, or whose message the
 * publisher's consumer forgot:
 * - Gone. The stream is a work queue, so an enqueued job's message is gone only once a
 *   publisher acknowledged or terminated it, and a publisher acknowledges only after the item
 *   left `publishing` (or was not publishing). A message gone while the item is still
 *   publishing under that claim was lost (nats-server 2.9 can lose acknowledged writes on an
 *   OS crash) or settled without an outcome.
 * - Forgotten. Still in the stream, the consumer delivered past it, and longer ago than an ack
 *   wait plus the publisher's longest delay: nothing will deliver it again. A consumer whose
 *   leader changed while it delivered can lose track of such a message (nats-server before
 *   2.10.26, nats-server#6469: its next leader never redelivers it). Its message is deleted
 *   once the new claim's job is on the stream.
 * A paused channel's jobs are not counted forgotten while the pause lasts (they wait out the
 * network's Retry-After). The new claim's job makes the publisher search if an attempt is
 * open; a job that was not forgotten after all (a very slow upload) meets the attempt guards
 * (busy, or nothing to do), never a second send.
 */
export const requeueLostJobs = (options: { readonly minAgeMs?: number; readonly batch?: number; readonly forgottenAfterMs?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* DueItemsRepo
    const candidates = yield* repo.jobsOfPublishingItems({ minAgeMs: options.minAgeMs ?? 15_000, batch: options.batch ?? 200 })
    // each job to claim again, why, and the message it replaces when that one is still in the stream
    const stale: Array<{ readonly job: PublishJobRow; readonly why: string; readonly replaces: number | null }> = []
    // read once, and only when some job may have been forgotten
    let consumer: Option.Option<{ readonly deliveredThrough: number; readonly ackWaitMs: number }> | undefined
    for (const job of candidates) {
      const where = job.streamSequence === null ? "gone" : yield* stillInStream(job, job.streamSequence)
      if (where === "gone") stale.push({ job, why: "left the stream without settling its item", replaces: null })
      if (where !== "present" || job.streamSequence === null) continue
      consumer ??= yield* publisherConsumer
      if (Option.isNone(consumer)) continue
      const after = options.forgottenAfterMs ?? consumer.value.ackWaitMs + LONGEST_PUBLISHER_DELAY_MS
      // a paused channel's jobs wait out the network's Retry-After in JetStream, however long it is
      if (!job.channelPaused && job.streamSequence <= consumer.value.deliveredThrough && job.enqueuedMsAgo > after) {
        const why = `is still in the stream at ${job.streamSequence}, enqueued ${Math.round(job.enqueuedMsAgo / 1000)} s ago, delivered and never again`
        stale.push({ job, why, replaces: job.streamSequence })
      }
    }
    if (stale.length === 0) return 0
    const reclaimed = yield* sql.withTransaction(
      Effect.forEach(stale, ({ job, why, replaces }) =>
        Effect.gen(function* () {
          // the item decides: if its job settled it meanwhile, nothing is claimed again
          const claim = yield* repo.claimAgain(job)
          if (Option.isNone(claim)) return []
          const next = { itemId: job.itemId, claim: claim.value, workspaceId: job.workspaceId, channelId: job.channelId }
          yield* repo.recordJobs([next])
          yield* Effect.logWarning(`publish job ${publishMessageId(job)} ${why}; claimed again`)
          return [{ next, replaces }]
        })
      ).pipe(Effect.map((jobs) => jobs.flat()))
    )
    yield* enqueueAll(reclaimed.map((r) => r.next))
    // the forgotten messages go once their replacements are on the stream
    yield* Effect.forEach(reclaimed, (r) => (r.replaces === null ? Effect.void : deleteMessage(r.replaces)), { discard: true })
    return reclaimed.length
  })

/**
 * Makes the next occurrence of repeating posts that went live without one: linked by hand
 * (PUT /posts/{id}/release-id) rather than published by the publisher, which makes it in its
 * outcome's transaction. Idempotent: the unique repeat_of keeps it to one, whoever wins.
 */
export const createMissingRepeats = (batch = 100) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repeats = yield* RepeatsRepo
    const live = yield* repeats.liveWithoutNext(batch)
    const now = new Date(yield* Clock.currentTimeMillis)
    for (const occurrence of live) {
      yield* sql.withTransaction(repeats.createNextOccurrence(occurrence.id, nextOccurrenceAt(occurrence.publishAt, occurrence.repeatDays, now)))
    }
    return live.length
  })
