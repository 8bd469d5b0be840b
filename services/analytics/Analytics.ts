import { Config, Effect, Either, Option, type Redacted, Schema } from "effect"
import {
  channelMetric,
  checkAnalyticsRange,
  CLICKS_LABEL,
  dateOf,
  effectiveDays,
  notPublishedMessage,
  postMetric,
  type StatisticsMetric
} from "../../domain/analytics.js"
import { Errors } from "../../domain/errors.js"
import type { ChannelId, PostRef } from "../../domain/ids.js"
import { names } from "../../protocol/names.js"
import { StatisticsAnswer } from "../../protocol/http/analytics.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import type { Credentials, NetworkAdapter, Statistics } from "../networks/adapter.js"
import { freshCredentials } from "../networks/credentials.js"
import { NetworkAdapters } from "../networks/NetworkAdapters.js"
import { AppConfig } from "../platform/config.js"
import { policyRequire } from "../platform/policy.js"
import { Redis } from "../platform/redis.js"
import { storageDefects } from "../platform/storageDefects.js"
import { ChannelsRepo } from "../repos/channelsRepo.js"
import { ShortLinks } from "../shortLinks/ShortLinks.js"
import { AnalyticsRepo } from "./analyticsRepo.js"
import { withSpan } from "../platform/tracing.js"

const CacheJson = Schema.parseJson(StatisticsAnswer)
const decodeCached = Schema.decodeUnknownOption(CacheJson)
const encodeCached = Schema.encodeSync(CacheJson)

const missing = (message: string): StatisticsAnswer => ({ missing: true, message })

/**
 * Statistics as every edge sees them (GET /analytics/{integration}, GET
 * /analytics/post/{postId}, later the MCP tools): the adapters' numbers, shaped by
 * domain/analytics.ts, kept in Redis for ANALYTICS_CACHE_SECONDS (default 300) per channel
 * and range or per post, so a dashboard refreshing every few seconds stays within each
 * network's rate limits. Short-link clicks are this service's own numbers: always current.
 */
export class Analytics extends Effect.Service<Analytics>()("analytics/Analytics", {
  effect: Effect.gen(function* () {
    const channels = yield* ChannelsRepo
    const repo = yield* AnalyticsRepo
    const adapters = yield* NetworkAdapters
    const redis = yield* Redis
    const links = yield* ShortLinks
    const key = names((yield* AppConfig).namespace).redisKey
    const ttlSeconds = yield* Config.integer("ANALYTICS_CACHE_SECONDS").pipe(Config.withDefault(300))

    /** The cached answer under `cacheKey`, or `compute`'s (then cached). Redis away: computed, not cached. */
    const cached = <R>(cacheKey: string, compute: Effect.Effect<StatisticsAnswer, never, R>) =>
      Effect.gen(function* () {
        const hit = yield* Effect.tryPromise(() => redis.get(cacheKey)).pipe(Effect.option, Effect.map(Option.flatMap(Option.fromNullable)))
        const answer = Option.flatMap(hit, decodeCached)
        if (Option.isSome(answer)) return answer.value
        const fresh = yield* compute
        if (ttlSeconds > 0) yield* Effect.tryPromise(() => redis.set(cacheKey, encodeCached(fresh), "EX", ttlSeconds)).pipe(Effect.ignore)
        return fresh
      })

    /** The network's answer with the channel's credentials; why not, in plain words. */
    const fromNetwork = (
      channelId: string,
      network: string,
      ask: (adapter: NetworkAdapter, credentials: Redacted.Redacted<Credentials>) => Effect.Effect<Statistics>
    ) =>
      Effect.gen(function* () {
        const adapter = adapterOf(network)
        if (adapter === undefined) return { _tag: "Missing", message: "This network shares no statistics with this service." } as const
        const credentials = yield* freshCredentials(channelId, adapter).pipe(storageDefects)
        if (Either.isLeft(credentials)) {
          return { _tag: "Missing", message: "The channel must be reconnected before its statistics can be read." } as const
        }
        return yield* ask(adapter, credentials.right)
      })
    const adapterOf = (network: string) => Option.getOrUndefined(adapters.find(network))

    /** GET /analytics/{integration}?date= (days: 7, 30 or 90; none: 30). */
    const channel = (channelId: ChannelId, days: Option.Option<number>) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const requested = yield* checkAnalyticsRange(Option.getOrUndefined(days))
        const found = yield* channels.findById({ workspaceId, id: channelId }).pipe(storageDefects)
        if (Option.isNone(found)) return yield* Effect.fail(Errors.channelNotFound())
        const ch = found.value
        const kept = effectiveDays(requested, adapterOf(ch.network)?.statistics.longestRangeDays)
        return yield* cached(
          key("analytics", "channel", ch.id, String(kept)),
          fromNetwork(ch.id, ch.network, (adapter, c) => adapter.statistics.channel(c, kept)).pipe(
            Effect.map((s): StatisticsAnswer => (s._tag === "Missing" ? missing(s.message) : s.metrics.map(channelMetric)))
          )
        )
      }).pipe(withSpan("Analytics.channel"), policyRequire("channels.read"))

    /** GET /analytics/post/{postId}: the network's numbers of the live post, plus its short links' clicks. */
    const post = (ref: PostRef) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const found = yield* repo.postFor({ workspaceId, id: ref }).pipe(storageDefects)
        if (Option.isNone(found)) return yield* Effect.fail(Errors.postNotFound())
        const p = found.value
        if (p.status !== "published" || p.releaseId === null) return missing(notPublishedMessage)
        const releaseId = p.releaseId
        const today = dateOf(new Date())
        const network = yield* cached(
          key("analytics", "post", p.postId),
          fromNetwork(p.channelId, p.network, (adapter, c) => adapter.statistics.post(c, releaseId)).pipe(
            Effect.map((s): StatisticsAnswer => (s._tag === "Missing" ? missing(s.message) : s.metrics.map((m) => postMetric(m, today))))
          )
        )
        const clicks = yield* links.clicksOf(workspaceId, [p.postId])
        if (Option.isNone(clicks)) return network
        const clickMetric: StatisticsMetric = postMetric({ label: CLICKS_LABEL, data: [{ total: clicks.value, date: today }] }, today)
        return Array.isArray(network) ? [...network, clickMetric] : [clickMetric]
      }).pipe(withSpan("Analytics.post"), policyRequire("posts.read"))

    return { channel, post }
  }),
  dependencies: [ChannelsRepo.Live, AnalyticsRepo.Live, NetworkAdapters.Default, ShortLinks.Default]
}) {}
