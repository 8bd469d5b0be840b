import { Context, Effect, Layer, Schema } from "effect"
import { names } from "../../protocol/names.js"
import { AppConfig } from "../platform/config.js"
import { Redis } from "../platform/redis.js"
import { ShortLinksRepo } from "./shortLinksRepo.js"
import { withSpan } from "../platform/tracing.js"

/**
 * Click counts (docs/architecture.md, "Redis"): every gateway replica counts a click in Redis at once;
 * counts are flushed to Postgres in batches. A flush first moves the counters into a
 * named batch atomically (one script: GETDEL of each counter into the batch hash), then
 * adds the batch in Postgres (once, by its id) and only then drops it from Redis, so a
 * gateway that stops or dies at any point leaves either the counters or a batch that the
 * next flush of any replica finishes: nothing is lost and nothing is counted twice.
 *
 * Redis away (docs/operations.md, "When Redis is lost"): a click is counted in this
 * process's memory instead, and each flush adds those counts to Postgres as a batch of
 * their own (the same once-by-id rule: a batch whose answer was lost is sent again with its
 * id), whether Redis is back or not. Lost with a Redis restart: the clicks counted in Redis
 * since the last flush (SHORT_LINK_FLUSH_MS, 5 s by default) and not yet moved to Postgres.
 */

/** Distinct codes held in memory while Redis is away; a click of one more code is dropped (and logged at the next flush). */
export const MAX_BUFFERED_CODES = 100_000

// KEYS: dirty set, batches set, batch hash; ARGV: counter prefix, batch id
const moveToBatch = `
local codes = redis.call('SMEMBERS', KEYS[1])
redis.call('DEL', KEYS[1])
local moved = 0
for _, code in ipairs(codes) do
  local n = redis.call('GETDEL', ARGV[1] .. code)
  if n then
    redis.call('HINCRBY', KEYS[3], code, n)
    moved = moved + 1
  end
end
if moved > 0 then redis.call('SADD', KEYS[2], ARGV[2]) end
return moved`

const Counts = Schema.Array(Schema.NullOr(Schema.NumberFromString))
const decodeCounts = Schema.decodeUnknown(Counts)
const decodeBatch = Schema.decodeUnknown(Schema.Record({ key: Schema.String, value: Schema.NumberFromString }))
const decodeIds = Schema.decodeUnknown(Schema.Array(Schema.String))

export class ClickCounter extends Context.Tag("shortLinks/ClickCounter")<
  ClickCounter,
  {
    /** Counts one click of a code: in Redis, else in this process's memory (never fails). */
    readonly count: (code: string) => Effect.Effect<void>
    /** Moves the counted clicks to Postgres (and finishes batches left by a stopped replica). */
    readonly flush: Effect.Effect<number, unknown>
    /** Clicks counted in Redis and not in Postgres yet, per code. */
    readonly pending: (codes: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, number>, unknown>
  }
>() {
  static readonly Live = Layer.effect(
    ClickCounter,
    Effect.gen(function* () {
      const redis = yield* Redis
      const repo = yield* ShortLinksRepo
      const key = names((yield* AppConfig).namespace).redisKey
      const counter = key("clicks", "count", "")
      const dirty = key("clicks", "dirty")
      const batches = key("clicks", "batches")
      const batchKey = (id: string) => key("clicks", "batch", id)

      /** Clicks counted while Redis was away, not yet in a batch; the batch being added to Postgres (kept until it is). */
      const buffered = new Map<string, number>()
      let sending: { readonly id: string; readonly clicks: ReadonlyArray<readonly [string, number]> } | null = null
      let dropped = 0
      const buffer = (code: string) =>
        Effect.sync(() => {
          const n = buffered.get(code)
          if (n !== undefined) buffered.set(code, n + 1)
          else if (buffered.size < MAX_BUFFERED_CODES) buffered.set(code, 1)
          else dropped += 1
        })

      const count = (code: string) =>
        redis.status !== "ready"
          ? buffer(code)
          : Effect.tryPromise(() => redis.multi().incr(`${counter}${code}`).sadd(dirty, code).exec()).pipe(
              Effect.asVoid,
              Effect.catchAll(() => buffer(code))
            )

      /** The memory's clicks to Postgres, as one batch with its own id (sent again with the same id until Postgres has it). */
      const flushBuffered = Effect.gen(function* () {
        if (dropped > 0) {
          yield* Effect.logWarning(`${dropped} short-link clicks not counted: more than ${MAX_BUFFERED_CODES} codes clicked while Redis was away`)
          dropped = 0
        }
        if (sending === null && buffered.size > 0) {
          sending = { id: crypto.randomUUID(), clicks: [...buffered] }
          buffered.clear()
        }
        const batch = sending
        if (batch === null) return 0
        yield* repo.addBatch(batch.id, batch.clicks)
        sending = null
        return batch.clicks.reduce((a, [, n]) => a + n, 0)
      })

      const finishBatch = (id: string) =>
        Effect.gen(function* () {
          const clicks = yield* Effect.tryPromise(() => redis.hgetall(batchKey(id))).pipe(Effect.flatMap(decodeBatch))
          yield* repo.addBatch(id, Object.entries(clicks))
          yield* Effect.tryPromise(() => redis.multi().del(batchKey(id)).srem(batches, id).exec())
          return Object.values(clicks).reduce((a, b) => a + b, 0)
        })

      const flush = Effect.gen(function* () {
        const fromMemory = yield* flushBuffered
        // Redis away: nothing of it to move now; its counters and batches wait for it (or were lost with it)
        if (redis.status !== "ready") return fromMemory
        const id = crypto.randomUUID()
        yield* Effect.tryPromise(() => redis.eval(moveToBatch, 3, dirty, batches, batchKey(id), counter, id))
        const open = yield* Effect.tryPromise(() => redis.smembers(batches)).pipe(Effect.flatMap(decodeIds))
        const flushed = yield* Effect.forEach(open, finishBatch)
        return flushed.reduce((a, b) => a + b, fromMemory)
      }).pipe(withSpan("ClickCounter.flush"))

      const pending = (codes: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const out = new Map<string, number>()
          if (codes.length === 0) return out
          const add = (code: string, n: number | null) => out.set(code, (out.get(code) ?? 0) + (n ?? 0))
          // this process's clicks counted while Redis was away (other replicas' show once flushed)
          const inMemory = new Map(sending?.clicks)
          codes.forEach((c) => add(c, (buffered.get(c) ?? 0) + (inMemory.get(c) ?? 0)))
          const counted = yield* Effect.tryPromise(() => redis.mget(codes.map((c) => `${counter}${c}`))).pipe(Effect.flatMap(decodeCounts))
          codes.forEach((c, i) => add(c, counted[i] ?? null))
          const open = yield* Effect.tryPromise(() => redis.smembers(batches)).pipe(Effect.flatMap(decodeIds))
          // a batch Postgres already added is counted there, not again here
          const recorded = yield* repo.recordedBatches(open)
          for (const id of open.filter((b) => !recorded.has(b))) {
            const inBatch = yield* Effect.tryPromise(() => redis.hmget(batchKey(id), ...codes)).pipe(Effect.flatMap(decodeCounts))
            codes.forEach((c, i) => add(c, inBatch[i] ?? null))
          }
          return out
        })

      return { count, flush, pending }
    })
  )
}
