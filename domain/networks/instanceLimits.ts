import type { Network } from "./network.js"

/**
 * Networks whose limits are each server's own (the servers that speak the Mastodon API:
 * Mastodon 500 characters, GoToSocial 5000, Pixelfed photos only …): the limits the channel's
 * server announced when it connected, kept as the channel's default settings, replace the
 * catalog's when a post is checked before saving.
 */
export const InstanceLimitKeys = {
  maxCharacters: "instance_max_characters",
  maxMedia: "instance_max_media",
  needsMedia: "instance_needs_media"
} as const

const positive = (value: unknown): number | null => (typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null)

/** The network as this channel's server limits it (only networks with many kinds of server; the others as they are). */
export const withInstanceLimits = (network: Network, settings: Readonly<Record<string, unknown>>): Network => {
  if (network.identifier !== "mastodon") return network
  const maxLength = positive(settings[InstanceLimitKeys.maxCharacters])
  const maxMedia = positive(settings[InstanceLimitKeys.maxMedia])
  return {
    ...network,
    maxLength: maxLength ?? network.maxLength,
    maxMedia: maxMedia ?? network.maxMedia,
    needs: settings[InstanceLimitKeys.needsMedia] === true ? "media" : network.needs
  }
}
