/**
 * The numbers of the spec's "OAuth 2.0 for apps" and "Limits" rule 11, in one place.
 */
export const OAuthRules = {
  /** An authorization code works once and for 5 minutes. */
  codeTtlSeconds: 300,
  /** A device code expires after 600 seconds. */
  deviceCodeTtlSeconds: 600,
  /** The device flow's poll interval. */
  pollIntervalSeconds: 3,
  /** client_name is shown on the Allow screen, up to 100 characters. */
  clientNameMax: 100,
  /** Bounds of a registration the spec leaves open: how many redirect addresses, how long each. */
  redirectUrisMax: 10,
  redirectUriMaxLength: 2000,
  /** The only scope; every token gets it. */
  scope: "mcp",
  /** The label a CLI token is listed under in Approved Apps. */
  commandLineLabel: "Command line",
  /** What the Allow screen and Approved Apps call an app registered without a name. */
  unnamedApp: "Unnamed app"
} as const

export const GrantTypes = {
  authorizationCode: "authorization_code",
  deviceCode: "urn:ietf:params:oauth:grant-type:device_code"
} as const

export const TokenEndpointAuthMethods = ["none", "client_secret_post"] as const
export type TokenEndpointAuthMethod = (typeof TokenEndpointAuthMethods)[number]
