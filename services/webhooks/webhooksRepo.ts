import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { plans, type Plan } from "../../domain/billing.js"

/**
 * SQL of webhooks (migration 0008). Every read answers the workspace's plan and the
 * webhook's rank by creation time, from which the plan limit's pause is derived.
 */

export const WebhookRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  name: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  channelIds: Schema.Array(Schema.String),
  active: Schema.Boolean,
  secret: Schema.instanceOf(Buffer),
  createdAt: Schema.DateFromSelf,
  plan: Schema.Literal(...plans),
  rank: Schema.Number
})
export type WebhookRow = typeof WebhookRow.Type
const decodeRows = Schema.decodeUnknown(Schema.Array(WebhookRow))

export interface WebhookFields {
  readonly name: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly channelIds: ReadonlyArray<string>
  readonly active: boolean
}

export const makeWebhooksRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // a text[] parameter, sent as JSON (the driver's array encoding is not needed for this)
  const textArray = (values: ReadonlyArray<string>) => sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))::text[]`

  /** Every webhook of the workspace, oldest first. */
  const list = (workspaceId: string) =>
    sql`
    SELECT * FROM (
      SELECT w.id, w.workspace_id, w.name, w.url, w.events, w.channel_ids, w.active, w.secret, w.created_at, ws.plan,
             row_number() OVER (PARTITION BY w.workspace_id ORDER BY w.created_at, w.id) AS rank
      FROM webhooks w JOIN workspaces ws ON ws.id = w.workspace_id
      WHERE w.workspace_id = ${workspaceId}) ranked
    ORDER BY created_at, id`.pipe(Effect.flatMap(decodeRows))

  const find = (workspaceId: string, id: string) => list(workspaceId).pipe(Effect.map((rows) => Option.fromNullable(rows.find((r) => r.id === id))))

  /** The plan and the number of webhooks, locking the workspace row so two creates cannot both pass the limit. */
  const countForCreate = (workspaceId: string) =>
    Effect.gen(function* () {
      const rows = yield* sql<{ plan: Plan; count: number }>`
        SELECT ws.plan, (SELECT count(*) FROM webhooks WHERE workspace_id = ws.id) AS count
        FROM workspaces ws WHERE ws.id = ${workspaceId} FOR UPDATE`
      return Option.fromNullable(rows[0])
    })

  const insert = (workspaceId: string, fields: WebhookFields, secret: Buffer) =>
    Effect.gen(function* () {
      const id = crypto.randomUUID()
      yield* sql`
        INSERT INTO webhooks (id, workspace_id, name, url, events, channel_ids, active, secret)
        VALUES (${id}, ${workspaceId}, ${fields.name}, ${fields.url}, ${textArray(fields.events)},
                ${textArray(fields.channelIds)}, ${fields.active}, ${secret})`
      return id
    })

  const update = (workspaceId: string, id: string, fields: WebhookFields) =>
    sql`
      UPDATE webhooks SET name = ${fields.name}, url = ${fields.url}, events = ${textArray(fields.events)},
        channel_ids = ${textArray(fields.channelIds)}, active = ${fields.active}
      WHERE workspace_id = ${workspaceId} AND id = ${id}`

  const setSecret = (workspaceId: string, id: string, secret: Buffer) =>
    sql`UPDATE webhooks SET secret = ${secret} WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(
      Effect.map((rows) => rows.length > 0)
    )

  /** Deletes the webhook with its deliveries and log; waiting retries go with them. */
  const remove = (workspaceId: string, id: string) =>
    sql`DELETE FROM webhooks WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))

  /** A webhook by id alone (the admin CLI names it without a workspace). */
  const findAnywhere = (id: string) =>
    sql<{ workspaceId: string }>`SELECT workspace_id FROM webhooks WHERE id = ${id}`.pipe(
      Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (r) => r.workspaceId))
    )

  return { list, find, countForCreate, insert, update, setSecret, remove, findAnywhere }
})

export type WebhooksRepo = Effect.Effect.Success<typeof makeWebhooksRepo>
