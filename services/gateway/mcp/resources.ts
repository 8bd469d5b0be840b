import { Either } from "effect"
import { networks, rulesByIdentifier } from "../../../domain/networks/index.js"

/**
 * MCP resources: each network's posting rules (GET /rules/{identifier}), so a person can
 * attach the rules of the networks they write for to an agent's context before it
 * drafts. Plain data of the catalog; the tools remain the way to act.
 */

const PREFIX = "rules://networks/"

/** JSON-RPC code of the MCP spec for a resource that does not exist. */
export const RESOURCE_NOT_FOUND = -32002

export const ruleResources = () =>
  networks.map((n) => ({
    uri: `${PREFIX}${n.identifier}`,
    name: n.identifier,
    title: `${n.name}: posting rules`,
    description: `What a post to ${n.name} may hold: the rules in words, the maximum length and the settings a post may carry.`,
    mimeType: "application/json"
  }))

/** The rules of the network the address names; null for an address that names none. */
export const readRuleResource = (uri: string) => {
  if (!uri.startsWith(PREFIX)) return null
  const rules = rulesByIdentifier(decodeURIComponent(uri.slice(PREFIX.length)))
  return Either.isLeft(rules) ? null : { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(rules.right) }] }
}
