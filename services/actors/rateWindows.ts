import { createHash } from "node:crypto"
import { Context, Effect, Layer, Schema } from "effect"
import { decideWindow, type RateDecision, type RateLimit } from "../../domain/rateWindow.js"
import { names } from "../../protocol/names.js"
import { AppConfig } from "../platform/config.js"
import { Redis, RedisLive } from "../platform/redis.js"
import { makeLocalWindows } from "./localWindows.js"

/**
 * One window per workspace and limit, in Redis: counted atomically by every actor host,
 * so a workspace that moves to another host (a hand-over, a crash) keeps its window.
 * The key expires when the window ends; the first request of the next one starts it.
 *
 * Redis away: the request is neither refused nor let through uncounted; it is counted in
 * this process's own window (localWindows.ts), so a limit still holds during an outage
 * (a rate limit is no reason to refuse work, and no outage a reason to drop the limit).
 */
const takeScript = `
local count = redis.call('INCRBY', KEYS[1], ARGV[2])
if count == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); left = tonumber(ARGV[1]) end
return {count, left}`

/** Redis keeps scripts by their SHA-1: EVALSHA sends 40 characters, not the script, and Redis hashes nothing. */
const takeSha = createHash("sha1").update(takeScript).digest("hex")

const Counted = Schema.Tuple(Schema.Number, Schema.Number)
const decodeCounted = Schema.decodeUnknown(Counted)

export class RateWindows extends Context.Tag("actors/RateWindows")<
  RateWindows,
  {
    /** Counts `requests` (default 1: an MCP batch counts each of its messages) and decides. */
    readonly take: (workspaceId: string, name: string, rate: RateLimit, requests?: number) => Effect.Effect<RateDecision>
  }
>() {
  static readonly Live = Layer.effect(
    RateWindows,
    Effect.gen(function* () {
      const redis = yield* Redis
      const { namespace } = yield* AppConfig
      const key = names(namespace).redisKey
      const local = makeLocalWindows()
      const takeLocal = (windowKey: string, rate: RateLimit, counted: number) => Effect.sync(() => local.take(windowKey, rate, counted))
      return {
        take: (workspaceId, name, rate, requests = 1) => {
          const windowKey = key("rate", name, workspaceId)
          const counted = Math.max(1, Math.floor(requests))
          // not connected (or reconnecting): straight to the local window, no command sent to fail
          if (redis.status !== "ready") return takeLocal(windowKey, rate, counted)
          return Effect.tryPromise(() => {
            const args = [windowKey, String(rate.periodMs), String(counted)] as const
            // a Redis that does not hold the script yet (restarted, flushed) is sent it once
            return redis
              .evalsha(takeSha, 1, ...args)
              .catch((e: unknown) => (String(e).includes("NOSCRIPT") ? redis.eval(takeScript, 1, ...args) : Promise.reject(e)))
          }).pipe(
            Effect.flatMap(decodeCounted),
            Effect.map(([count, msLeft]) => decideWindow(count, msLeft, rate)),
            Effect.catchAll((e) =>
              Effect.logWarning("rate window in Redis unavailable; counted in this process", e).pipe(
                Effect.zipRight(takeLocal(windowKey, rate, counted))
              )
            )
          )
        }
      }
    })
  ).pipe(Layer.provide(RedisLive))
}
