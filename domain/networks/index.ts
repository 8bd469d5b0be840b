import { Either, Option } from "effect"
import { Errors, type UnknownNetwork } from "../errors.js"
import { networks } from "./catalog.js"
import type { Network } from "./network.js"
import { rulesOf, type NetworkRules } from "./responses.js"

/** Network rules as data: the catalog, look-up by identifier, answers and length counting. */

export { networks } from "./catalog.js"
export type { LengthCounting, Needs, Network, NetworkSetting, NetworkTool, SettingType, ToolField } from "./network.js"
export { codePointLength, graphemeLength, postLength, xWeightedLength } from "./length.js"
export {
  NO_SETTINGS,
  integrationSettingsOf,
  networkListItem,
  rulesOf,
  settingsOf,
  type IntegrationSettings,
  type NetworkListItem,
  type NetworkRules,
  type SettingItem,
  type SettingsAnswer,
  type ToolItem
} from "./responses.js"

const byIdentifier: ReadonlyMap<string, Network> = new Map(networks.map((n) => [n.identifier, n]))

/** The network with this identifier (exact, as GET /networks lists it). */
export const findNetwork = (identifier: string): Option.Option<Network> => Option.fromNullable(byIdentifier.get(identifier))

/** GET /rules/{identifier} (and the MCP tool get_network_rules): the rules, or 404 Unknown network. */
export const rulesByIdentifier = (identifier: string): Either.Either<NetworkRules, UnknownNetwork> =>
  Option.match(findNetwork(identifier), {
    onNone: () => Either.left(Errors.unknownNetwork()),
    onSome: (n) => Either.right(rulesOf(n))
  })
