import { Context, Data, Duration, Effect, Layer, Schedule, Schema } from "effect"
import { ErrorCode, NatsError } from "nats"
import type { Principal } from "../../domain/roles.js"
import { shardOf } from "../../domain/shards.js"
import { ActorEnvelope, isRetrySafe, type ActorCommand } from "../../protocol/actors.js"
import { AppConfig } from "../platform/config.js"
import { Nats } from "../platform/nats.js"

class NoResponders extends Data.TaggedError("NoResponders") {}
class NoAnswer extends Data.TaggedError("NoAnswer") {}

const encodeEnvelope = Schema.encode(Schema.parseJson(ActorEnvelope))

/** How long a command may wait for its shard to get an owner (hand-over after a crash). */
const HANDOVER_WAIT_MS = 20_000
const REPLY_TIMEOUT_MS = 30_000
/** A retry-safe command is asked again after this long (its host may have died). */
const RETRY_SAFE_ATTEMPT_MS = 8_000

/** A command together with its result types (every ActorCommand is one); E is the cases it can fail with. */
type Command<A, I, E, EI> = ActorCommand & Schema.WithResult<A, I, E, EI, never>

export interface ActorClientShape {
  readonly send: <A, I, E, EI>(principal: Principal, command: Command<A, I, E, EI>) => Effect.Effect<A, E>
}

export class ActorClient extends Context.Tag("ActorClient")<ActorClient, ActorClientShape>() {}

/**
 * Sends a command to the actor that owns the workspace's shard. "No responders" is
 * retried (nobody received it, so a retry cannot apply it twice); a command received
 * but not answered is asked again only when repeating it is safe (isRetrySafe), else
 * it is a server error the client may retry.
 */
export const ActorClientLive = Layer.effect(
  ActorClient,
  Effect.gen(function* () {
    const nats = yield* Nats
    const config = yield* AppConfig
    const send = <A, I, E, EI>(principal: Principal, command: Command<A, I, E, EI>) =>
      Effect.gen(function* () {
        const subject = nats.names.shardCommands(shardOf(principal.workspaceId, config.shardCount))
        const payload = yield* encodeEnvelope({ principal, command }).pipe(Effect.orDie)
        const retrySafe = isRetrySafe(command)
        const request = Effect.tryPromise({
          try: () => nats.connection.request(subject, payload, { timeout: retrySafe ? RETRY_SAFE_ATTEMPT_MS : REPLY_TIMEOUT_MS }),
          catch: (e) =>
            e instanceof NatsError && e.code === ErrorCode.NoResponders
              ? new NoResponders()
              : e instanceof NatsError && e.code === ErrorCode.Timeout && retrySafe
                ? new NoAnswer()
                : e
        })
        const reply = yield* request.pipe(
          Effect.retry({
            while: (e) => e instanceof NoResponders || e instanceof NoAnswer,
            schedule: exponentialUpTo(HANDOVER_WAIT_MS)
          }),
          Effect.orDie
        )
        const exit = yield* Schema.deserializeExit(command, JSON.parse(reply.string())).pipe(Effect.orDie)
        return yield* exit
      })
    return { send }
  })
)

/** Quick first retries, then every 500 ms, for at most `totalMs`. */
const exponentialUpTo = (totalMs: number) =>
  Schedule.exponential(Duration.millis(50), 1.5).pipe(
    Schedule.union(Schedule.spaced(Duration.millis(500))),
    Schedule.upTo(Duration.millis(totalMs))
  )
