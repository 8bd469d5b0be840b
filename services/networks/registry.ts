import { Effect, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import { findNetwork } from "../../domain/networks/index.js"
import type { NetworkAdapter, ToolCall } from "./adapter.js"
import { testNetworkAdapter } from "./testNetwork.js"

const adapters: ReadonlyMap<string, NetworkAdapter> = new Map([[testNetworkAdapter.identifier, testNetworkAdapter]])

/** The adapter of a network, when this server has one. */
export const adapterFor = (network: string): Option.Option<NetworkAdapter> => Option.fromNullable(adapters.get(network))

/**
 * POST /integration-trigger: the tool must be one of the channel's network's tools
 * (400 otherwise); networks whose adapter is not built yet say so with a 400.
 */
export const runTool = (call: ToolCall) =>
  Effect.gen(function* () {
    const network = findNetwork(call.channel.network)
    if (Option.isNone(network)) return yield* Effect.fail(Errors.badRequest("The channel's network is not known."))
    const tool = network.value.tools.find((t) => t.methodName === call.methodName)
    if (tool === undefined) {
      const names = network.value.tools.map((t) => t.methodName)
      return yield* Effect.fail(
        Errors.badRequest(
          names.length === 0
            ? `${network.value.name} has no tools.`
            : `Unknown methodName ${call.methodName}. ${network.value.name} tools: ${names.join(", ")}.`
        )
      )
    }
    const adapter = adapters.get(network.value.identifier)
    if (adapter === undefined) {
      return yield* Effect.fail(
        Errors.badRequest(`${network.value.name} tools need a connection to ${network.value.name}, which this server does not have yet.`)
      )
    }
    return yield* adapter.runTool(call)
  })
