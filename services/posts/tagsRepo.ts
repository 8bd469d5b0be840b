import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import type { TagRef } from "../../domain/posts/normalizedPost.js"
import { tagColor } from "../../domain/tagColor.js"

/** Tags of a workspace. SQL only. */
export const makeTagsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /**
   * Tags by id or name (case aside, as Postgres compares them); `{value, label}` creates
   * a tag named label when nothing matches, a plain name creates it under that name.
   * Two statements for the whole list, whatever its length: one lookup, one insert of
   * the names still missing. The lists travel as one JSON parameter.
   */
  const resolve = (workspaceId: string, refs: ReadonlyArray<TagRef>) =>
    Effect.gen(function* () {
      if (refs.length === 0) return [] as ReadonlyArray<string>
      const wanted = refs.map((ref, ord) => ({ ord, value: ref.value.trim() }))
      // an id wins over a name: a reference by id is exact
      const found = yield* sql<{ ord: number; id: string }>`
        SELECT w.ord, t.id
        FROM jsonb_to_recordset(${JSON.stringify(wanted)}::jsonb) AS w(ord int, value text)
        JOIN LATERAL (
          SELECT id FROM tags
          WHERE workspace_id = ${workspaceId} AND (id::text = lower(w.value) OR lower(name) = lower(w.value))
          ORDER BY id::text = lower(w.value) DESC
          LIMIT 1
        ) t ON true`
      const ids = new Map(found.map((row) => [row.ord, row.id]))

      const missing = refs.flatMap((ref, ord) => {
        if (ids.has(ord)) return []
        const name = ref.kind === "create" ? ref.label.trim() : ref.value.trim()
        return [{ ord, id: crypto.randomUUID(), name, color: tagColor(name) }]
      })
      if (missing.length > 0) {
        // one row per name (the first asked for); a tag made meanwhile by another request is taken as it is
        const created = yield* sql<{ ord: number; id: string }>`
          WITH wanted AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(missing)}::jsonb) AS w(ord int, id uuid, name text, color text)
          ), upserted AS (
            INSERT INTO tags (id, workspace_id, name, color)
            SELECT DISTINCT ON (lower(name)) id, ${workspaceId}::uuid, name, color FROM wanted ORDER BY lower(name), ord
            ON CONFLICT (workspace_id, (lower(name))) DO UPDATE SET name = tags.name
            RETURNING id, lower(name) AS key
          )
          SELECT wanted.ord, upserted.id FROM wanted JOIN upserted ON upserted.key = lower(wanted.name)`
        for (const row of created) ids.set(row.ord, row.id)
      }
      return [...new Set(refs.flatMap((_, ord) => ids.get(ord) ?? []))] as ReadonlyArray<string>
    }).pipe(Effect.catchTag("SqlError", Effect.die))

  return { resolve }
})

export class TagsRepo extends Context.Tag("posts/TagsRepo")<TagsRepo, Effect.Effect.Success<typeof makeTagsRepo>>() {
  static readonly Live = Layer.effect(TagsRepo, makeTagsRepo)
}
