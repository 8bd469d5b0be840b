import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Option, Schema } from "effect"
import { headers as natsHeaders } from "nats"
import { channelNamedBy, notificationFor } from "../../domain/notifications.js"
import { ServiceEvent } from "../../protocol/events.js"
import { Nats, type NatsShape } from "./nats.js"
import * as OutboxRepo from "./outboxRepo.js"
import type { OutboxRow } from "./outboxRepo.js"

/**
 * The outbox (docs/architecture.md, "Outbox"; rule 2 of "Rules every part keeps"): an event-producing change runs in
 * `Outbox.transaction` and writes its events with `Outbox.write`, so the change, its
 * outbox rows and the notifications they imply commit together. Right after the commit
 * the rows are published to JetStream EVENTS (`Nats-Msg-Id` = row id, so a repeat is
 * dropped) and marked; rows left behind (no NATS in this process, a failed publish, a
 * crash) are published by the scheduler's sweeper (`sweep`).
 */

/** The rows written in the current outbox transaction, published once it has committed. */
export class OutboxTransaction extends Context.Tag("OutboxTransaction")<OutboxTransaction, { readonly rowIds: Array<string> }>() {}

// a payload that does not fit its event's schema is a bug in its producer: a defect, never stored
const encodeEvents = Schema.encode(Schema.Array(ServiceEvent))

/**
 * Writes events and the notifications they imply (domain/notifications.ts) in the
 * caller's transaction; the row ids are published after its commit.
 */
export const write = (workspaceId: string, events: ReadonlyArray<ServiceEvent>) =>
  Effect.gen(function* () {
    if (events.length === 0) return []
    // the names the notifications show, read in the same transaction
    const named = [...new Set(events.flatMap((e) => channelNamedBy(e) ?? []))]
    const channelNames = new Map(named.length === 0 ? [] : (yield* OutboxRepo.channelNames(workspaceId, named)).map((c) => [c.id, c.name]))
    return yield* writeAll([{ workspaceId, events }], (id) => channelNames.get(id))
  })

/**
 * The outbox rows of events for a caller that writes them in a statement of its own (one
 * statement with data-modifying CTEs): encoded as `write` encodes them, with the
 * notifications they imply (channel names given by the caller, who has the channel rows).
 * `track` hands the row ids to the current collector once the statement ran.
 */
export const prepare = Effect.fnUntraced(function* (
  workspaceId: string,
  events: ReadonlyArray<ServiceEvent>,
  channelName: (id: string) => string | undefined
) {
  if (events.length === 0) return { outbox: [], notifications: [] }
  const encoded = yield* encodeEvents(events).pipe(Effect.orDie)
  const outbox = encoded.map((e) => ({ id: crypto.randomUUID(), workspaceId, event: e.event, data: e.data }))
  const notifications = events.flatMap((e) => {
    const channelId = channelNamedBy(e)
    const n = notificationFor(e, channelId === null ? undefined : channelName(channelId))
    return n === null ? [] : [{ id: crypto.randomUUID(), workspaceId, ...n }]
  })
  return { outbox, notifications }
})

/**
 * `write` for the events of several workspaces at once, in one statement for the events
 * and one for their notifications (the publisher's outcomes, many to a transaction). Rows
 * go in the order given, so each workspace's sequence follows its events' order; the
 * channel names a notification shows come from the caller.
 */
export const writeAll = (
  entries: ReadonlyArray<{ readonly workspaceId: string; readonly events: ReadonlyArray<ServiceEvent> }>,
  channelName: (id: string) => string | undefined
) =>
  Effect.gen(function* () {
    const prepared = yield* Effect.forEach(entries, (e) => prepare(e.workspaceId, e.events, channelName))
    const rows = prepared.flatMap((p) => p.outbox)
    if (rows.length === 0) return []
    yield* OutboxRepo.insertEvents(rows.map((r) => ({ ...r, data: JSON.stringify(r.data) })))
    const notifications = prepared.flatMap((p) => p.notifications)
    if (notifications.length > 0) yield* OutboxRepo.insertNotifications(notifications)
    const ids = rows.map((r) => r.id)
    yield* track(ids)
    return ids
  })

/** The rows a statement of the caller's wrote: published once it has committed. */
export const track = (rowIds: ReadonlyArray<string>) => Effect.map(OutboxTransaction, (pending) => void pending.rowIds.push(...rowIds))

/**
 * For one statement that commits by itself (no BEGIN/COMMIT around it): the rows it
 * tracked go to EVENTS right after it, as after an outbox transaction.
 */
export const statement = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, SqlClient.SqlClient | Exclude<R, OutboxTransaction>> =>
  Effect.suspend(() => {
    const pending = { rowIds: new Array<string>() }
    return Effect.tap(Effect.provideService(effect, OutboxTransaction, pending), () => publishAfterCommit(pending.rowIds))
  })

/**
 * `sql.withTransaction` for changes that write events: after the commit, the rows it
 * wrote go to EVENTS at once. Nested in another outbox transaction it is a savepoint
 * whose rows the outer one publishes. A publish failure is only logged: the rows stay
 * unpublished and the sweeper publishes them.
 */
export const transaction = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, SqlClient.SqlClient | Exclude<R, OutboxTransaction>> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const outer = yield* Effect.serviceOption(OutboxTransaction)
    if (Option.isSome(outer)) return yield* sql.withTransaction(Effect.provideService(effect, OutboxTransaction, outer.value))
    // inside a plain sql.withTransaction the commit is not ours to see: the sweeper publishes
    const inPlainTransaction = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
    const pending = { rowIds: new Array<string>() }
    const result = yield* sql.withTransaction(Effect.provideService(effect, OutboxTransaction, pending))
    if (!inPlainTransaction) yield* publishAfterCommit(pending.rowIds)
    return result
  })

/** Publishes rows to EVENTS, one message each, deduplicated by the stream on the row id. */
const publishRows = (nats: NatsShape, rows: ReadonlyArray<OutboxRow>) =>
  Effect.forEach(
    rows,
    (row) => {
      const h = natsHeaders()
      h.set("Nats-Msg-Id", row.id)
      // the webhook dispatcher continues the trace of the change (only set while tracing is on)
      if (row.traceParent !== null) h.set("traceparent", row.traceParent)
      // protocol/events.ts EventMessage; data was encoded by `write` and is sent as stored
      const message = { id: row.id, workspaceId: row.workspaceId, event: row.event, data: row.data, createdAt: row.createdAt.toISOString() }
      return Effect.tryPromise(() => nats.jetstream.publish(nats.names.eventsSubject(row.event), JSON.stringify(message), { headers: h }))
    },
    // sent in order on the one connection (each started in turn), acknowledged together
    { discard: true, concurrency: PUBLISH_CONCURRENCY }
  )

/** Outbox rows on their way to EVENTS at once. */
const PUBLISH_CONCURRENCY = 32

/**
 * After a commit: publishes the given rows that are still unpublished, then marks them.
 * Rows are read back first, so ids of a rolled-back savepoint publish nothing. A change
 * without events (most new posts) costs nothing here: no timeout is raced (two fibers
 * and a timer on every write).
 */
const publishAfterCommit = (rowIds: ReadonlyArray<string>) => (rowIds.length === 0 ? Effect.void : publishRowsAfterCommit(rowIds))

const publishRowsAfterCommit = (rowIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const nats = yield* Effect.serviceOption(Nats)
    if (Option.isNone(nats)) return // a process without NATS (the admin CLI): the sweeper publishes
    const rows = yield* OutboxRepo.unpublished(rowIds)
    if (rows.length === 0) return
    yield* publishRows(nats.value, rows)
    yield* OutboxRepo.markPublishedIfNot(rows.map((r) => r.id))
  }).pipe(
    Effect.timeout("5 seconds"),
    Effect.catchAllCause((cause) => Effect.logWarning("outbox: publishing after commit failed; the sweeper will publish", cause))
  )

/**
 * The sweeper: publishes rows left unpublished for longer than `olderThanSeconds`
 * (a failed publish after commit, a crash, a process without NATS). Rows are claimed
 * with FOR UPDATE SKIP LOCKED, so scheduler replicas share them; a crash between
 * publish and mark only causes a repeat that the stream drops.
 */
export const sweep = (options: { readonly olderThanSeconds: number; readonly batch?: number }) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const nats = yield* Nats
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* OutboxRepo.claimLeftBehind(options.olderThanSeconds, options.batch ?? 200)
        if (rows.length === 0) return 0
        yield* publishRows(nats, rows)
        yield* OutboxRepo.markPublished(rows.map((r) => r.id))
        return rows.length
      })
    )
  })
