import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { ChannelId, CustomerId } from "../../../domain/ids.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { Channels } from "../../channels/Channels.js"
import { Connections } from "../../channels/Connections.js"
import { authorize } from "../../platform/policy.js"

/** Account and channels: contract → Channels, each with its policy check. */
export const AccountHttpLive = HttpApiBuilder.group(PublicApi, "account", (handlers) =>
  Effect.gen(function* () {
    const channels = yield* Channels
    const connections = yield* Connections
    return handlers
      .handle("isConnected", () => Effect.succeed({ connected: true }))
      .handle("listIntegrations", ({ urlParams }) =>
        channels.list(urlParams.group === undefined ? null : CustomerId.make(urlParams.group)).pipe(authorize("channels.read"))
      )
      .handle("listGroups", () => channels.listCustomers.pipe(authorize("channels.read")))
      .handle("integrationSettings", ({ path }) => channels.settings(ChannelId.make(path.id)).pipe(authorize("channels.read")))
      .handle("integrationTrigger", ({ path, payload }) =>
        channels.trigger(ChannelId.make(path.id), payload.methodName, payload.data ?? {}).pipe(authorize("channels.runTool"))
      )
      .handle("socialConnect", ({ path, urlParams }) =>
        connections
          .signInLink({
            network: path.integration,
            customer: urlParams.customer === undefined ? null : CustomerId.make(urlParams.customer),
            refresh: urlParams.refresh === undefined ? null : ChannelId.make(urlParams.refresh),
            instance: urlParams.instance ?? null
          })
          .pipe(authorize("channels.connect"))
      )
      .handle("integrationHealth", ({ path }) => channels.health(ChannelId.make(path.id)).pipe(authorize("channels.read")))
      .handle("deleteIntegration", ({ path }) => channels.remove(ChannelId.make(path.id)).pipe(authorize("channels.delete")))
  })
)
