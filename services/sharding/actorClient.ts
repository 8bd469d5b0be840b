import { Context, Duration, Effect, Layer, Option, Schedule, Schema } from "effect"
import { headers as natsHeaders } from "nats"
import type { Principal } from "../../domain/roles.js"
import { shardOf } from "../../domain/shards.js"
import { ActorEnvelopeJson, ActorReplyJson, ActorRequestJson, INLINE_PAYLOAD_BYTES, type ActorCommand } from "../../protocol/actors.js"
import { ActorPayloads, type ActorPayloadsShape } from "./actorPayloads.js"
import { AppConfig } from "../platform/config.js"
import { Nats } from "../platform/nats.js"
import { currentTraceparent } from "../platform/tracing.js"
import { type ActorRequests, makeActorRequests, NoAnswer, NoOwner } from "./actorRequests.js"

const encodeEnvelope = Schema.encode(ActorEnvelopeJson)
const encodeRequest = Schema.encode(ActorRequestJson)
const decodeReply = Schema.decodeUnknown(ActorReplyJson)

/** How long a command may wait for its shard to get an owner (hand-over after a crash or a pause). */
const HANDOVER_WAIT_MS = 25_000
/**
 * A command not answered within this is sent again (same id: it runs once; a copy waits for
 * the first and is answered from its record). Short, because a command sent to a host whose
 * NATS node went silent is answered by nobody, and the host is back on another node within
 * seconds; a command still running is only asked again, never run twice.
 */
const ATTEMPT_MS = 3_000

/** A command together with its result types (every ActorCommand is one); E is the cases it can fail with. */
type Command<A, I, E, EI> = ActorCommand & Schema.WithResult<A, I, E, EI, never>

export interface ActorClientShape {
  readonly send: <A, I, E, EI>(principal: Principal, command: Command<A, I, E, EI>) => Effect.Effect<A, E>
}

export class ActorClient extends Context.Tag("ActorClient")<ActorClient, ActorClientShape>() {}

/**
 * Sends a command to the actor that owns the workspace's shard. The command gets an id
 * here, kept on every retry, and the actor records it with the change it makes, so sending
 * it again is always safe: "no responders" and NotOwner (nothing ran) and a missing answer
 * (it may have run: the copy is answered from the record) are all asked again until an
 * owner answers. Commands and answers over a NATS message's size travel by reference.
 */
export const ActorClientLive = Layer.scoped(
  ActorClient,
  Effect.gen(function* () {
    const nats = yield* Nats
    const config = yield* AppConfig
    return makeActorClient({
      requests: yield* makeActorRequests(nats.connection),
      payloads: yield* ActorPayloads,
      subjectOf: nats.names.shardCommands,
      shardCount: config.shardCount
    })
  })
).pipe(Layer.provide(ActorPayloads.Live))

export interface ActorClientOptions {
  readonly requests: ActorRequests
  readonly payloads: ActorPayloadsShape
  /** The subject a shard's host takes its commands on. */
  readonly subjectOf: (shard: number) => string
  readonly shardCount: number
  /** An attempt not answered within this is sent again (defaults to ATTEMPT_MS). */
  readonly attemptMs?: number
  /** How long a command waits for its shard to get an owner (defaults to HANDOVER_WAIT_MS). */
  readonly handoverWaitMs?: number
}

/** The client over any request/reply and payload store (NATS and Postgres live, memory in tests). */
export const makeActorClient = (options: ActorClientOptions): ActorClientShape => {
  const { payloads, requests, subjectOf, shardCount } = options
  const attemptMs = options.attemptMs ?? ATTEMPT_MS
  const retries = exponentialUpTo(options.handoverWaitMs ?? HANDOVER_WAIT_MS)
  // Generator functions made once, not per command: a generator function made per command
  // costs V8 a hidden class whose link back to the function keeps the command's objects
  // from the young-generation GC (docs/performance.md, "Generator functions made once").
  const messageOf = Effect.fnUntraced(function* (s: Sending) {
    s.attempt++
    const envelope = { commandId: s.commandId, attempt: s.attempt, principal: s.principal, command: s.command }
    const inline = yield* encodeRequest({ _tag: "Inline", envelope })
    if (Buffer.byteLength(inline) <= INLINE_PAYLOAD_BYTES) return inline
    s.stored ??= yield* payloads.put(yield* encodeEnvelope(envelope))
    return yield* encodeRequest({ _tag: "Stored", ref: s.stored })
  })
  const askOnce = Effect.fnUntraced(function* (s: Sending) {
    const payload = yield* messageOf(s).pipe(Effect.orDie)
    // the actor's span continues this request's trace (nothing added when tracing is off)
    const traceparent = yield* currentTraceparent
    const headers = traceparent === null ? undefined : natsHeaders()
    headers?.set("traceparent", traceparent ?? "")
    const msg = yield* requests.request(s.subject, payload, headers, attemptMs)
    const reply = yield* decodeReply(msg.string()).pipe(Effect.orDie)
    switch (reply._tag) {
      case "NotOwner":
        return yield* new NoOwner()
      case "Answer":
        return reply.exit
      case "Stored": {
        const body = yield* payloads.get(reply.ref)
        yield* payloads.remove(reply.ref)
        if (Option.isNone(body)) return yield* Effect.dieMessage("a stored answer was not found")
        return JSON.parse(body.value) as unknown
      }
    }
  })
  const send = <A, I, E, EI>(principal: Principal, command: Command<A, I, E, EI>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      const s: Sending = {
        principal,
        command,
        subject: subjectOf(shardOf(principal.workspaceId, shardCount)),
        commandId: crypto.randomUUID(),
        attempt: 0,
        stored: undefined
      }
      const ask = askOnce(s)
      // the retry schedule starts only once a first attempt found no owner or no answer:
      // its driver would cost every answered request a context copy and a few fiber refs
      return ask.pipe(
        Effect.catchIf(isRetried, () => ask.pipe(Effect.delay(FIRST_RETRY), Effect.retry({ while: isRetried, schedule: retries }))),
        Effect.orDie,
        Effect.ensuring(Effect.suspend(() => (s.stored === undefined ? Effect.void : payloads.remove(s.stored)))),
        Effect.flatMap((exit) => Effect.flatten(Schema.deserializeExit(command, exit).pipe(Effect.orDie)))
      )
    })
  return { send }
}

/** One command on its way: its id and attempts, and its stored copy when it was too large to send inline. */
interface Sending {
  readonly principal: Principal
  readonly command: ActorCommand
  readonly subject: string
  readonly commandId: string
  attempt: number
  stored: string | undefined
}

/** Nothing ran: the command may be asked again. */
const isRetried = (e: NoOwner | NoAnswer) => e instanceof NoOwner || e instanceof NoAnswer

/** The wait before the first retry, and the first step of the retries' backoff. */
const FIRST_RETRY = Duration.millis(50)

/** Quick first retries, then every 500 ms, for at most `totalMs`. */
const exponentialUpTo = (totalMs: number) =>
  Schedule.exponential(FIRST_RETRY, 1.5).pipe(Schedule.union(Schedule.spaced(Duration.millis(500))), Schedule.upTo(Duration.millis(totalMs)))
