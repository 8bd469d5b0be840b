import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { Errors } from "../../../domain/errors.js"
import { findNetwork, networkListItem, networks, rulesOf } from "../../../domain/networks/index.js"
import { PublicApi } from "../../../protocol/http/api.js"

export const NetworksHttpLive = HttpApiBuilder.group(PublicApi, "networks", (handlers) =>
  handlers
    .handle("listNetworks", () => Effect.succeed(networks.map(networkListItem)))
    .handle("networkRules", ({ path }) =>
      Option.match(findNetwork(path.identifier), {
        onNone: () => Effect.fail(Errors.unknownNetwork()),
        onSome: (n) => Effect.succeed(rulesOf(n))
      })
    )
)
