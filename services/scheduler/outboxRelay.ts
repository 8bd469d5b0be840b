import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { headers as natsHeaders } from "nats"
import { Nats } from "../platform/nats.js"

const OutboxRow = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  event: Schema.String,
  data: Schema.Unknown,
  createdAt: Schema.DateFromSelf
})
const decodeRows = Schema.decodeUnknown(Schema.Array(OutboxRow))

/** The message on EVENTS: what the webhook dispatcher and notifications read. */
export const EventMessage = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  event: Schema.String,
  data: Schema.Unknown,
  createdAt: Schema.String
})

/**
 * Publishes outbox rows to JetStream EVENTS with `Nats-Msg-Id` = the row id (so a
 * repeat is dropped by the stream), then marks them. Rows are claimed with
 * SKIP LOCKED so several schedulers share the work; a crash between publish and
 * mark only causes a deduplicated repeat.
 */
export const relayOutbox = (batch = 200) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const nats = yield* Nats
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql`
          SELECT id, workspace_id, event, data, created_at FROM outbox
          WHERE published_at IS NULL ORDER BY created_at LIMIT ${batch} FOR UPDATE SKIP LOCKED`.pipe(
          Effect.flatMap(decodeRows)
        )
        for (const row of rows) {
          const h = natsHeaders()
          h.set("Nats-Msg-Id", row.id)
          const body = JSON.stringify({ ...row, createdAt: row.createdAt.toISOString() })
          yield* Effect.tryPromise(() => nats.jetstream.publish(nats.names.eventsSubject(row.event), body, { headers: h }))
        }
        if (rows.length > 0) yield* sql`UPDATE outbox SET published_at = now() WHERE id IN ${sql.in(rows.map((r) => r.id))}`
        return rows.length
      })
    )
  })
