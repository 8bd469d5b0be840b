import type { Needs, Network, NetworkSetting, SettingType } from "./network.js"

/** The spec's answer shapes built from a network (spec: "Network settings and rules"). */

export const NO_SETTINGS = "No additional settings required"

export interface SettingItem {
  readonly key: string
  readonly label: string
  readonly type: SettingType
  readonly options: ReadonlyArray<string>
  readonly help: string
  readonly required?: true
}

/** The spec answers a text, not an empty array, when a network has no settings. */
export type SettingsAnswer = ReadonlyArray<SettingItem> | typeof NO_SETTINGS

export interface ToolItem {
  readonly methodName: string
  readonly description: string
  readonly dataSchema: ReadonlyArray<{ readonly key: string; readonly type: string; readonly description: string }>
}

export interface NetworkListItem {
  readonly identifier: string
  readonly name: string
  readonly maxLength: number
  readonly comments: boolean
  readonly needs: Needs
  /** Whether this server publishes to the network (an adapter, and a public API to call). */
  readonly publishes: boolean
}

export interface NetworkRules {
  readonly rules: string
  readonly maxLength: number
  readonly settings: SettingsAnswer
}

export interface IntegrationSettings {
  readonly rules: string
  readonly maxLength: number
  readonly needs: Needs
  readonly maxMedia: number
  readonly comments: boolean
  readonly settings: SettingsAnswer
  readonly tools: ReadonlyArray<ToolItem>
}

// Fields are copied one by one so nothing but the spec's keys reaches the wire.
const settingItem = (s: NetworkSetting): SettingItem => ({
  key: s.key,
  label: s.label,
  type: s.type,
  options: [...s.options],
  help: s.help,
  ...(s.required === true ? { required: true as const } : {})
})

export const settingsOf = (n: Network): SettingsAnswer => (n.settings.length === 0 ? NO_SETTINGS : n.settings.map(settingItem))

/** GET /networks item; `hasAdapter`: whether this server has an adapter for the network. */
export const networkListItem = (n: Network, hasAdapter: boolean): NetworkListItem => ({
  identifier: n.identifier,
  name: n.name,
  maxLength: n.maxLength,
  comments: n.comments,
  needs: n.needs,
  publishes: hasAdapter && n.noPublicApi === undefined
})

/** GET /rules/{identifier}. */
export const rulesOf = (n: Network): NetworkRules => ({
  rules: n.rules,
  maxLength: n.maxLength,
  settings: settingsOf(n)
})

/** GET /integration-settings/{id} `output`. */
export const integrationSettingsOf = (n: Network): IntegrationSettings => ({
  rules: n.rules,
  maxLength: n.maxLength,
  needs: n.needs,
  maxMedia: n.maxMedia,
  comments: n.comments,
  settings: settingsOf(n),
  tools: n.tools.map((t) => ({
    methodName: t.methodName,
    description: t.description,
    dataSchema: t.dataSchema.map((f) => ({ key: f.key, type: f.type, description: f.description }))
  }))
})
