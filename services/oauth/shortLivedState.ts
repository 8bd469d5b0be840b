import { randomBytes } from "node:crypto"
import { Context, Effect, Layer, Option, Schema } from "effect"
import type { DevicePoll } from "../../domain/oauth/deviceFlow.js"
import { userCodeFrom } from "../../domain/oauth/deviceFlow.js"
import { OAuthRules } from "../../domain/oauth/rules.js"
import { names } from "../../protocol/names.js"
import { AppConfig } from "../platform/config.js"
import { Redis, redisCommand } from "../platform/redis.js"
import { tokenHash } from "../platform/secrets.js"

/**
 * The OAuth state that lives minutes, in Redis (docs/architecture.md, "Redis"), shared by every gateway
 * replica: authorization codes (5 minutes) and device codes (10 minutes), each a key with
 * its expiry as TTL, found by the SHA-256 of the code (the code itself is never stored),
 * taken once atomically: GETDEL for a code, a Lua script for each change of a device
 * code's state.
 */

/** What an authorization code stands for until the app exchanges it. */
export const CodeGrant = Schema.Struct({
  clientId: Schema.String,
  redirectUri: Schema.String,
  codeChallenge: Schema.String,
  workspaceId: Schema.String,
  userId: Schema.String
})
export type CodeGrant = typeof CodeGrant.Type
const decodeGrant = Schema.decodeUnknownOption(Schema.parseJson(CodeGrant))

/** After its expiry a device code is remembered this long, so a late poll hears expired_token rather than invalid_grant. */
const EXPIRED_DEVICE_MEMORY_SECONDS = 3600

const hashHex = (code: string) => tokenHash(code).toString("hex")

/**
 * A poll: unknown / expired / approved (taken: the state is deleted, so the token is
 * issued once) / denied / pending, and too fast when the previous poll of a pending code
 * was less than the interval ago (clock: Redis's TIME, the same for every replica).
 */
const pollScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then return {'expired'} end
  return {'unknown'}
end
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'approved' then
  local found = redis.call('HMGET', KEYS[1], 'workspaceId', 'userId')
  redis.call('DEL', KEYS[1], KEYS[2])
  return {'approved', found[1], found[2]}
end
if status == 'denied' then return {'denied'} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local last = tonumber(redis.call('HGET', KEYS[1], 'lastPollMs') or '0')
redis.call('HSET', KEYS[1], 'lastPollMs', now)
if last > 0 and now - last < tonumber(ARGV[1]) then return {'slow_down'} end
return {'pending'}`

/** The person's decision on the verification page; only a pending code can be decided. */
const decideScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'gone' end
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 'decided' end
if ARGV[1] == 'approved' then
  redis.call('HSET', KEYS[1], 'status', 'approved', 'workspaceId', ARGV[2], 'userId', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'status', 'denied')
end
return 'ok'`

const PollReply = Schema.Union(
  Schema.Tuple(Schema.Literal("unknown", "expired", "denied", "slow_down", "pending")),
  Schema.Tuple(Schema.Literal("approved"), Schema.String, Schema.String)
)
const decodePoll = Schema.decodeUnknown(PollReply)
const DecideReply = Schema.Literal("gone", "decided", "ok")
const decodeDecide = Schema.decodeUnknown(DecideReply)

export type DeviceDecision = "approved" | "denied"
export type DecideOutcome = "ok" | "gone" | "decided"

export class ShortLivedState extends Context.Tag("oauth/ShortLivedState")<
  ShortLivedState,
  {
    /** Stores a code's grant for 5 minutes. */
    readonly putCode: (code: string, grant: CodeGrant) => Effect.Effect<void>
    /** Takes a code (GETDEL): whatever happens next, it cannot be used again. */
    readonly takeCode: (code: string) => Effect.Effect<Option.Option<CodeGrant>>
    /** A new device code and its user code, pending for 10 minutes. */
    readonly startDevice: () => Effect.Effect<{ readonly deviceCode: string; readonly userCode: string }>
    readonly pollDevice: (deviceCode: string) => Effect.Effect<DevicePoll>
    /** Whether a user code (XXXX-XXXX) waits for a decision. */
    readonly isPending: (userCode: string) => Effect.Effect<boolean>
    readonly decideDevice: (
      userCode: string,
      decision: DeviceDecision,
      grant: { readonly workspaceId: string; readonly userId: string }
    ) => Effect.Effect<DecideOutcome>
  }
>() {
  static readonly Live = Layer.effect(
    ShortLivedState,
    Effect.gen(function* () {
      const redis = yield* Redis
      const { namespace } = yield* AppConfig
      const key = names(namespace).redisKey
      const codeKey = (code: string) => key("oauth", "code", hashHex(code))
      const deviceKey = (hash: string) => key("oauth", "device", hash)
      const knownKey = (hash: string) => key("oauth", "device-known", hash)
      const userCodeKey = (userCode: string) => key("oauth", "user-code", userCode)
      // Redis away: a RedisUnavailable defect, which every edge answers 503 with Retry-After (docs/operations.md, "When Redis is lost")
      const redisCall = <A>(f: () => Promise<A>) => redisCommand(f).pipe(Effect.orDie)

      const deviceOf = (userCode: string) => redisCall(() => redis.get(userCodeKey(userCode))).pipe(Effect.map(Option.fromNullable))

      return {
        putCode: (code, grant) =>
          redisCall(() => redis.set(codeKey(code), JSON.stringify(grant), "EX", OAuthRules.codeTtlSeconds)).pipe(Effect.asVoid),
        takeCode: (code) =>
          redisCall(() => redis.getdel(codeKey(code))).pipe(Effect.map((text) => (text === null ? Option.none() : decodeGrant(text)))),
        startDevice: () =>
          Effect.gen(function* () {
            const deviceCode = randomBytes(32).toString("base64url")
            const hash = hashHex(deviceCode)
            // a user code names one pending device code: draw again on the rare collision
            let userCode = userCodeFrom(randomBytes(8))
            while ((yield* redisCall(() => redis.set(userCodeKey(userCode), hash, "EX", OAuthRules.deviceCodeTtlSeconds, "NX"))) === null) {
              userCode = userCodeFrom(randomBytes(8))
            }
            yield* redisCall(() =>
              redis
                .multi()
                .hset(deviceKey(hash), "status", "pending", "userCode", userCode)
                .expire(deviceKey(hash), OAuthRules.deviceCodeTtlSeconds)
                .set(knownKey(hash), "1", "EX", OAuthRules.deviceCodeTtlSeconds + EXPIRED_DEVICE_MEMORY_SECONDS)
                .exec()
            )
            return { deviceCode, userCode }
          }),
        pollDevice: (deviceCode) =>
          Effect.gen(function* () {
            const hash = hashHex(deviceCode)
            const reply = yield* redisCall(() =>
              redis.eval(pollScript, 2, deviceKey(hash), knownKey(hash), String(OAuthRules.pollIntervalSeconds * 1000))
            ).pipe(Effect.flatMap(decodePoll), Effect.orDie)
            switch (reply[0]) {
              case "approved":
                return { _tag: "Approved", workspaceId: reply[1], userId: reply[2] } satisfies DevicePoll
              case "unknown":
                return { _tag: "Unknown" } satisfies DevicePoll
              case "expired":
                return { _tag: "Expired" } satisfies DevicePoll
              case "denied":
                return { _tag: "Denied" } satisfies DevicePoll
              case "slow_down":
                return { _tag: "TooFast" } satisfies DevicePoll
              case "pending":
                return { _tag: "Pending" } satisfies DevicePoll
            }
          }),
        isPending: (userCode) =>
          Effect.gen(function* () {
            const hash = yield* deviceOf(userCode)
            if (Option.isNone(hash)) return false
            const status = yield* redisCall(() => redis.hget(deviceKey(hash.value), "status"))
            return status === "pending"
          }),
        decideDevice: (userCode, decision, grant) =>
          Effect.gen(function* () {
            const hash = yield* deviceOf(userCode)
            if (Option.isNone(hash)) return "gone" as const
            return yield* redisCall(() => redis.eval(decideScript, 1, deviceKey(hash.value), decision, grant.workspaceId, grant.userId)).pipe(
              Effect.flatMap(decodeDecide),
              Effect.orDie
            )
          })
      }
    })
  )
}
