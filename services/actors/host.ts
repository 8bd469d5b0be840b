import { Effect, Layer } from "effect"
import { shardOf } from "../../domain/shards.js"
import { AppConfig } from "../platform/config.js"
import { Nats } from "../platform/nats.js"
import { PostWriter } from "../posts/PostWriter.js"
import { ActorPayloads } from "../sharding/actorPayloads.js"
import { FencedTransactions } from "../sharding/fencedTransactions.js"
import { FenceStore } from "../sharding/fencing.js"
import { natsLeaseStore } from "../sharding/leaseStore.js"
import { natsShardBus } from "../sharding/shardBus.js"
import { runShardHost } from "../sharding/shardHost.js"
import { dispatch } from "./dispatch.js"
import { RateWindows } from "./rateWindows.js"
import { makeWorkspaceMemory, WorkspaceMemory } from "./workspaceMemory.js"

/**
 * The workspace actors' host: the sharding engine (services/sharding/shardHost.ts) on NATS
 * and Postgres, running each workspace's commands through dispatch.ts.
 */
export const ActorHostLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const nats = yield* Nats
    const memory = makeWorkspaceMemory()
    yield* runShardHost({
      shardCount: config.shardCount,
      subjectOf: nats.names.shardCommands,
      leases: natsLeaseStore(nats.shardLeases, nats.actorHosts),
      bus: natsShardBus(nats.connection),
      handle: dispatch,
      // the shard's workspaces are another host's now: their keys in flight here go stale
      shardGone: (shard) => memory.forget((workspaceId) => shardOf(workspaceId, config.shardCount) === shard)
    }).pipe(Effect.provideService(WorkspaceMemory, memory))
  })
).pipe(
  // the writer (and its stores) is built once per host: queries and decoders are reused by every command
  Layer.provide(PostWriter.Default),
  Layer.provide(FencedTransactions),
  Layer.provide([FenceStore.Live, ActorPayloads.Live, RateWindows.Live])
)
