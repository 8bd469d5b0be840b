import { Cause, Effect, Layer, Option, Runtime, Schedule, Schema } from "effect"
import { KvWatchInclude, type Msg, type Subscription } from "nats"
import { shardOf } from "../../domain/shards.js"
import { ActorEnvelopeJson, ActorReplyJson, ActorRequestJson, INLINE_PAYLOAD_BYTES } from "../../protocol/actors.js"
import { ActorPayloads } from "../platform/actorPayloads.js"
import { AppConfig } from "../platform/config.js"
import { Nats } from "../platform/nats.js"
import { PostWriter } from "../posts/PostWriter.js"
import { dispatch } from "./dispatch.js"
import { FencedTransactions } from "./fencedTransactions.js"
import { FenceStore, LeaseLost } from "./fencing.js"
import { makeMailboxes } from "./mailboxes.js"
import { LEASE_ROUND_MS, makeLeaseManager, tickSafely } from "./shardLeases.js"
import { RateWindows } from "./rateWindows.js"
import { makeWorkspaceMemory, WorkspaceMemory } from "./workspaceMemory.js"
import { observeCommand } from "./commandMetrics.js"
import { observeMailboxDepth, observeShardsOwned } from "../platform/metrics.js"
import { withRemoteParent } from "../platform/tracing.js"

const decodeRequest = Schema.decodeUnknown(ActorRequestJson)
const decodeEnvelope = Schema.decodeUnknown(ActorEnvelopeJson)
const encodeReply = Schema.encodeSync(ActorReplyJson)
const notOwner = encodeReply({ _tag: "NotOwner" })

/**
 * An actor host: owns some shards through leases, subscribes to their command
 * subjects and runs each workspace's commands in that workspace's mailbox.
 */
export const ActorHostLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const nats = yield* Nats
    const memory = makeWorkspaceMemory()
    // the writer (and its stores) is built once per host: queries and decoders are reused by every command
    const runtime = yield* Effect.runtime<PostWriter | FenceStore | ActorPayloads | RateWindows>()
    const withStores = runtime.pipe(Runtime.provideService(WorkspaceMemory, memory))
    const runFork = Runtime.runFork(withStores)
    const runPromise = Runtime.runPromise(withStores)
    const fences = yield* FenceStore
    const payloads = yield* ActorPayloads
    const hostId = crypto.randomUUID()
    const mailboxes = makeMailboxes()
    const subscriptions = new Map<number, Subscription>()
    const inFlight = new Map<number, number>()
    /** The epoch this host raised each of its shards to (shard_fences): every write of the shard checks it. */
    const epochs = new Map<number, number>()

    /** The envelope, read from the message or, for a large command, from where the gateway stored it. */
    const envelopeOf = (msg: Msg) =>
      decodeRequest(msg.string()).pipe(
        Effect.flatMap((request) =>
          request._tag === "Inline"
            ? Effect.succeed(request.envelope)
            : payloads.get(request.ref).pipe(
                Effect.flatMap(Option.match({ onNone: () => Effect.dieMessage("a stored command was not found"), onSome: decodeEnvelope }))
              )
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

    // made once, not per message: docs/house-rules.md#hot-paths
    const runCommand = Effect.fnUntraced(function* (shard: number, msg: Msg, started: number) {
      const epoch = epochs.get(shard)
      // a host that lost its lease (a pause, a partition) runs nothing of the shard: it says so
      if (epoch === undefined || !manager.holds(shard)) return notOwner
      const envelope = yield* envelopeOf(msg)
      const exit = yield* dispatch(envelope, mailboxes, { shard, epoch })
      observeCommand(envelope.command._tag, exit, started)
      return yield* replyOf(exit)
    })

    const onMessage = (shard: number, msg: Msg) => {
      const started = performance.now()
      inFlight.set(shard, (inFlight.get(shard) ?? 0) + 1)
      const program = runCommand(shard, msg, started).pipe(
        Effect.catchAllCause((cause) =>
          Option.exists(Cause.failureOption(cause), (e) => e instanceof LeaseLost)
            ? Effect.succeed(notOwner)
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

    /** The shard's workspaces are another host's now: their keys in flight here go stale. */
    const forgetShard = (shard: number) => memory.forget((workspaceId) => shardOf(workspaceId, config.shardCount) === shard)

    const unsubscribe = (shard: number) => {
      subscriptions.get(shard)?.unsubscribe()
      subscriptions.delete(shard)
      epochs.delete(shard)
      forgetShard(shard)
    }

    const manager = makeLeaseManager({
      hostId,
      shardCount: config.shardCount,
      leases: nats.shardLeases,
      hosts: nats.actorHosts,
      callbacks: {
        acquired: async (shard) => {
          // raise the shard's epoch first: from now on the previous owner can commit nothing
          epochs.set(shard, await runPromise(fences.claim(shard, hostId)))
          const subject = nats.names.shardCommands(shard)
          subscriptions.set(shard, nats.connection.subscribe(subject, { callback: (_e, msg) => onMessage(shard, msg) }))
          await nats.connection.flush()
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
          forgetShard(shard)
        },
        lost: unsubscribe
      }
    })

    yield* tickSafely(manager).pipe(Effect.repeat(Schedule.spaced(LEASE_ROUND_MS)), Effect.forkScoped)

    // a lease deleted by a host that hands it over (rebalance, graceful stop) is taken
    // at once instead of at the next round; expired leases are found by the rounds
    const watcher = yield* Effect.tryPromise(() => nats.shardLeases.watch({ include: KvWatchInclude.UpdatesOnly }))
    yield* Effect.forkScoped(
      Effect.tryPromise(async () => {
        for await (const entry of watcher) {
          if (entry.operation !== "PUT") runFork(tickSafely(manager))
        }
      }).pipe(Effect.catchAll((e) => Effect.logWarning("shard lease watch ended; rounds still take free shards", e)))
    )

    // runs first on shutdown (finalizers run in reverse): stop watching, then hand
    // every shard over while the NATS connection is still open
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => watcher.stop()).pipe(
        Effect.zipRight(Effect.promise(() => manager.stop()).pipe(Effect.timeout("15 seconds"))),
        Effect.tap(() => Effect.logInfo(`actor host ${hostId} handed its shards over`)),
        Effect.ignore
      )
    )
    yield* Effect.logInfo(`actor host ${hostId} started`)
  })).pipe(
  Layer.provide(PostWriter.Default),
  Layer.provide(FencedTransactions),
  Layer.provide([FenceStore.Live, ActorPayloads.Live, RateWindows.Live])
)
