import { makeInstagramAdapter } from "./adapter.js"
import { makeInstagramStandaloneAdapter } from "./standaloneAdapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeInstagramAdapter, makeInstagramStandaloneAdapter] as const
