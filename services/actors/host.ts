import { Effect, Layer, Runtime, Schedule, Schema } from "effect"
import { KvWatchInclude, type Msg, type Subscription } from "nats"
import { shardOf } from "../../domain/shards.js"
import { ActorEnvelopeJson } from "../../protocol/actors.js"
import { AppConfig } from "../platform/config.js"
import { Nats } from "../platform/nats.js"
import { dispatch } from "./dispatch.js"
import { makeMailboxes } from "./mailboxes.js"
import { makeWorkspaceMemory, WorkspaceMemory } from "./workspaceMemory.js"
import { PostWriter } from "../posts/PostWriter.js"
import { LEASE_ROUND_MS, makeLeaseManager, tickSafely } from "./shardLeases.js"

const decodeEnvelope = Schema.decodeUnknown(ActorEnvelopeJson)

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
    const runtime = yield* Effect.runtime<PostWriter>()
    const withStores = runtime.pipe(Runtime.provideService(WorkspaceMemory, memory))
    const runFork = Runtime.runFork(withStores)
    const hostId = crypto.randomUUID()
    const mailboxes = makeMailboxes()
    const subscriptions = new Map<number, Subscription>()
    const inFlight = new Map<number, number>()

    const onMessage = (shard: number, msg: Msg) => {
      inFlight.set(shard, (inFlight.get(shard) ?? 0) + 1)
      const program = decodeEnvelope(msg.string()).pipe(
        Effect.flatMap((envelope) => dispatch(envelope, mailboxes)),
        Effect.catchAllCause((cause) =>
          Effect.logError("actor command failed", cause).pipe(
            Effect.as({ _tag: "Failure", cause: { _tag: "Die", defect: "actor command failed" } })
          )
        ),
        Effect.flatMap((reply) => Effect.sync(() => msg.respond(JSON.stringify(reply)))),
        Effect.ensuring(Effect.sync(() => inFlight.set(shard, (inFlight.get(shard) ?? 1) - 1)))
      )
      runFork(program)
    }

    /** The shard's workspaces are another host's now: their windows and keys here go stale. */
    const forgetShard = (shard: number) => memory.forget((workspaceId) => shardOf(workspaceId, config.shardCount) === shard)

    const unsubscribe = (shard: number) => {
      subscriptions.get(shard)?.unsubscribe()
      subscriptions.delete(shard)
      forgetShard(shard)
    }

    const manager = makeLeaseManager({
      hostId,
      shardCount: config.shardCount,
      leases: nats.shardLeases,
      hosts: nats.actorHosts,
      callbacks: {
        acquired: async (shard) => {
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
          forgetShard(shard)
        },
        lost: unsubscribe
      }
    })

    yield* Effect.sync(() => memory.sweep(Date.now(), 3600_000)).pipe(
      Effect.repeat(Schedule.spaced("1 minute")),
      Effect.forkScoped
    )
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
  })).pipe(Layer.provide(PostWriter.Default))
