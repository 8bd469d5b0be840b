import { Effect, Exit, Logger, LogLevel, Schema, Scope } from "effect"
import { SqlError } from "@effect/sql/SqlError"
import { InvalidRequest } from "../../domain/errors.js"
import { WorkspaceId } from "../../domain/ids.js"
import type { Principal } from "../../domain/roles.js"
import { shardOf } from "../../domain/shards.js"
import type { ActorEnvelope } from "../../protocol/actors.js"
import { makeActorClient } from "../../services/sharding/actorClient.js"
import { ActorPayloads, makeMemoryActorPayloads } from "../../services/sharding/actorPayloads.js"
import { FenceStore, makeMemoryFenceStore } from "../../services/sharding/fencing.js"
import { makeMemoryLeases } from "../../services/sharding/leaseStore.js"
import type { Mailboxes } from "../../services/sharding/mailboxes.js"
import { makeMemoryBus } from "../../services/sharding/shardBus.js"
import { runShardHost, type ShardHostOptions } from "../../services/sharding/shardHost.js"
import { decodeLease } from "../../services/sharding/shardLeases.js"

/**
 * The sharding engine with its memory stores (leases, fences, payloads, subjects): real
 * hosts (services/sharding/shardHost.ts) and a real client, no server. The entity is a
 * small one that records what ran where, under which epoch, and when; its write is
 * checked against the shard's epoch like a fenced transaction's.
 */

/** A command that ran to its write. */
export interface Ran {
  readonly host: string
  readonly shard: number
  readonly epoch: number
  readonly workspaceId: string
  readonly commandId: string
  readonly started: number
  readonly ended: number
}

export interface MemoryShardingOptions {
  readonly shardCount: number
  readonly leaseTtlMs: number
  readonly roundMs: number
  /** How long the entity works on a command, inside its mailbox. */
  readonly workMs?: () => number
  /** Another entity in place of the recording one (e.g. services/actors/dispatch.ts over test stores). */
  readonly entity?: ShardHostOptions<FenceStore>["handle"]
}

export const makeMemorySharding = (options: MemoryShardingOptions) => {
  const { shardCount, leaseTtlMs, roundMs } = options
  const leases = makeMemoryLeases(leaseTtlMs)
  const bus = makeMemoryBus()
  const fences = makeMemoryFenceStore()
  const payloads = makeMemoryActorPayloads()
  const subjectOf = (shard: number) => `test.ws.cmd.${shard}`
  const ran: Array<Ran> = []
  /** Command ids as each host's entity took them (before its mailbox). */
  const arrived: Array<string> = []
  const scopes: Array<Scope.CloseableScope> = []
  const wakes: Array<() => void> = []

  /**
   * The entity: DeletePost succeeds, SetPostSettings fails with its settings echoed back (a
   * large answer), RetryPost dies as a write does when Postgres cannot be reached.
   */
  const entity =
    (host: { id: string }) => (envelope: ActorEnvelope, mailboxes: Mailboxes, lease: { readonly shard: number; readonly epoch: number }) =>
      Effect.suspend(() => {
        arrived.push(envelope.commandId)
        return mailboxes.run(
          envelope.principal.workspaceId,
          Effect.gen(function* () {
            const started = performance.now()
            yield* Effect.sleep(options.workMs?.() ?? 0)
            // the write: refused when the shard's epoch is no longer this host's
            yield* fences.check(lease.shard, lease.epoch).pipe(Effect.catchTag("SqlError", Effect.die))
            ran.push({
              host: host.id,
              shard: lease.shard,
              epoch: lease.epoch,
              workspaceId: envelope.principal.workspaceId,
              commandId: envelope.commandId,
              started,
              ended: performance.now()
            })
            const { command } = envelope
            switch (command._tag) {
              case "DeletePost":
                return yield* Schema.serializeExit(command, Exit.succeed({ error: false as const, success: true as const }))
              case "SetPostSettings":
                return yield* Schema.serializeExit(command, Exit.fail(new InvalidRequest({ error: JSON.stringify(command.settings) })))
              case "RetryPost":
                // the write met Postgres out of reach (a refused connection, as during a restart)
                return yield* Effect.die(
                  new SqlError({
                    cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }),
                    message: "Failed to execute statement"
                  })
                )
              default:
                return yield* Effect.dieMessage(`the test entity does not run ${command._tag}`)
            }
          })
        )
      })

  /** Starts a host; `pause` stops it like a paused process (no lease renewed, nothing taken), `pauseLeases` cuts it from the lease store only. */
  const startHost = async () => {
    const leaseView = leases.connect()
    const busView = bus.connect()
    const scope = Effect.runSync(Scope.make())
    scopes.push(scope)
    wakes.push(leaseView.resume, busView.resume)
    const self = { id: "" }
    const host = await Effect.runPromise(
      runShardHost({
        shardCount,
        subjectOf,
        leases: leaseView.store,
        bus: busView.bus,
        leaseTtlMs,
        roundMs,
        handle: options.entity ?? entity(self),
        shardGone: () => {}
      }).pipe(
        Scope.extend(scope),
        Effect.provideService(FenceStore, fences),
        Effect.provideService(ActorPayloads, payloads.payloads),
        Logger.withMinimumLogLevel(LogLevel.Warning)
      )
    )
    self.id = host.hostId
    return {
      ...host,
      pause: () => {
        leaseView.pause()
        busView.pause()
      },
      resume: () => {
        leaseView.resume()
        busView.resume()
      },
      pauseLeases: leaseView.pause,
      resumeLeases: leaseView.resume,
      stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }

  const client = makeActorClient({
    requests: bus.requests,
    payloads: payloads.payloads,
    subjectOf,
    shardCount,
    attemptMs: 500,
    handoverWaitMs: 15_000
  })

  /** shard → the host whose live lease it is, as the lease store has it. */
  const owners = async () => {
    const result = new Map<number, string>()
    for (let shard = 0; shard < shardCount; shard++) {
      const value = await leases.read(shard)
      const lease = value === null ? undefined : decodeLease(value)
      if (lease?._tag === "Some") result.set(shard, lease.value.host)
    }
    return result
  }

  const waitFor = async <A>(read: () => Promise<A>, done: (a: A) => boolean, timeoutMs: number, what: string): Promise<A> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const value = await read()
      if (done(value)) return value
      if (Date.now() > deadline)
        throw new Error(`${what} within ${timeoutMs} ms: ${JSON.stringify(value, (_k, v) => (v instanceof Map ? [...v] : v))}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** Workspaces (random ids) and their shards, at least `perShard` on every shard. */
  const workspaces = (perShard: number) => {
    const byShard = new Map<number, Array<Principal>>()
    while ([...Array(shardCount).keys()].some((shard) => (byShard.get(shard)?.length ?? 0) < perShard)) {
      const workspaceId = WorkspaceId.make(crypto.randomUUID())
      const shard = shardOf(workspaceId, shardCount)
      const list = byShard.get(shard) ?? []
      if (list.length < perShard) list.push({ workspaceId, userId: null, role: "admin", tokenKind: "live", actor: "API" })
      byShard.set(shard, list)
    }
    return byShard
  }

  /** Wakes and stops every host started (each hands its shards over). */
  const close = () => {
    for (const wake of wakes.splice(0)) wake()
    return Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
  }

  return { startHost, client, owners, waitFor, workspaces, ran, arrived, fences, payloads, bus, subjectOf, close }
}
