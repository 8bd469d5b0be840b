import { makeLemmyAdapter } from "./adapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeLemmyAdapter] as const
