import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import type { BillingAccount, BillingEvent, BillingState, Plan } from "../../domain/billing.js"

/**
 * Workspaces and their billing (migrations 0001, 0010). Single statements that take the
 * SqlClient of their caller, so each runs in the caller's transaction.
 */

/** The workspace's billing state; None when there is no such workspace. */
export const findBillingState = (workspaceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ billingState: BillingState }>`SELECT billing_state FROM workspaces WHERE id = ${workspaceId}`.pipe(
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  )

export type NewWorkspaceRow = { readonly id: string; readonly name: string; readonly plan: Plan; readonly trialEndsAt: Date | null }

export const insertWorkspace = (row: NewWorkspaceRow) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO workspaces ${sql.insert(row)}`)

/** How many workspaces exist. */
export const countWorkspaces = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ count: number }>`SELECT count(*)::int AS count FROM workspaces`.pipe(Effect.map((rows) => rows[0]?.count ?? 0))
)

/** Held until the caller's transaction ends: processes starting together seed the demo workspace one after the other. */
export const lockDemoSeed = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_advisory_xact_lock(4242001)`)

const PlanRow = Schema.Struct({ plan: Schema.String })
const decodePlans = Schema.decodeUnknown(Schema.Array(PlanRow))

/** The workspace's plan as stored; `lock` takes the row (FOR UPDATE) for the caller's transaction. */
export const findPlan = (workspaceId: string, lock: boolean) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT plan FROM workspaces WHERE id = ${workspaceId} ${lock ? sql`FOR UPDATE` : sql``}`.pipe(
      Effect.flatMap(decodePlans),
      Effect.map((plans) => plans[0]?.plan)
    )
  )

const PlanSchema = Schema.Literal("standard", "team", "pro", "ultimate")
/** A workspace's billing as stored (migrations 0001, 0010). */
const AccountRow = Schema.Struct({
  billingState: Schema.Literal("active", "past_due", "grace_over", "ended"),
  plan: PlanSchema,
  trialEndsAt: Schema.NullOr(Schema.DateFromSelf),
  pendingPlan: Schema.NullOr(PlanSchema),
  cancelAtPeriodEnd: Schema.Boolean,
  periodEnd: Schema.NullOr(Schema.DateFromSelf),
  pastDueSince: Schema.NullOr(Schema.DateFromSelf)
})
const decodeAccounts = (rows: ReadonlyArray<unknown>) =>
  Schema.decodeUnknown(Schema.Array(AccountRow))(rows).pipe(
    Effect.orDie,
    Effect.map((list) => list.map(({ billingState, ...rest }): BillingAccount => ({ state: billingState, ...rest })))
  )

/** The workspace's billing account, its row locked (FOR UPDATE) for the caller's transaction; None when there is none. */
export const lockBillingAccount = (workspaceId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
          SELECT billing_state, plan, trial_ends_at, pending_plan, cancel_at_period_end, period_end, past_due_since
          FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`.pipe(
      Effect.flatMap(decodeAccounts),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
  )

/** Stores the account a billing event left, and the event. */
export const saveBilling = (workspaceId: string, event: BillingEvent, after: BillingAccount) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
          UPDATE workspaces SET billing_state = ${after.state}, billing_event = ${event}, plan = ${after.plan},
            trial_ends_at = ${after.trialEndsAt}, pending_plan = ${after.pendingPlan}, cancel_at_period_end = ${after.cancelAtPeriodEnd},
            period_end = ${after.periodEnd}, past_due_since = ${after.pastDueSince}
          WHERE id = ${workspaceId}`
  )
