import { Cause, Effect, Option, type ParseResult, Runtime, Schedule, Schema, type Scope } from "effect"
import { type ActorEnvelope, ActorEnvelopeJson, ActorReplyJson, ActorRequestJson, INLINE_PAYLOAD_BYTES } from "../../protocol/actors.js"
import { observeMailboxDepth, observeShardsOwned } from "../platform/metrics.js"
import { withRemoteParent } from "../platform/tracing.js"
import { causeIsDatabaseOutage, encodedDatabaseOutage } from "../platform/databaseOutage.js"
import { ActorPayloads } from "./actorPayloads.js"
import { observeCommand } from "./commandMetrics.js"
import { FenceStore, LeaseLost } from "./fencing.js"
import type { LeaseStore } from "./leaseStore.js"
import { makeMailboxes, type Mailboxes } from "./mailboxes.js"
import type { ShardBus, ShardMessage, ShardSubscription } from "./shardBus.js"
import { LEASE_ROUND_MS, makeLeaseManager, tickSafely } from "./shardLeases.js"

const decodeRequest = Schema.decodeUnknown(ActorRequestJson)
const decodeEnvelope = Schema.decodeUnknown(ActorEnvelopeJson)
const encodeReply = Schema.encodeSync(ActorReplyJson)
const notOwner = encodeReply({ _tag: "NotOwner" })
const outageReply = encodeReply({
  _tag: "Answer",
  exit: { _tag: "Failure", cause: { _tag: "Die", defect: encodedDatabaseOutage("Postgres could not be reached while the command ran") } }
})

export interface ShardHostOptions<R> {
  readonly shardCount: number
  /** The subject a shard's commands are sent to. */
  readonly subjectOf: (shard: number) => string
  readonly leases: LeaseStore
  readonly bus: ShardBus
  /** The lease store's TTL and how often leases are renewed (defaults: LEASE_TTL_MS, LEASE_ROUND_MS). */
  readonly leaseTtlMs?: number
  readonly roundMs?: number
  /**
   * The entity: runs one command under its shard's lease, in its mailbox where it must,
   * and gives its serialized Exit. LeaseLost: the lease went while it ran (nothing committed).
   */
  readonly handle: (
    envelope: ActorEnvelope,
    mailboxes: Mailboxes,
    lease: { readonly shard: number; readonly epoch: number }
  ) => Effect.Effect<unknown, ParseResult.ParseError | LeaseLost, R>
  /** The shard is no longer served here: what the entity kept of its workspaces goes stale. */
  readonly shardGone: (shard: number) => void
}

/**
 * A host of workspace actors: owns some shards through leases, raises each shard's
 * epoch (shard_fences) before taking its commands, subscribes to their subjects and runs
 * each command through the entity's `handle`. A host whose lease is not surely valid
 * (a pause, a partition) runs nothing and answers NotOwner, so the client asks the owner.
 * On close it hands every shard over.
 */
export const runShardHost = <R>(options: ShardHostOptions<R>) =>
  Effect.gen(function* () {
    const { bus, handle, leases, shardCount, subjectOf } = options
    const roundMs = options.roundMs ?? LEASE_ROUND_MS
    const runtime = yield* Effect.runtime<R | FenceStore | ActorPayloads>()
    const runFork = Runtime.runFork(runtime)
    const runPromise = Runtime.runPromise(runtime)
    const fences = yield* FenceStore
    const payloads = yield* ActorPayloads
    const hostId = crypto.randomUUID()
    const mailboxes = makeMailboxes()
    const subscriptions = new Map<number, ShardSubscription>()
    const inFlight = new Map<number, number>()
    /** The epoch this host raised each of its shards to (shard_fences): every write of the shard checks it. */
    const epochs = new Map<number, number>()

    /** The envelope, read from the message or, for a large command, from where the client stored it. */
    const envelopeOf = (msg: ShardMessage) =>
      decodeRequest(msg.string()).pipe(
        Effect.flatMap((request) =>
          request._tag === "Inline"
            ? Effect.succeed(request.envelope)
            : payloads
                .get(request.ref)
                .pipe(Effect.flatMap(Option.match({ onNone: () => Effect.dieMessage("a stored command was not found"), onSome: decodeEnvelope })))
        )
      )

    /** The reply message; an answer too large for NATS is stored and passed by id. */
    const replyOf = (exit: unknown) => {
      const inline = encodeReply({ _tag: "Answer", exit })
      return Buffer.byteLength(inline) <= INLINE_PAYLOAD_BYTES
        ? Effect.succeed(inline)
        : Effect.map(payloads.put(JSON.stringify(exit)), (ref) => encodeReply({ _tag: "Stored", ref }))
    }

    // /metrics: commands taken and not answered yet, shards held (services/platform/metrics.ts)
    observeMailboxDepth(() => [...inFlight.values()].reduce((a, b) => a + b, 0))
    observeShardsOwned(() => epochs.size)

    // made once (a generator function made per message would cost V8 a hidden class per
    // message, whose link back to the function keeps the message's objects from the
    // young-generation GC: docs/performance.md, "Generator functions made once")
    const runCommand = Effect.fnUntraced(function* (shard: number, msg: ShardMessage, started: number) {
      const epoch = epochs.get(shard)
      // a host that lost its lease (a pause, a partition) runs nothing of the shard: it says so
      if (epoch === undefined || !manager.holds(shard)) return notOwner
      const envelope = yield* envelopeOf(msg)
      const exit = yield* handle(envelope, mailboxes, { shard, epoch })
      observeCommand(envelope.command._tag, exit, started)
      return yield* replyOf(exit)
    })

    const onMessage = (shard: number, msg: ShardMessage) => {
      const started = performance.now()
      inFlight.set(shard, (inFlight.get(shard) ?? 0) + 1)
      const program = runCommand(shard, msg, started).pipe(
        Effect.catchAllCause((cause) =>
          Option.exists(Cause.failureOption(cause), (e) => e instanceof LeaseLost)
            ? Effect.succeed(notOwner)
            : causeIsDatabaseOutage(cause)
              ? // a stored command or answer that could not be read or written: the gateway answers 503
                Effect.logWarning("actor command met Postgres out of reach").pipe(Effect.as(outageReply))
              : Effect.logError("actor command failed", cause).pipe(
                  Effect.as(encodeReply({ _tag: "Answer", exit: { _tag: "Failure", cause: { _tag: "Die", defect: "actor command failed" } } }))
                )
        ),
        Effect.flatMap((reply) => Effect.sync(() => msg.respond(reply))),
        withRemoteParent(msg.headers?.get("traceparent"), "actor.command", { shard }),
        Effect.ensuring(Effect.sync(() => inFlight.set(shard, (inFlight.get(shard) ?? 1) - 1)))
      )
      runFork(program)
    }

    const unsubscribe = (shard: number) => {
      subscriptions.get(shard)?.unsubscribe()
      subscriptions.delete(shard)
      epochs.delete(shard)
      options.shardGone(shard)
    }

    const manager = makeLeaseManager({
      hostId,
      shardCount,
      store: leases,
      ...(options.leaseTtlMs === undefined ? {} : { leaseTtlMs: options.leaseTtlMs }),
      roundMs,
      callbacks: {
        acquired: async (shard) => {
          // raise the shard's epoch first: from now on the previous owner can commit nothing
          epochs.set(shard, await runPromise(fences.claim(shard, hostId)))
          subscriptions.set(
            shard,
            bus.subscribe(subjectOf(shard), (msg) => onMessage(shard, msg))
          )
          await bus.flush()
        },
        releasing: async (shard) => {
          // drain, not unsubscribe: commands the server sent before it saw the
          // unsubscribe are still taken (and answered) instead of dropped unanswered
          const subscription = subscriptions.get(shard)
          subscriptions.delete(shard)
          await subscription?.drain().catch(() => subscription.unsubscribe())
          // hand over only after the commands already taken have answered
          const deadline = Date.now() + 10_000
          while ((inFlight.get(shard) ?? 0) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
          epochs.delete(shard)
          options.shardGone(shard)
        },
        lost: unsubscribe
      }
    })

    yield* tickSafely(manager).pipe(Effect.repeat(Schedule.spaced(roundMs)), Effect.forkScoped)

    // a lease deleted by a host that hands it over (rebalance, graceful stop) is taken
    // at once instead of at the next round; expired leases are found by the rounds
    const watcher = yield* Effect.tryPromise(() => leases.watchRemovals(() => runFork(tickSafely(manager))))
    yield* Effect.forkScoped(
      Effect.tryPromise(() => watcher.ended).pipe(
        Effect.catchAll((e) => Effect.logWarning("shard lease watch ended; rounds still take free shards", e))
      )
    )

    // runs first on shutdown (finalizers run in reverse): stop watching, then hand
    // every shard over while the connection is still open
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => watcher.stop()).pipe(
        Effect.zipRight(Effect.promise(() => manager.stop()).pipe(Effect.timeout("15 seconds"))),
        Effect.tap(() => Effect.logInfo(`actor host ${hostId} handed its shards over`)),
        Effect.ignore
      )
    )
    yield* Effect.logInfo(`actor host ${hostId} started`)
    return {
      hostId,
      /** The shards this host serves now (sorted). */
      owned: manager.owned,
      /** Whether this host may run a command of the shard now. */
      holds: manager.holds
    }
  }) satisfies Effect.Effect<unknown, unknown, R | FenceStore | ActorPayloads | Scope.Scope>
