import { GrantTypes, OAuthRules, TokenEndpointAuthMethods } from "../../domain/oauth/rules.js"

/**
 * Discovery (spec: OAuth 2.0 for apps): exactly the spec's fields. The issuer is the app
 * address (PUBLIC_URL); the MCP server at `<issuer>/mcp` is the protected resource.
 */

export const OAuthPaths = {
  authorizationServerMetadata: "/.well-known/oauth-authorization-server",
  protectedResourceMetadata: "/.well-known/oauth-protected-resource",
  protectedResourceMetadataMcp: "/.well-known/oauth-protected-resource/mcp",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
  deviceCode: "/oauth/device/code",
  /** The verification page of the device flow. */
  device: "/device",
  mcp: "/mcp"
} as const

/** RFC 8414 authorization server metadata. */
export const authorizationServerMetadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}${OAuthPaths.authorize}`,
  token_endpoint: `${issuer}${OAuthPaths.token}`,
  registration_endpoint: `${issuer}${OAuthPaths.register}`,
  revocation_endpoint: `${issuer}${OAuthPaths.revoke}`,
  device_authorization_endpoint: `${issuer}${OAuthPaths.deviceCode}`,
  response_types_supported: ["code"],
  grant_types_supported: [GrantTypes.authorizationCode, GrantTypes.deviceCode],
  code_challenge_methods_supported: ["S256"],
  token_endpoint_auth_methods_supported: [...TokenEndpointAuthMethods],
  scopes_supported: [OAuthRules.scope]
})

/** RFC 9728 protected resource metadata: the MCP server, authorized by this issuer. */
export const protectedResourceMetadata = (issuer: string) => ({
  resource: `${issuer}${OAuthPaths.mcp}`,
  authorization_servers: [issuer]
})
