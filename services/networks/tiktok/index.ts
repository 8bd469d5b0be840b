import { makeTikTokAdapter } from "./adapter.js"
import { makeTikTokBusinessAdapter } from "./businessAdapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeTikTokAdapter, makeTikTokBusinessAdapter] as const
