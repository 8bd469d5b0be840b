import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Errors } from "../../../domain/errors.js"
import { canManageChannels, type Principal } from "../../../domain/roles.js"
import { removedWithChannel } from "../../../domain/posts/states.js"
import type { DeleteChannel } from "../../../protocol/actors.js"

/**
 * DELETE /integrations/{id}: owners and admins only. The channel is disconnected and
 * its drafts, queued, failed and unconfirmed posts are deleted in one transaction;
 * published posts (live on the network) keep their rows.
 */
export const deleteChannel = (principal: Principal, command: DeleteChannel) =>
  Effect.gen(function* () {
    if (!canManageChannels(principal.role)) return yield* Effect.fail(Errors.forbidden())
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const found = yield* sql`
          UPDATE channels SET deleted_at = now()
          WHERE id = ${command.channelId} AND workspace_id = ${principal.workspaceId} AND deleted_at IS NULL
          RETURNING id`
        if (found.length === 0) return yield* Effect.fail(Errors.channelNotFound())
        const removed = yield* sql<{ id: string; groupId: string }>`
          UPDATE posts SET deleted_at = now(), updated_at = now()
          WHERE channel_id = ${command.channelId} AND workspace_id = ${principal.workspaceId}
            AND deleted_at IS NULL AND status IN ${sql.in(removedWithChannel)}
          RETURNING id, group_id`
        if (removed.length > 0) {
          // a whole post left without channels is deleted too
          const groups = [...new Set(removed.map((r) => r.groupId))]
          yield* sql`
            UPDATE post_groups g SET deleted_at = now(), updated_at = now()
            WHERE g.id IN ${sql.in(groups)} AND g.deleted_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM posts p WHERE p.group_id = g.id AND p.deleted_at IS NULL)`
        }
        return { success: true as const }
      })
    ).pipe(Effect.catchTag("SqlError", Effect.die))
  })
