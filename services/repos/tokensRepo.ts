import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import type pg from "pg"

const TokenRow = Schema.Struct({
  kind: Schema.Literal("live", "oat", "cli"),
  workspaceId: Schema.String,
  userId: Schema.NullOr(Schema.String),
  role: Schema.NullOr(Schema.String),
  memberPaused: Schema.NullOr(Schema.Boolean),
  userEmail: Schema.NullOr(Schema.String),
  userSuspended: Schema.NullOr(Schema.Boolean),
  billingState: Schema.Literal("active", "past_due", "grace_over", "ended"),
  pastDueSince: Schema.NullOr(Schema.DateFromSelf),
  ownerSuspended: Schema.NullOr(Schema.Boolean),
  ownerEmailVerified: Schema.NullOr(Schema.Boolean)
})
export type TokenRow = typeof TokenRow.Type

/**
 * API tokens (stored as SHA-256 hashes) with what authentication needs about their
 * workspace, person and owner, read when the gateway's token cache does not hold the row
 * (services/gateway/tokenCache.ts, dropped on every change, so rotation and revocation
 * still take effect at once on every replica). SQL only.
 */
export const makeTokensRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const findByHash = SqlSchema.findOne({
    Request: Schema.Uint8ArrayFromSelf,
    Result: TokenRow,
    execute: (hash) => sql`
      SELECT t.kind, t.workspace_id, t.user_id, m.role, m.paused AS member_paused,
             u.email AS user_email, u.suspended AS user_suspended,
             w.billing_state, w.past_due_since,
             o.suspended AS owner_suspended, o.email_verified AS owner_email_verified
      FROM api_tokens t
      JOIN workspaces w ON w.id = t.workspace_id
      LEFT JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
      LEFT JOIN users u ON u.id = t.user_id
      LEFT JOIN memberships om ON om.workspace_id = t.workspace_id AND om.role = 'owner'
      LEFT JOIN users o ON o.id = om.user_id
      WHERE t.token_hash = ${hash} AND t.revoked_at IS NULL`
  })
  /** Revokes the workspace's live key (every gateway refuses it at once: see tokenCache.ts). */
  const revokeWorkspaceKeys = (workspaceId: string) =>
    sql`UPDATE api_tokens SET revoked_at = now() WHERE workspace_id = ${workspaceId} AND kind = 'live' AND revoked_at IS NULL`
  const insertWorkspaceKey = (row: { readonly id: string; readonly workspaceId: string; readonly tokenHash: Buffer; readonly label: string }) =>
    sql`INSERT INTO api_tokens ${sql.insert({ id: row.id, workspaceId: row.workspaceId, kind: "live", tokenHash: row.tokenHash, label: row.label })}`
  return { findByHash, revokeWorkspaceKeys, insertWorkspaceKey }
})

/** The channel migration 0012's trigger notifies when a table the token lookup reads changes. */
export const AUTH_CHANGED_CHANNEL = "auth_changed"

/** Starts listening for auth changes on a connection of the caller's own. */
export const listenForAuthChanges = (client: pg.Client) => client.query(`LISTEN ${AUTH_CHANGED_CHANNEL}`)

/**
 * An empty query on the listening connection: it answers only after every notification
 * committed before it was sent has been delivered (services/gateway/tokenCache.ts fence).
 */
export const emptyQuery = (client: pg.Client) => client.query("")
