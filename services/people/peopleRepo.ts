import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"

const RoleLiteral = Schema.Literal("owner", "admin", "editor", "client")

export const UserRow = Schema.Struct({ id: Schema.String, email: Schema.String, passwordHash: Schema.String, suspended: Schema.Boolean })
export const MembershipRow = Schema.Struct({
  workspaceId: Schema.String,
  workspaceName: Schema.String,
  role: RoleLiteral,
  paused: Schema.Boolean
})
export type MembershipRow = typeof MembershipRow.Type
export const MemberRow = Schema.Struct({ userId: Schema.String, email: Schema.String, role: RoleLiteral, paused: Schema.Boolean })
export type MemberRow = typeof MemberRow.Type

/** People, their memberships and the members of a workspace. SQL only. */
export const makePeopleRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const findUserByEmail = SqlSchema.findOne({
    Request: Schema.String,
    Result: UserRow,
    execute: (email) => sql`SELECT id, email, password_hash, suspended FROM users WHERE lower(email) = lower(${email})`
  })
  const findUser = SqlSchema.findOne({
    Request: Schema.String,
    Result: UserRow,
    execute: (id) => sql`SELECT id, email, password_hash, suspended FROM users WHERE id = ${id}`
  })
  const membershipsOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: MembershipRow,
    execute: (userId) => sql`
      SELECT m.workspace_id, w.name AS workspace_name, m.role, m.paused
      FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.user_id = ${userId} ORDER BY lower(w.name), w.id`
  })
  const membersOf = SqlSchema.findAll({
    Request: Schema.String,
    Result: MemberRow,
    execute: (workspaceId) => sql`
      SELECT m.user_id, u.email, m.role, m.paused
      FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId}
      ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'editor' THEN 2 ELSE 3 END, lower(u.email)`
  })
  const findMember = SqlSchema.findOne({
    Request: Schema.Struct({ workspaceId: Schema.String, userId: Schema.String }),
    Result: MemberRow,
    execute: ({ workspaceId, userId }) => sql`
      SELECT m.user_id, u.email, m.role, m.paused
      FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND m.user_id = ${userId}`
  })
  /** A row change of memberships: every gateway reads it on the member's next request. */
  const updateMember = (input: { workspaceId: string; userId: string; role: string; paused: boolean }) =>
    sql`UPDATE memberships SET role = ${input.role}, paused = ${input.paused}
        WHERE workspace_id = ${input.workspaceId} AND user_id = ${input.userId} AND role <> 'owner'`.pipe(Effect.asVoid)
  /** The id of the person with this email (compared without case), if any. */
  const findUserIdByEmail = (email: string) =>
    sql<{ id: string }>`SELECT id FROM users WHERE lower(email) = lower(${email})`.pipe(Effect.map((rows) => rows[0]?.id))
  const insertUser = (row: { readonly id: string; readonly email: string; readonly passwordHash: string; readonly timezone: string | null }) =>
    sql`INSERT INTO users ${sql.insert(row)}`
  const insertMembership = (row: { readonly workspaceId: string; readonly userId: string; readonly role: string }) =>
    sql`INSERT INTO memberships ${sql.insert(row)}`
  /** The plan has a team again: people paused because it had none are resumed. */
  const resumePausedByPlan = (workspaceId: string) =>
    sql`UPDATE memberships SET paused = false, paused_by_plan = false WHERE workspace_id = ${workspaceId} AND paused_by_plan`
  /** The plan has no team: everyone but the owner is paused (nothing is deleted). */
  const pauseForPlan = (workspaceId: string) =>
    sql`UPDATE memberships SET paused = true, paused_by_plan = true
            WHERE workspace_id = ${workspaceId} AND role <> 'owner' AND NOT paused`
  return {
    findUserByEmail,
    findUser,
    membershipsOf,
    membersOf,
    findMember,
    updateMember,
    findUserIdByEmail,
    insertUser,
    insertMembership,
    resumePausedByPlan,
    pauseForPlan
  }
})

export class PeopleRepo extends Context.Tag("PeopleRepo")<PeopleRepo, Effect.Effect.Success<typeof makePeopleRepo>>() {
  static readonly Live = Layer.effect(PeopleRepo, makePeopleRepo)
}
