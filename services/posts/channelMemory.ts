import type { VersionedChannelRow } from "../repos/channelsRepo.js"

/** Enough for every channel of thousands of busy workspaces; a row beyond it drops the oldest. */
const CAPACITY = 20_000

/**
 * Channel rows the post writer checked rules against, with their versions, so a new post
 * of a known channel costs no read. Never trusted on its own: the create statement proves
 * the versions are still the rows' (createPostRepo.ts createPostSql, `current`), and a refusal
 * or a rule that fails on a remembered row is decided again on rows read just then. So it
 * needs no invalidation; a changed channel costs one wasted attempt.
 */
export const makeChannelMemory = () => {
  const rows = new Map<string, VersionedChannelRow>()
  const keyOf = (workspaceId: string, id: string) => `${workspaceId}:${id}`
  return {
    /** The rows of all of `ids` (distinct), or undefined when one is not remembered. */
    all: (workspaceId: string, ids: ReadonlyArray<string>): ReadonlyArray<VersionedChannelRow> | undefined => {
      const found: Array<VersionedChannelRow> = []
      for (const id of ids) {
        const row = rows.get(keyOf(workspaceId, id))
        if (row === undefined) return undefined
        found.push(row)
      }
      return found
    },
    remember: (read: ReadonlyArray<VersionedChannelRow>): void => {
      for (const row of read) {
        const key = keyOf(row.workspaceId, row.id)
        rows.delete(key)
        rows.set(key, row)
        if (rows.size > CAPACITY) {
          const oldest = rows.keys().next()
          if (oldest.done !== true) rows.delete(oldest.value)
        }
      }
    },
    forget: (workspaceId: string, ids: ReadonlyArray<string>): void => {
      for (const id of ids) rows.delete(keyOf(workspaceId, id))
    }
  }
}
