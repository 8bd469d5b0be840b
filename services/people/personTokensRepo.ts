import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

export const ApprovedAppRow = Schema.Struct({
  id: Schema.String,
  kind: Schema.Literal("oat", "cli"),
  label: Schema.String,
  workspaceName: Schema.String,
  createdAt: Schema.DateFromSelf
})
export type ApprovedAppRow = typeof ApprovedAppRow.Type

/**
 * A person's OAuth (`oat`) and CLI (`cli`) tokens in api_tokens, stored as SHA-256 hashes.
 * Revoking sets revoked_at: a row change, so every gateway replica refuses the token on
 * its next request. SQL only.
 */
export const makePersonTokensRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const insert = (row: {
    id: string
    workspaceId: string
    userId: string
    kind: "oat" | "cli"
    tokenHash: Buffer
    label: string
    oauthClientId: string | null
  }) => sql`INSERT INTO api_tokens ${sql.insert(row)}`.pipe(Effect.asVoid)
  const listActive = SqlSchema.findAll({
    Request: Schema.String,
    Result: ApprovedAppRow,
    execute: (userId) => sql`
      SELECT t.id, t.kind, t.label, w.name AS workspace_name, t.created_at
      FROM api_tokens t JOIN workspaces w ON w.id = t.workspace_id
      WHERE t.user_id = ${userId} AND t.kind IN ('oat','cli') AND t.revoked_at IS NULL
      ORDER BY t.created_at DESC, t.id`
  })
  /** Revokes one of the person's own tokens; the number revoked (0 when not theirs or already revoked). */
  const revokeOwn = (input: { userId: string; id: string }) =>
    sql`UPDATE api_tokens SET revoked_at = now()
        WHERE id = ${input.id} AND user_id = ${input.userId} AND kind IN ('oat','cli') AND revoked_at IS NULL
        RETURNING id`.pipe(Effect.map((rows) => rows.length))
  /** POST /oauth/revoke: an OAuth or CLI token by its hash (never the workspace key). */
  const revokeByHash = (hash: Buffer) =>
    sql`UPDATE api_tokens SET revoked_at = now()
        WHERE token_hash = ${hash} AND kind IN ('oat','cli') AND revoked_at IS NULL`.pipe(Effect.asVoid)
  return { insert, listActive, revokeOwn, revokeByHash }
})

export class PersonTokensRepo extends Context.Tag("PersonTokensRepo")<PersonTokensRepo, Effect.Effect.Success<typeof makePersonTokensRepo>>() {
  static readonly Live = Layer.effect(PersonTokensRepo, makePersonTokensRepo)
}
