import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { billingGate } from "../../domain/billing.js"
import { Errors } from "../../domain/errors.js"
import { WorkspaceId } from "../../domain/ids.js"
import { isRole, stripBearer, tokenKindOf, type Principal } from "../../domain/roles.js"
import { Authentication } from "../../protocol/http/security.js"
import { tokenHash } from "../platform/secrets.js"

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
 * Resolves a token to the principal it acts as, straight from Postgres on every
 * request: rotation and revocation take effect at once on every gateway replica.
 */
export const makeTokenLookup = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return SqlSchema.findOne({
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
})

/** The rules of the spec's Authentication part, given the stored token row. */
export const principalOf = (token: string, row: TokenRow, now: Date) => {
  if (tokenKindOf(token) !== row.kind) return Effect.fail(Errors.invalidApiKey())
  let principal: Principal
  if (row.kind === "live") {
    // a workspace key stops working while the owner's account is suspended (rule 3)
    if (row.ownerSuspended === true) return Effect.fail(Errors.invalidApiKey())
    principal = { workspaceId: WorkspaceId.make(row.workspaceId), userId: null, role: "admin", tokenKind: "live", actor: "API" }
  } else {
    // a person's token works only while they are a member and not suspended
    if (row.role === null || !isRole(row.role) || row.userSuspended === true || row.userId === null) {
      return Effect.fail(Errors.invalidApiKey())
    }
    principal = {
      workspaceId: WorkspaceId.make(row.workspaceId),
      userId: row.userId,
      role: row.role,
      tokenKind: row.kind,
      actor: row.userEmail ?? "API"
    }
  }
  const gate = billingGate(row.billingState, row.pastDueSince, now)
  if (gate !== null) return Effect.fail(gate)
  if (row.ownerEmailVerified === false) return Effect.fail(Errors.emailNotVerified())
  if (row.memberPaused === true && principal.role !== "owner") return Effect.fail(Errors.memberPaused())
  return Effect.succeed(principal)
}

/** Authenticates the raw `Authorization` header value. */
export const makeAuthenticate = Effect.gen(function* () {
  const lookup = yield* makeTokenLookup
  return (header: string) =>
    Effect.gen(function* () {
      const token = stripBearer(header)
      if (token === "") return yield* Effect.fail(Errors.noApiKey())
      if (tokenKindOf(token) === null) return yield* Effect.fail(Errors.invalidApiKey())
      const row = yield* lookup(tokenHash(token)).pipe(Effect.orDie)
      if (Option.isNone(row)) return yield* Effect.fail(Errors.invalidApiKey())
      return yield* principalOf(token, row.value, new Date())
    })
})

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticate = yield* makeAuthenticate
    return Authentication.of({ apiKey: (key) => authenticate(Redacted.value(key)) })
  })
)
