import { Option } from "effect"
import { networks } from "./catalog.js"
import type { Network } from "./network.js"

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
export const findNetwork = (identifier: string): Option.Option<Network> =>
  Option.fromNullable(byIdentifier.get(identifier))
