import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { isUuid } from "../../domain/ids.js"
import type { TagRef } from "../../domain/posts/normalizedPost.js"
import { tagColor } from "../../domain/tagColor.js"

/** Tags of a workspace. SQL only. */
export const makeTagsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Tags by id or name; `{value, label}` creates a tag named label when nothing matches. */
  const resolve = (workspaceId: string, refs: ReadonlyArray<TagRef>) =>
    Effect.gen(function* () {
      const ids: Array<string> = []
      for (const ref of refs) {
        const value = ref.value.trim()
        const found = yield* sql<{ id: string }>`
          SELECT id FROM tags WHERE workspace_id = ${workspaceId}
            AND (${isUuid(value) ? sql`id = ${value} OR` : sql``} lower(name) = lower(${value}))
          LIMIT 1`
        const existing = found[0]?.id
        if (existing !== undefined) {
          ids.push(existing)
          continue
        }
        const name = ref.kind === "create" ? ref.label.trim() : value
        const created = yield* sql<{ id: string }>`
          INSERT INTO tags ${sql.insert({ id: crypto.randomUUID(), workspaceId, name, color: tagColor(name) })}
          ON CONFLICT (workspace_id, (lower(name))) DO UPDATE SET name = tags.name
          RETURNING id`
        if (created[0] !== undefined) ids.push(created[0].id)
      }
      return [...new Set(ids)] as ReadonlyArray<string>
    }).pipe(Effect.catchTag("SqlError", Effect.die))

  return { resolve }
})

export class TagsRepo extends Context.Tag("posts/TagsRepo")<TagsRepo, Effect.Effect.Success<typeof makeTagsRepo>>() {
  static readonly Live = Layer.effect(TagsRepo, makeTagsRepo)
}
