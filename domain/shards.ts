/**
 * Workspaces are hashed onto a fixed number of shards; each shard has one actor
 * host at a time. FNV-1a (32 bit): stable across processes and versions.
 */
export const shardOf = (workspaceId: string, shardCount: number): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < workspaceId.length; i++) {
    hash ^= workspaceId.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash % shardCount
}

/** How many shards each of `hosts` live hosts should own so the load is even. */
export const fairShare = (shardCount: number, hosts: number): number => Math.ceil(shardCount / Math.max(1, hosts))
