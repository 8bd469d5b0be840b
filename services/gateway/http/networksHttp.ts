import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { rulesByIdentifier } from "../../../domain/networks/index.js"
import { NetworkAdapters, networkList } from "../../networks/NetworkAdapters.js"
import { PublicApi } from "../../../protocol/http/api.js"
import { Notifications } from "../../notifications/Notifications.js"
import { authorize } from "../../platform/policy.js"

export const NetworksHttpLive = HttpApiBuilder.group(PublicApi, "networks", (handlers) =>
  Effect.gen(function* () {
    const notifications = yield* Notifications
    const adapters = yield* NetworkAdapters
    return handlers
      .handle("listNotifications", ({ urlParams }) => notifications.list(urlParams.page ?? 1).pipe(authorize("notifications.read")))
      .handle("listNetworks", () => networkList.pipe(Effect.provideService(NetworkAdapters, adapters)))
      .handle("networkRules", ({ path }) => rulesByIdentifier(path.identifier))
  })
)
