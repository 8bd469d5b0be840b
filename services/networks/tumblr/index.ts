import { makeTumblrAdapter } from "./adapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeTumblrAdapter] as const
