import { Data, Duration, Effect, Either, Option, Ref } from "effect"
import { findNetwork } from "../../domain/networks/index.js"
import { PublishMessages } from "../../domain/posts/messages.js"
import { type NetworkAdapter, type Progress, PublishAnswer, type PublishRequest, SearchAnswer } from "../networks/adapter.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { JobOutcome } from "../platform/jetstreamConsumer.js"
import { pausePoint } from "../platform/testHooks.js"
import { freshCredentials, storedCredentials } from "../networks/credentials.js"
import { decodeSettings } from "../posts/rows.js"
import { AttemptsRepo, type AttemptTrace, type ItemForAttempt } from "./attemptsRepo.js"
import { NetworkCallLog, type NetworkCall } from "../networks/networkCalls.js"
import { textToSend } from "./shortenLinks.js"
import { PublishLimiter } from "./publishLimiter.js"
import { PublishBatches } from "./publishBatches.js"
import type { Conclusion } from "./recordOutcome.js"
import { withSpan } from "../platform/tracing.js"
import { itemMedia } from "../media/renditions.js"
import { RenditionsRepo } from "../media/renditionsRepo.js"

/** How the publisher runs its jobs (services/publisher/main.ts reads them from the environment). */
export interface PublishSettings {
  /** How long an attempt stays claimed by its job without a renewal (renewed at a third of it). */
  readonly leaseMs: number
  /** How long a network may take to answer a publish before it counts as no answer. */
  readonly networkTimeoutMs: number
  /** A job whose item is due within this waits for it in this process (its message kept alive); later, in JetStream. */
  readonly holdUntilDueMs: number
}

/** Sends that reached nothing (connection refused …) before the item fails with a plain error. */
export const MAX_SENDS_THAT_REACHED_NOTHING = 5

/**
 * `send`: a new attempt; `search`: an earlier attempt may have sent it, so only ask the
 * network; `search-first`: a retry of an unconfirmed item asks first and sends when the
 * network does not have it.
 */
type AttemptMode = "send" | "search" | "search-first"

type Start = Data.TaggedEnum<{
  /** The item is not (or no longer) publishing: nothing to do. */
  Nothing: {}
  /** Another job holds the item's open attempt: come back when its lease ends. */
  Busy: { readonly leaseLeftMs: number }
  /** The channel is paused by the network's 429, or its network's or channel's limits are full: come back later. */
  Wait: { readonly delayMs: number }
  /** An attempt of ours: send, or (an earlier attempt may have sent it) search; `release` gives the limiter's slot back. */
  Run: {
    readonly item: ItemForAttempt
    readonly attemptId: string
    readonly mode: AttemptMode
    readonly reachedNothing: number
    readonly release: Effect.Effect<void>
  }
}>
const Start = Data.taggedEnum<Start>()

/** What a search found: a conclusion, or (the network knows for sure) a publish in several steps to continue. */
type SearchResult = Conclusion | { readonly _tag: "Unfinished"; readonly progress: Progress }

/** Plain-language outcome of a network this server cannot publish to. */
const noAdapter = (networkName: string): Conclusion => ({ _tag: "Rejected", ...PublishMessages.noAdapter(networkName) })

const unreadableCredentials: Conclusion = { _tag: "Rejected", ...PublishMessages.unreadableCredentials }

const unreachable = (networkName: string, reason: string): Conclusion => ({ _tag: "Rejected", ...PublishMessages.unreachable(networkName, reason) })

/** How often a job whose files are still being prepared looks again. */
const PREPARATION_POLL_MS = 3_000

/** A job whose item changed between its read and its guarded write comes back after this (the next read decides). */
const CHANGED_RETRY_MS = 50

/**
 * Finds the item's open attempt or opens one, in two round trips shared with the other
 * jobs of the moment (publishBatches.ts): the item as it stands (one read, no lock), then
 * one guarded statement that opens the attempt only if the item is still publishing and
 * nobody opened one since (attemptsRepo.openAttempts), or takes over an open attempt only
 * if its lease ran out (attemptsRepo.takeOver). An open attempt whose lease another job
 * still holds is left alone (its answer may still come); one whose lease ran out belongs
 * to a job that died: we take it over and search, never send.
 */
const startAttempt = (itemId: string, owner: string, settings: PublishSettings) =>
  Effect.gen(function* () {
    const attempts = yield* AttemptsRepo
    const batches = yield* PublishBatches
    const limiter = yield* PublishLimiter
    const { leaseMs } = settings
    const loaded = yield* batches.load(itemId)
    if (Option.isNone(loaded) || loaded.value.status !== "publishing") return Start.Nothing()
    const item = loaded.value
    // when the item falls due, by this process's clock (the read said how long until then)
    const dueAt = Date.now() + item.dueInMs
    const { reachedNothing } = item
    const leaseLeftMs = item.openLeaseLeftMs ?? 0
    if (item.openAttemptId !== null && leaseLeftMs > 0 && item.openLeaseOwner !== owner) return Start.Busy({ leaseLeftMs })
    const fresh = item.openAttemptId === null
    // claimed ahead of its due time (scheduler CLAIM_LEAD_MS): due soon, the job waits here and sends
    // on the second, its item already read; due later, it waits in JetStream, not in a worker slot.
    // The attempt opens after the wait: an open attempt whose job then fails before calling the
    // network (Postgres gone at the due second) could only be searched for, never sent
    if (fresh && item.dueInMs > settings.holdUntilDueMs) return Start.Wait({ delayMs: item.dueInMs })
    if (fresh && dueAt > Date.now()) yield* Effect.sleep(Duration.millis(dueAt - Date.now()))
    // nothing new goes to a channel the network asked to wait (429 Retry-After) past the due time; a search may
    if (fresh && item.pausedMs > item.dueInMs) return Start.Wait({ delayMs: item.pausedMs - item.dueInMs })
    // files still being prepared for this network: the job waits in JetStream, the item shows held "preparation"
    if (fresh && (yield* itemMedia({ ...item, settings: decodeSettings(item.settings) }))._tag === "Waiting") {
      yield* Effect.flatMap(RenditionsRepo, (r) => r.holdItem(item.id))
      return Start.Wait({ delayMs: PREPARATION_POLL_MS })
    }
    // too many jobs of this network wait in this process already: back before anything is written
    const full = limiter.queueFull(item.network)
    if (Option.isSome(full)) return Start.Wait({ delayMs: full.value })
    // the attempt first, shared with the other jobs of the second (a statement for many), then the network's slot
    const attemptId = yield* Effect.gen(function* () {
      if (!fresh) return (yield* attempts.takeOver(item.openAttemptId, owner, leaseMs)) ? item.openAttemptId : null
      const opened = yield* batches.open({
        itemId,
        workspaceId: item.workspaceId,
        attempt: item.attempts + 1,
        searchFirst: item.searchFirst,
        owner,
        leaseMs
      })
      return Option.getOrNull(opened)
    })
    if (attemptId === null) return Start.Wait({ delayMs: CHANGED_RETRY_MS })
    // ours until the job ends (its scope), renewed with the process's other attempts, the wait for a slot included
    yield* batches.holdLease(attemptId, owner, leaseMs)
    const mode: AttemptMode = !fresh ? "search" : item.searchFirst ? "search-first" : "send"
    // a full network or channel: the job waits its turn here; a full per-minute window closes the attempt
    // unsent and sends the job back to JetStream with the window's wait
    const admission = yield* limiter.acquire(item.network, item.channelId)
    if (admission._tag === "Wait") {
      yield* attempts.closeUnsent(attemptId, "rate_limited", `the channel's calls a minute are used up for ${admission.delayMs} ms`)
      return Start.Wait({ delayMs: admission.delayMs })
    }
    return Start.Run({ item, attemptId, mode, reachedNothing, release: admission.release })
  })

const retryDelayAfter = (reachedNothing: number) => Math.min(60_000, 2000 * 2 ** reachedNothing)

const searchConclusion = (adapter: NetworkAdapter, request: PublishRequest) =>
  adapter.search(request).pipe(
    Effect.map(
      SearchAnswer.$match({
        Found: ({ releaseId, releaseUrl }): SearchResult => ({ _tag: "Published", releaseId, releaseUrl }),
        NotFound: (): SearchResult => ({ _tag: "Unconfirmed" }),
        CannotTell: (): SearchResult => ({ _tag: "Unconfirmed" }),
        Unfinished: ({ progress }): SearchResult => ({ _tag: "Unfinished", progress })
      })
    )
  )

/** How soon a publish the search found unfinished goes on (its next job continues it). */
const CONTINUE_AFTER_MS = 100

/**
 * Publishes one claimed item, never twice (docs/architecture.md, "Rules every part keeps", rule 1): an attempt row is committed
 * before the network is called; a job that finds an attempt without an outcome (a crash
 * or a redelivery) searches instead of sending again, and leaves alone an attempt whose
 * job is still running. Answers map onto the item's states: published, rejected (error),
 * no answer (search: published or unconfirmed); rate limited and nothing-sent leave the
 * item publishing and the job comes back after the wait.
 */
export const publishItem = (itemId: string, settings: PublishSettings) =>
  Effect.gen(function* () {
    const owner = crypto.randomUUID()
    const start = yield* startAttempt(itemId, owner, settings)
    if (start._tag === "Nothing") return JobOutcome.Done()
    if (start._tag === "Busy") return JobOutcome.Retry({ delayMs: start.leaseLeftMs + 250 })
    // back to JetStream with a delay: a worker slot never sleeps through another network's wait
    if (start._tag === "Wait") return JobOutcome.Retry({ delayMs: start.delayMs })
    const { attemptId, item, mode, reachedNothing, release } = start
    return yield* pausePoint("publisher.attemptRecorded").pipe(
      Effect.zipRight(runAttempt(item, attemptId, mode, reachedNothing, settings, release)),
      Effect.ensuring(release)
    )
    // the scope holds the attempt's lease (startAttempt) until the job ends
  }).pipe(Effect.scoped, withSpan("publisher.publishItem", { attributes: { itemId } }))

/** What the attempt asks of the network, for the timeline (GET /posts/{id}/attempts). */
const operationOf = (item: ItemForAttempt, mode: AttemptMode) =>
  mode === "search"
    ? "search"
    : mode === "search-first"
      ? "search-first"
      : item.networkProgress !== null
        ? "continue"
        : item.position > 0
          ? "follow-up"
          : "publish"

/** One attempt, with every network call it makes recorded for the timeline (services/networks/networkCalls.ts). */
const runAttempt = (
  item: ItemForAttempt,
  attemptId: string,
  mode: AttemptMode,
  reachedNothing: number,
  settings: PublishSettings,
  release: Effect.Effect<void>
) =>
  Effect.flatMap(Ref.make<ReadonlyArray<NetworkCall>>([]), (calls) => {
    const trace = Effect.map(Ref.get(calls), (recorded): AttemptTrace => ({ operation: operationOf(item, mode), calls: recorded }))
    // the network's slot is given back once its calls are done: recording what they said calls nothing
    const recorded = Effect.zipRight(release, trace)
    return attemptWith(item, attemptId, mode, reachedNothing, settings, recorded).pipe(Effect.locally(NetworkCallLog, Option.some(calls)))
  })

const attemptWith = (
  item: ItemForAttempt,
  attemptId: string,
  mode: AttemptMode,
  reachedNothing: number,
  settings: PublishSettings,
  /** What the attempt asked of the network, read when it is recorded (its calls are over: the slot is given back). */
  trace: Effect.Effect<AttemptTrace>
) =>
  Effect.gen(function* () {
    // an attempt that sent nothing (rate limited, nothing reached the network): closed, the item stays publishing
    const closeUnsent = (attemptId: string, outcome: "rate_limited" | "not_sent", reason: string) =>
      Effect.flatMap(trace, (t) => Effect.flatMap(AttemptsRepo, (attempts) => attempts.closeUnsent(attemptId, outcome, reason, t)))
    const adapters = yield* NetworkAdapters
    const adapter = adapters.find(item.network)
    const networkName = Option.match(findNetwork(item.network), { onNone: () => item.network, onSome: (n) => n.name })
    const conclude = (conclusion: Conclusion) =>
      Effect.flatMap(trace, (t) => Effect.flatMap(PublishBatches, (batches) => batches.record({ item, attemptId, conclusion, trace: t }))).pipe(
        Effect.as<JobOutcome>(JobOutcome.Done())
      )
    if (Option.isNone(adapter)) return yield* conclude(noAdapter(networkName))
    // tokens that never expire are used as read with the item; others are refreshed first when they
    // expire soon (under the channel's lock), and a refused refresh disconnects the channel
    const stored = yield* storedCredentials(adapter.value, item)
    const credentials = Option.isSome(stored) ? stored.value : yield* freshCredentials(item.channelId, adapter.value)
    if (Either.isLeft(credentials)) {
      const problem = credentials.left
      switch (problem._tag) {
        case "Unreadable":
          return yield* conclude(unreadableCredentials)
        case "Disconnected":
          return yield* conclude({ _tag: "Rejected", ...PublishMessages.disconnected(networkName, problem.reason) })
        case "Unavailable":
          // nothing was sent: like a send that reached nothing, the item waits and tries again
          return yield* reachedNothing + 1 >= MAX_SENDS_THAT_REACHED_NOTHING
            ? conclude(unreachable(networkName, problem.reason))
            : closeUnsent(attemptId, "not_sent", problem.reason).pipe(Effect.as(JobOutcome.Retry({ delayMs: retryDelayAfter(reachedNothing) })))
      }
    }
    // each file as its network takes it: its rendition when one was needed (services/media/renditions.ts)
    const media = yield* itemMedia({ ...item, settings: decodeSettings(item.settings) })
    if (media._tag === "Waiting") {
      return yield* closeUnsent(attemptId, "rate_limited", "files still being prepared").pipe(
        Effect.as(JobOutcome.Retry({ delayMs: PREPARATION_POLL_MS }))
      )
    }
    if (item.held === "preparation") yield* Effect.flatMap(RenditionsRepo, (r) => r.releaseItem(item.id))
    if (media._tag === "Failed") return yield* conclude({ _tag: "Rejected", message: media.message, fix: media.fix })
    const request: PublishRequest = {
      item: { id: item.id, position: item.position, content: yield* textToSend(item) },
      media: media.media,
      channel: { id: item.channelId, credentials: credentials.right, settings: decodeSettings(item.settings) },
      previousReleaseId: item.replyTo,
      rootReleaseId: item.rootReleaseId,
      progress: item.networkProgress
    }
    // the network is processing, or the account's cap is full: keep where it stands, show why, come back later
    const pending = (progress: Progress, kind: "processing" | "network-limit", waitingFor: string, retryAfterMs: number) =>
      Effect.flatMap(trace, (t) =>
        Effect.flatMap(AttemptsRepo, (attempts) => attempts.closePending({ attemptId, itemId: item.id, progress, kind, waitingFor, trace: t }))
      ).pipe(Effect.as<JobOutcome>(JobOutcome.Retry({ delayMs: Math.max(0, retryAfterMs) })))
    const concludeSearch = (result: SearchResult) =>
      Effect.gen(function* () {
        if (result._tag === "Unfinished")
          return yield* pending(result.progress, "processing", "continuing the publish on the network", CONTINUE_AFTER_MS)
        return yield* conclude(result)
      })
    // we may have sent it before: ask the network, never send again
    if (mode === "search") return yield* concludeSearch(yield* searchConclusion(adapter.value, request))
    if (mode === "search-first") {
      // a retry after "unconfirmed": the post may be live; link it instead of sending a copy
      const found = yield* searchConclusion(adapter.value, request)
      if (found._tag === "Published") return yield* conclude(found)
      if (found._tag === "Unfinished") return yield* concludeSearch(found)
    }
    const send = item.position === 0 ? adapter.value.publish : adapter.value.publishFollowUp
    const answer = yield* send(request).pipe(
      Effect.timeoutTo({
        duration: Duration.millis(settings.networkTimeoutMs),
        onSuccess: (a): PublishAnswer => a,
        onTimeout: () => PublishAnswer.NoAnswer({ reason: `no answer within ${settings.networkTimeoutMs} ms` })
      })
    )
    yield* pausePoint("publisher.answered")
    return yield* PublishAnswer.$match(answer, {
      Published: ({ releaseId, releaseUrl }) => conclude({ _tag: "Published", releaseId, releaseUrl }),
      Rejected: ({ fix, message }) => conclude({ _tag: "Rejected", message, fix }),
      // the channel waits out the network's Retry-After, in every process; other channels and networks go on
      RateLimited: ({ retryAfterMs }) =>
        closeUnsent(attemptId, "rate_limited", `rate limited for ${retryAfterMs} ms`).pipe(
          Effect.zipRight(Effect.flatMap(AttemptsRepo, (attempts) => attempts.pauseChannel(item.channelId, retryAfterMs))),
          Effect.as(JobOutcome.Retry({ delayMs: retryAfterMs }))
        ),
      FailedBeforeSending: ({ reason }) =>
        reachedNothing + 1 >= MAX_SENDS_THAT_REACHED_NOTHING
          ? conclude(unreachable(networkName, reason))
          : closeUnsent(attemptId, "not_sent", reason).pipe(Effect.as(JobOutcome.Retry({ delayMs: retryDelayAfter(reachedNothing) }))),
      NoAnswer: () => searchConclusion(adapter.value, request).pipe(Effect.flatMap(concludeSearch)),
      Pending: ({ kind, progress, retryAfterMs, waitingFor }) => pending(progress, kind, waitingFor, retryAfterMs)
    })
  })
