import { Effect, Option } from "effect"
import { Errors } from "../../domain/errors.js"
import type { ChannelId, CustomerId } from "../../domain/ids.js"
import { findNetwork, integrationSettingsOf } from "../../domain/networks/index.js"
import { DeleteChannel } from "../../protocol/actors.js"
import { CurrentPrincipal } from "../../protocol/http/security.js"
import { ActorClient, ActorClientLive } from "../sharding/actorClient.js"
import { NetworkAdapters, runToolWith } from "../networks/NetworkAdapters.js"
import { policyRequire } from "../platform/policy.js"
import { ChannelsRepo, type ChannelRow } from "../repos/channelsRepo.js"
import { CustomersRepo } from "../repos/customersRepo.js"
import { withSpan } from "../platform/tracing.js"
import { channelHealth } from "./channelHealth.js"

/** GET /integrations item (spec: Resources → Channel). */
export const channelResource = (c: ChannelRow) => ({
  id: c.id,
  name: c.name,
  identifier: c.network,
  picture: c.picture,
  disabled: c.disabled,
  refreshNeeded: c.refreshNeeded,
  inBetweenSteps: c.inBetweenSteps,
  profile: c.profile,
  ...(c.customerId !== null && c.customerName !== null ? { customer: { id: c.customerId, name: c.customerName } } : {})
})

/**
 * The channels feature as every edge sees it: channels and customers of the workspace,
 * a channel's rules and settings, its network's helper tools, and disconnecting it
 * (through the workspace's actor, which also deletes its unpublished posts).
 */
export class Channels extends Effect.Service<Channels>()("channels/Channels", {
  effect: Effect.gen(function* () {
    const channels = yield* ChannelsRepo
    const customers = yield* CustomersRepo
    const actors = yield* ActorClient
    const adapters = yield* NetworkAdapters

    const find = (id: ChannelId) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const found = yield* channels.findById({ workspaceId, id }).pipe(Effect.orDie)
        return yield* Option.match(found, { onNone: () => Effect.fail(Errors.channelNotFound()), onSome: Effect.succeed })
      })

    /** GET /integrations, optionally one customer's. */
    const list = (customerId: CustomerId | null) =>
      Effect.gen(function* () {
        const { workspaceId } = yield* CurrentPrincipal
        const rows = yield* channels.list({ workspaceId, customerId }).pipe(Effect.orDie)
        return rows.map(channelResource)
      }).pipe(withSpan("Channels.list"), policyRequire("channels.read"))

    /** GET /groups: customers sorted by name. */
    const listCustomers = Effect.gen(function* () {
      const { workspaceId } = yield* CurrentPrincipal
      const rows = yield* customers.list(workspaceId).pipe(Effect.orDie)
      return rows.map((c) => ({ id: c.id, name: c.name }))
    }).pipe(withSpan("Channels.listCustomers"), policyRequire("channels.read"))

    /** GET /integration-settings/{id} */
    const settings = (id: ChannelId) =>
      Effect.gen(function* () {
        const channel = yield* find(id)
        const network = findNetwork(channel.network)
        if (Option.isNone(network)) return yield* Effect.fail(Errors.unknownNetwork())
        return { output: integrationSettingsOf(network.value) }
      }).pipe(withSpan("Channels.settings"), policyRequire("channels.read"))

    /** POST /integration-trigger/{id}: one of the network's helper tools. */
    const trigger = (id: ChannelId, methodName: string, data: Readonly<Record<string, unknown>>) =>
      Effect.gen(function* () {
        const channel = yield* find(id)
        return { output: yield* runToolWith({ channel, methodName, data }).pipe(Effect.provideService(NetworkAdapters, adapters)) }
      }).pipe(withSpan("Channels.trigger"), policyRequire("channels.runTool"))

    /** GET /integrations/{id}/health: the channel's token expiry, last success and refresh, quota and posts at stake. */
    const health = (id: ChannelId) =>
      Effect.flatMap(CurrentPrincipal, ({ workspaceId }) => channelHealth(workspaceId, id)).pipe(
        Effect.provideService(NetworkAdapters, adapters),
        withSpan("Channels.health"),
        policyRequire("channels.read")
      )

    /** DELETE /integrations/{id} */
    const remove = (id: ChannelId) =>
      Effect.flatMap(CurrentPrincipal, (p) => actors.send(p, new DeleteChannel({ channelId: id }))).pipe(
        withSpan("Channels.remove"),
        policyRequire("channels.delete")
      )

    return { list, listCustomers, settings, trigger, health, remove }
  }),
  dependencies: [ChannelsRepo.Live, CustomersRepo.Live, ActorClientLive, NetworkAdapters.Default]
}) {
  /** Without its stores and the actor client: a test gives those (services/platform/testLayer.ts). */
  static readonly Test = Channels.DefaultWithoutDependencies
}
