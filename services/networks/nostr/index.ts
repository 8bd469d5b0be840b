import { makeNostrAdapter } from "./adapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeNostrAdapter] as const
