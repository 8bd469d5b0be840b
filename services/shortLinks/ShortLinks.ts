import { Config, Effect, Layer, Option, Schedule } from "effect"
import { shortCodePattern } from "../../domain/shortLinks.js"
import { storageDefects } from "../platform/storageDefects.js"
import { ClickCounter } from "./clickCounter.js"
import { ShortLinksRepo } from "./shortLinksRepo.js"
import { withSpan } from "../platform/tracing.js"

/** Codes resolved lately, per process: a code's address never changes, so a hit needs no database. */
const CACHE_SIZE = 10_000

/**
 * Short links as the edges see them: the redirect (`follow`, any gateway replica) and the
 * clicks a post's statistics show (`clicksOf`: flushed counts plus those still in Redis).
 */
export class ShortLinks extends Effect.Service<ShortLinks>()("shortLinks/ShortLinks", {
  effect: Effect.gen(function* () {
    const repo = yield* ShortLinksRepo
    const counter = yield* ClickCounter
    const cache = new Map<string, string>()

    const remember = (code: string, url: string) => {
      if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value ?? "")
      cache.set(code, url)
    }

    /** The address of a code, its click counted; none for a code that does not exist. */
    const follow = (code: string) =>
      Effect.gen(function* () {
        if (!shortCodePattern.test(code)) return Option.none<string>()
        const known = cache.get(code)
        const url = known !== undefined ? Option.some(known) : yield* repo.resolve(code).pipe(storageDefects)
        if (Option.isNone(url)) return url
        if (known === undefined) remember(code, url.value)
        // Redis away: the click is counted in memory and flushed from there (clickCounter.ts); the redirect never waits on it
        yield* counter.count(code)
        return url
      }).pipe(withSpan("ShortLinks.follow"))

    /** Clicks per channel post (flushed plus pending), for the post's statistics. */
    const clicksOf = (workspaceId: string, postIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const links = yield* repo.clicksOf(workspaceId, postIds).pipe(storageDefects)
        if (links.length === 0) return Option.none<number>()
        const pending = yield* counter
          .pending(links.map((l) => l.code))
          .pipe(Effect.catchAll((e) => Effect.logWarning("pending clicks unavailable", e).pipe(Effect.as(new Map<string, number>()))))
        return Option.some(links.reduce((sum, l) => sum + l.clicks + (pending.get(l.code) ?? 0), 0))
      }).pipe(withSpan("ShortLinks.clicksOf"))

    return { follow, clicksOf }
  }),
  dependencies: [ShortLinksRepo.Live, ClickCounter.Live.pipe(Layer.provide(ShortLinksRepo.Live))]
}) {}

/**
 * Flushes counted clicks to Postgres every SHORT_LINK_FLUSH_MS (default 5 s) and once more
 * when the gateway stops; runs on every gateway replica (flushes are safe to run at once).
 */
export const ClickFlusherLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const counter = yield* ClickCounter
    const everyMs = yield* Config.integer("SHORT_LINK_FLUSH_MS").pipe(Config.withDefault(5000))
    const flush = counter.flush.pipe(Effect.catchAllCause((cause) => Effect.logWarning("click flush failed; the next one retries", cause)))
    yield* Effect.addFinalizer(() => flush)
    yield* flush.pipe(Effect.repeat(Schedule.spaced(`${everyMs} millis`)), Effect.delay(`${everyMs} millis`), Effect.forkScoped)
  })
).pipe(Layer.provide(ClickCounter.Live), Layer.provide(ShortLinksRepo.Live))
