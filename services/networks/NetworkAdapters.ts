import { Effect, Layer, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import { ToolMessages } from "../../domain/posts/messages.js"
import { findNetwork, networkListItem, networks } from "../../domain/networks/index.js"
import type { NetworkAdapter, ToolCall } from "./adapter.js"
import { freshCredentials } from "./credentials.js"
import { makeTestNetworkAdapter } from "./testNetwork.js"
import { TestNetworkRepo } from "./TestNetworkRepo.js"
import { MediaStorageLive } from "../platform/storage/mediaStorageLive.js"
import { OutboundHttpLive } from "../platform/outbound/outboundHttp.js"
import { NetworkDepsLive } from "./networkDeps.js"
import { networkAdapterMakers } from "./registry.js"

const indexed = (adapters: ReadonlyArray<NetworkAdapter>) => {
  const byNetwork = new Map(adapters.map((a) => [a.identifier, a]))
  return {
    /** The adapter of a network, when this server has one. */
    find: (network: string): Option.Option<NetworkAdapter> => Option.fromNullable(byNetwork.get(network)),
    /** Networks whose tokens expire (no `tokensNeverExpire`): the publisher refreshes their channels ahead. */
    expiringTokenNetworks: adapters.filter((a) => a.tokensNeverExpire !== true).map((a) => a.identifier)
  }
}

/** Every adapter this server has: the test network and every folder's (services/networks/registry.ts); each reads its own addresses and keys when built. */
const allAdapters = Effect.all([makeTestNetworkAdapter, ...networkAdapterMakers])

/** The adapters' dependencies in a process: OUTBOUND_ALLOW's outbound client, media storage, app registrations. */
const NetworkDepsForProcess = NetworkDepsLive.pipe(Layer.provide([OutboundHttpLive, MediaStorageLive]), Layer.orDie)

/** The network adapters this server has, by network identifier. */
export class NetworkAdapters extends Effect.Service<NetworkAdapters>()("networks/NetworkAdapters", {
  effect: Effect.map(allAdapters, indexed),
  dependencies: [TestNetworkRepo.Default, NetworkDepsForProcess]
}) {
  /** Exactly these adapters (tests: a network that answers as the test needs). */
  static readonly Test = (adapters: ReadonlyArray<NetworkAdapter>) => Layer.succeed(NetworkAdapters, NetworkAdapters.make(indexed(adapters)))
}

/** GET /networks (and MCP list_networks): the catalog, each network saying whether this server publishes to it. */
export const networkList = Effect.map(NetworkAdapters, (adapters) =>
  networks.map((n) => networkListItem(n, Option.isSome(adapters.find(n.identifier))))
)

/**
 * POST /integration-trigger: the tool must be one of the channel's network's tools
 * (400 otherwise); networks whose adapter is not built yet say so with a 400.
 */
export const runToolWith = (call: Omit<ToolCall, "credentials">) =>
  Effect.gen(function* () {
    const network = findNetwork(call.channel.network)
    if (Option.isNone(network)) return yield* Effect.fail(Errors.badRequest(ToolMessages.networkUnknown))
    const tool = network.value.tools.find((t) => t.methodName === call.methodName)
    if (tool === undefined) {
      const names = network.value.tools.map((t) => t.methodName)
      return yield* Effect.fail(
        Errors.badRequest(
          names.length === 0 ? ToolMessages.noTools(network.value.name) : ToolMessages.unknownTool(call.methodName, network.value.name, names)
        )
      )
    }
    const adapter = (yield* NetworkAdapters).find(network.value.identifier)
    if (Option.isNone(adapter)) {
      return yield* Effect.fail(Errors.badRequest(ToolMessages.notConnected(network.value.name)))
    }
    const credentials = yield* freshCredentials(call.channel.id, adapter.value).pipe(Effect.orDie)
    if (credentials._tag === "Left") {
      const problem = credentials.left
      return yield* Effect.fail(
        Errors.badRequest(
          problem._tag === "Unavailable" ? ToolMessages.unavailable(network.value.name, problem.reason) : ToolMessages.reconnect(network.value.name)
        )
      )
    }
    return yield* adapter.value.runTool({ ...call, credentials: credentials.right })
  })
