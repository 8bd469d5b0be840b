import { makeLinkedInAdapter } from "./adapter.js"
import { makeLinkedInPageAdapter } from "./pageAdapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeLinkedInAdapter, makeLinkedInPageAdapter] as const
