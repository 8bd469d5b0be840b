import { makeListmonkAdapter } from "./adapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeListmonkAdapter] as const
