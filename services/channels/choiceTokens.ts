import { Context, Effect, Layer, Option, Schema } from "effect"
import { names } from "../../protocol/names.js"
import { AppConfig } from "../platform/config.js"
import { Redis, redisCommand, type RedisUnavailable } from "../platform/redis.js"

/** What a choice link's token stands for: the channel saved at sign-in and what it may be connected to. */
export const PendingChoice = Schema.Struct({
  workspaceId: Schema.String,
  channelId: Schema.String,
  network: Schema.String,
  choices: Schema.Array(Schema.Struct({ id: Schema.String, name: Schema.String, picture: Schema.NullOr(Schema.String) })),
  /** When the token stops working (ms since the epoch): a token given back after a failed choice keeps it. */
  expiresAt: Schema.Number
})
export type PendingChoice = typeof PendingChoice.Type

/** The person has half an hour to choose after signing in. */
export const CHOICE_TTL_SECONDS = 1800

const decode = Schema.decodeUnknownOption(Schema.parseJson(PendingChoice))

/**
 * Choice tokens in Redis, like the sign-in states (services/channels/signInStates.ts): random,
 * bound to the workspace and the channel, each used once (GETDEL). A choice that failed
 * (the network down, a page no longer managed) gives the token back until it expires.
 */
export class ChoiceTokens extends Context.Tag("channels/ChoiceTokens")<
  ChoiceTokens,
  {
    readonly put: (token: string, choice: PendingChoice) => Effect.Effect<void, RedisUnavailable>
    readonly take: (token: string) => Effect.Effect<Option.Option<PendingChoice>, RedisUnavailable>
  }
>() {
  static readonly Live = Layer.effect(
    ChoiceTokens,
    Effect.gen(function* () {
      const redis = yield* Redis
      const { namespace } = yield* AppConfig
      const key = (token: string) => names(namespace).redisKey("choose", token)
      return {
        put: (token, choice) =>
          Effect.gen(function* () {
            const seconds = Math.ceil((choice.expiresAt - Date.now()) / 1000)
            if (seconds <= 0) return
            yield* redisCommand(() => redis.set(key(token), JSON.stringify(choice), "EX", seconds))
          }),
        take: (token) =>
          redisCommand(() => redis.getdel(key(token))).pipe(
            Effect.map((text) => (text === null ? Option.none() : Option.filter(decode(text), (c) => c.expiresAt > Date.now())))
          )
      }
    })
  )
}
