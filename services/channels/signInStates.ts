import { Context, Effect, Layer, Option, Schema } from "effect"
import { names } from "../../protocol/names.js"
import { AppConfig } from "../platform/config.js"
import { Redis, redisCommand, type RedisUnavailable } from "../platform/redis.js"

/** What a sign-in link's `state` stands for until the network sends the person back. */
export const SignIn = Schema.Struct({
  workspaceId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  refreshChannelId: Schema.NullOr(Schema.String),
  network: Schema.String,
  codeVerifier: Schema.String,
  instance: Schema.NullOr(Schema.String),
  redirectUri: Schema.String
})
export type SignIn = typeof SignIn.Type

/** A sign-in link lasts 10 minutes (docs/architecture.md, "Redis": sign-in links of networks). */
export const SIGN_IN_TTL_SECONDS = 600

const decode = Schema.decodeUnknownOption(Schema.parseJson(SignIn))

/** Sign-in states in Redis, each used once (GETDEL): a callback replayed finds nothing. */
export class SignInStates extends Context.Tag("channels/SignInStates")<
  SignInStates,
  {
    readonly put: (state: string, signIn: SignIn) => Effect.Effect<void, RedisUnavailable>
    /** Redis away: RedisUnavailable, and the state is still there for the same callback once it is back. */
    readonly take: (state: string) => Effect.Effect<Option.Option<SignIn>, RedisUnavailable>
  }
>() {
  static readonly Live = Layer.effect(
    SignInStates,
    Effect.gen(function* () {
      const redis = yield* Redis
      const { namespace } = yield* AppConfig
      const key = (state: string) => names(namespace).redisKey("signin", state)
      return {
        put: (state, signIn) => redisCommand(() => redis.set(key(state), JSON.stringify(signIn), "EX", SIGN_IN_TTL_SECONDS)).pipe(Effect.asVoid),
        take: (state) => redisCommand(() => redis.getdel(key(state))).pipe(Effect.map((text) => (text === null ? Option.none() : decode(text))))
      }
    })
  )
}
