import { randomBytes, timingSafeEqual } from "node:crypto"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { names } from "../../protocol/names.js"
import { AppConfig } from "../platform/config.js"
import { Redis, redisCommand } from "../platform/redis.js"
import { tokenHash } from "../platform/secrets.js"

/**
 * Sessions of the app pages, in Redis (docs/architecture.md, "Redis": sessions of the app pages), found by the SHA-256 of
 * the cookie's value. Every visitor of a form gets one, signed in or not, so every form
 * carries the session's CSRF token (synchronizer token) and sign-in itself is protected.
 * Signing in starts a new session (a fixed session id from before is worth nothing).
 */
export const Session = Schema.Struct({ userId: Schema.NullOr(Schema.String), csrf: Schema.String })
export type Session = typeof Session.Type
const decode = Schema.decodeUnknownOption(Schema.parseJson(Session))

export const SESSION_COOKIE = "svc_session"
/** A signed-in session lasts 12 hours; a visitor's (only the CSRF token of the sign-in form) 1 hour. */
export const SIGNED_IN_SECONDS = 12 * 3600
export const VISITOR_SECONDS = 3600

/** A session id is 32 random bytes, base64url: anything else in the cookie is not looked up. */
const isSessionId = (s: string) => /^[A-Za-z0-9_-]{43}$/.test(s)

export const csrfMatches = (session: Session, given: string): boolean => {
  const a = Buffer.from(session.csrf)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

export class Sessions extends Context.Tag("people/Sessions")<
  Sessions,
  {
    readonly find: (id: string | undefined) => Effect.Effect<Option.Option<Session>>
    /** A new session (and its id, the cookie's value). */
    readonly start: (userId: string | null) => Effect.Effect<{ readonly id: string; readonly session: Session; readonly maxAgeSeconds: number }>
    readonly end: (id: string) => Effect.Effect<void>
  }
>() {
  static readonly Live = Layer.effect(
    Sessions,
    Effect.gen(function* () {
      const redis = yield* Redis
      const { namespace } = yield* AppConfig
      const key = (id: string) => names(namespace).redisKey("session", tokenHash(id).toString("hex"))
      // Redis away: a RedisUnavailable defect, which every edge answers 503 with Retry-After (docs/operations.md, "When Redis is lost")
      const redisCall = <A>(f: () => Promise<A>) => redisCommand(f).pipe(Effect.orDie)
      return {
        find: (id) =>
          id === undefined || !isSessionId(id)
            ? Effect.succeed(Option.none())
            : redisCall(() => redis.get(key(id))).pipe(Effect.map((text) => (text === null ? Option.none() : decode(text)))),
        start: (userId) =>
          Effect.gen(function* () {
            const id = randomBytes(32).toString("base64url")
            const session: Session = { userId, csrf: randomBytes(32).toString("base64url") }
            const maxAgeSeconds = userId === null ? VISITOR_SECONDS : SIGNED_IN_SECONDS
            yield* redisCall(() => redis.set(key(id), JSON.stringify(session), "EX", maxAgeSeconds))
            return { id, session, maxAgeSeconds }
          }),
        end: (id) => (isSessionId(id) ? redisCall(() => redis.del(key(id))).pipe(Effect.asVoid) : Effect.void)
      }
    })
  )
}
