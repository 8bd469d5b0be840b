import { makeRedditAdapter } from "./adapter.js"

/** The adapters this folder adds to the registry (services/networks/registry.ts). */
export const adapters = [makeRedditAdapter] as const
