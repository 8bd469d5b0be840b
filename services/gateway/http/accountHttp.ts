import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { Errors } from "../../../domain/errors.js"
import { findNetwork, integrationSettingsOf } from "../../../domain/networks/index.js"
import { DeleteChannel } from "../../../protocol/actors.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { CurrentPrincipal } from "../../../protocol/http/security.js"
import { runTool } from "../../networks/registry.js"
import { makeChannelsRepo, type ChannelRow } from "../../repos/channelsRepo.js"
import { makeCustomersRepo } from "../../repos/customersRepo.js"
import { ActorClient } from "../actorClient.js"

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

export const AccountHttpLive = HttpApiBuilder.group(PublicApi, "account", (handlers) =>
  Effect.gen(function* () {
    const channels = yield* makeChannelsRepo
    const customers = yield* makeCustomersRepo
    const actors = yield* ActorClient

    const channelOr404 = (workspaceId: string, id: string) =>
      channels.findById({ workspaceId, id }).pipe(
        Effect.orDie,
        Effect.flatMap(Option.match({ onNone: () => Effect.fail(Errors.channelNotFound()), onSome: Effect.succeed }))
      )

    return handlers
      .handle("isConnected", () => Effect.succeed({ connected: true }))
      .handle("listIntegrations", ({ urlParams }) =>
        Effect.gen(function* () {
          const { workspaceId } = yield* CurrentPrincipal
          const rows = yield* channels.list({ workspaceId, customerId: urlParams.group ?? null }).pipe(Effect.orDie)
          return rows.map(channelResource)
        })
      )
      .handle("listGroups", () =>
        Effect.gen(function* () {
          const { workspaceId } = yield* CurrentPrincipal
          const rows = yield* customers.list(workspaceId).pipe(Effect.orDie)
          return rows.map((c) => ({ id: c.id, name: c.name }))
        })
      )
      .handle("integrationSettings", ({ path }) =>
        Effect.gen(function* () {
          const { workspaceId } = yield* CurrentPrincipal
          const channel = yield* channelOr404(workspaceId, path.id)
          const network = findNetwork(channel.network)
          if (Option.isNone(network)) return yield* Effect.fail(Errors.unknownNetwork())
          return { output: integrationSettingsOf(network.value) }
        })
      )
      .handle("integrationTrigger", ({ path, payload }) =>
        Effect.gen(function* () {
          const { workspaceId } = yield* CurrentPrincipal
          const channel = yield* channelOr404(workspaceId, path.id)
          const output = yield* runTool({ channel, methodName: payload.methodName, data: payload.data ?? {} })
          return { output }
        })
      )
      .handle("deleteIntegration", ({ path }) =>
        Effect.gen(function* () {
          const principal = yield* CurrentPrincipal
          return yield* actors.send(principal, new DeleteChannel({ channelId: path.id }))
        })
      )
  })
)
