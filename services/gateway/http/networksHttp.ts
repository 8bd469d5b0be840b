import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { networkListItem, networks, rulesByIdentifier } from "../../../domain/networks/index.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { Notifications } from "../../notifications/Notifications.js"
import { authorize } from "../../platform/policy.js"

export const NetworksHttpLive = HttpApiBuilder.group(PublicApi, "networks", (handlers) =>
  Effect.gen(function* () {
    const notifications = yield* Notifications
    return handlers
      .handle("listNotifications", ({ urlParams }) => notifications.list(urlParams.page ?? 1).pipe(authorize("notifications.read")))
      .handle("listNetworks", () => Effect.succeed(networks.map(networkListItem)))
      .handle("networkRules", ({ path }) => rulesByIdentifier(path.identifier))
  })
)
