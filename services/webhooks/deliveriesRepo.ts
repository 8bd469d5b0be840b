import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { plans } from "../../domain/billing.js"
import { LOG_SHOWN, MAX_ATTEMPTS } from "../../domain/webhooks.js"
import { removedCount } from "../platform/pruning.js"

/**
 * SQL of webhook deliveries (migration 0008): one row per (event, webhook), claimed by one
 * dispatcher at a time with a lease (FOR UPDATE SKIP LOCKED, so replicas share the work),
 * and the attempt log. A claim also starts the attempt (`started_at`): a claim that finds
 * an earlier start without an outcome knows that attempt was cut off by a crash.
 */

/** A claimed delivery with what its attempt needs of the webhook, read at claim time. */
export const ClaimedDelivery = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  webhookId: Schema.String,
  event: Schema.String,
  data: Schema.String,
  attempt: Schema.Number,
  maxAttempts: Schema.Number,
  claimToken: Schema.String,
  /** The event's number in its workspace's event log (X-Service-Sequence); null for a Send Test. */
  sequence: Schema.NullOr(Schema.NumberFromString),
  /** The start of an earlier attempt that never recorded its outcome. */
  interruptedAt: Schema.NullOr(Schema.DateFromSelf),
  url: Schema.String,
  active: Schema.Boolean,
  secret: Schema.instanceOf(Buffer),
  plan: Schema.Literal(...plans),
  rank: Schema.Number
})
export type ClaimedDelivery = typeof ClaimedDelivery.Type

const decodeClaimed = Schema.decodeUnknown(Schema.Array(ClaimedDelivery))

export const LogEntry = Schema.Struct({
  id: Schema.String,
  deliveryId: Schema.String,
  createdAt: Schema.DateFromSelf,
  event: Schema.String,
  status: Schema.NullOr(Schema.Number),
  error: Schema.NullOr(Schema.String),
  attempt: Schema.Number,
  ok: Schema.Boolean
})
export type LogEntry = typeof LogEntry.Type
const decodeLog = Schema.decodeUnknown(Schema.Array(LogEntry))

/** One attempt's result, as logged. */
export interface AttemptResult {
  readonly status: number | null
  readonly error: string | null
  readonly ok: boolean
  readonly sentAt: Date
}

/** One attempt to log, and what follows it (`nextAt` null: no further attempt). */
export interface RecordedAttempt {
  readonly delivery: ClaimedDelivery
  readonly logId: string
  readonly attempt: number
  readonly result: AttemptResult
  readonly nextAt: Date | null
}

export interface NewDelivery {
  readonly workspaceId: string
  readonly webhookId: string
  readonly eventId: string | null
  readonly event: string
  /** The event's data as JSON text, sent exactly as stored. */
  readonly data: string
  readonly eventCreatedAt: Date
  readonly maxAttempts: number
}

export const makeDeliveriesRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** Webhook fields joined into every claim: the current secret, switched on, rank for the plan limit. */
  const claimReturning = (alias: string) =>
    sql.unsafe(`
    ${alias}.id, ${alias}.workspace_id, ${alias}.webhook_id, ${alias}.event, ${alias}.data, ${alias}.attempt,
    ${alias}.max_attempts, ${alias}.claim_token, w.url, w.active, w.secret, ws.plan,
    (SELECT o.sequence::text FROM outbox o WHERE o.id = ${alias}.event_id) AS sequence,
    (SELECT count(*) FROM webhooks o WHERE o.workspace_id = w.workspace_id AND (o.created_at, o.id) <= (w.created_at, w.id)) AS rank`)

  /**
   * Records the deliveries of an event before any attempt; a redelivered event finds its
   * rows and adds none. Answers the ids inserted now.
   */
  const insert = (rows: ReadonlyArray<NewDelivery>) =>
    rows.length === 0
      ? Effect.succeed([] as ReadonlyArray<string>)
      : sql<{ id: string }>`
          INSERT INTO webhook_deliveries ${sql.insert(rows.map((r) => ({ id: crypto.randomUUID(), ...r })))}
          ON CONFLICT (event_id, webhook_id) DO NOTHING RETURNING id`.pipe(Effect.map((r) => r.map((x) => x.id)))

  /** A Send Test: inserted already claimed and started, so only its caller attempts it. */
  const insertClaimed = (row: NewDelivery, leaseMs: number) =>
    Effect.gen(function* () {
      const id = crypto.randomUUID()
      const rows = yield* sql`
        WITH d AS (
          INSERT INTO webhook_deliveries ${sql.insert({ id, ...row, leaseUntil: new Date(Date.now() + leaseMs), claimToken: crypto.randomUUID(), startedAt: new Date() })}
          RETURNING *)
        SELECT ${claimReturning("d")}, NULL::timestamptz AS interrupted_at
        FROM d JOIN webhooks w ON w.id = d.webhook_id JOIN workspaces ws ON ws.id = w.workspace_id`.pipe(Effect.flatMap(decodeClaimed))
      return rows[0]
    })

  /**
   * Claims up to `limit` due deliveries, at most `perWebhook` in
   * flight per webhook across every dispatcher, so one slow receiver cannot take every slot.
   */
  const claim = (options: { readonly limit: number; readonly leaseMs: number; readonly perWebhook: number }) =>
    options.limit <= 0
      ? Effect.succeed([] as ReadonlyArray<ClaimedDelivery>)
      : sql`
        WITH candidates AS (
          SELECT id, webhook_id, next_attempt_at, started_at FROM webhook_deliveries
          WHERE state = 'pending' AND next_attempt_at <= clock_timestamp()
            AND (lease_until IS NULL OR lease_until < clock_timestamp())
          ORDER BY next_attempt_at LIMIT ${options.limit * 4} FOR UPDATE SKIP LOCKED),
        busy AS (
          SELECT webhook_id, count(*) AS n FROM webhook_deliveries
          WHERE state = 'pending' AND lease_until >= clock_timestamp() AND webhook_id IN (SELECT webhook_id FROM candidates)
          GROUP BY webhook_id),
        ranked AS (
          SELECT c.*, row_number() OVER (PARTITION BY c.webhook_id ORDER BY c.next_attempt_at) AS r FROM candidates c),
        picked AS (
          SELECT ranked.id, ranked.started_at FROM ranked LEFT JOIN busy USING (webhook_id)
          WHERE ranked.r + coalesce(busy.n, 0) <= ${options.perWebhook}
          ORDER BY ranked.next_attempt_at LIMIT ${options.limit})
        UPDATE webhook_deliveries d
        SET lease_until = clock_timestamp() + make_interval(secs => ${options.leaseMs / 1000}),
            claim_token = gen_random_uuid(), started_at = clock_timestamp()
        FROM picked, webhooks w, workspaces ws
        WHERE d.id = picked.id AND w.id = d.webhook_id AND ws.id = w.workspace_id
        RETURNING ${claimReturning("d")}, picked.started_at AS interrupted_at`.pipe(Effect.flatMap(decodeClaimed))

  /**
   * An attempt cut off by a crash (claimed, never finished): logged as failed with no
   * answer, so the log is complete; the claim goes on with the next attempt.
   */
  const closeInterrupted = (d: ClaimedDelivery, at: Date, error: string) =>
    sql`
      WITH log AS (
        INSERT INTO webhook_attempts (id, delivery_id, webhook_id, event, attempt, status, error, ok, created_at)
        SELECT ${crypto.randomUUID()}, id, webhook_id, event, attempt, NULL, ${error}, false, ${at}
        FROM webhook_deliveries WHERE id = ${d.id} AND claim_token = ${d.claimToken}
        ON CONFLICT (delivery_id, attempt) DO NOTHING)
      UPDATE webhook_deliveries SET attempt = attempt + 1 WHERE id = ${d.id} AND claim_token = ${d.claimToken}`

  /**
   * Logs attempts and moves each delivery on: done, failed, or the next attempt at
   * `nextAt`; one statement for the whole batch. Fenced by each claim.
   */
  const recordAttempts = (batch: ReadonlyArray<RecordedAttempt>) => {
    if (batch.length === 0) return Effect.void
    const rows = batch.map(({ delivery, logId, attempt, result, nextAt }) => {
      const state = result.ok ? "delivered" : nextAt === null ? "failed" : "pending"
      return {
        id: delivery.id,
        claim_token: delivery.claimToken,
        log_id: logId,
        attempt,
        status: result.status,
        error: result.error,
        ok: result.ok,
        sent_at: result.sentAt.toISOString(),
        state,
        next_attempt: state === "pending" ? attempt + 1 : attempt,
        next_at: (nextAt ?? result.sentAt).toISOString()
      }
    })
    return sql`
      WITH input AS (
        SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS i(
          id uuid, claim_token uuid, log_id uuid, attempt int, status int, error text, ok boolean,
          sent_at timestamptz, state text, next_attempt int, next_at timestamptz)),
      log AS (
        INSERT INTO webhook_attempts (id, delivery_id, webhook_id, event, attempt, status, error, ok, created_at)
        SELECT i.log_id, d.id, d.webhook_id, d.event, i.attempt, i.status, i.error, i.ok, i.sent_at
        FROM input i JOIN webhook_deliveries d ON d.id = i.id AND d.claim_token = i.claim_token
        ON CONFLICT (delivery_id, attempt) DO NOTHING)
      UPDATE webhook_deliveries d
      SET state = i.state, attempt = i.next_attempt, next_attempt_at = i.next_at,
          lease_until = NULL, claim_token = NULL, started_at = NULL,
          finished_at = CASE WHEN i.state = 'pending' THEN NULL ELSE now() END
      FROM input i
      WHERE d.id = i.id AND d.claim_token = i.claim_token`.pipe(Effect.asVoid)
  }

  /** One attempt (recordAttempts of one). */
  const recordAttempt = (d: ClaimedDelivery, logId: string, attempt: number, result: AttemptResult, next: { readonly nextAt: Date | null }) =>
    recordAttempts([{ delivery: d, logId, attempt, result, nextAt: next.nextAt }])

  /** No more attempts: `stopped` (the webhook was switched off or paused) or `failed` (attempts used up). */
  const finish = (d: ClaimedDelivery, state: "stopped" | "failed") =>
    sql`UPDATE webhook_deliveries SET state = ${state}, lease_until = NULL, claim_token = NULL, started_at = NULL, finished_at = now()
        WHERE id = ${d.id} AND claim_token = ${d.claimToken}`

  /** The last attempts of a webhook, newest first. */
  const log = (webhookId: string) =>
    sql`SELECT id, delivery_id, created_at, event, status, error, attempt, ok FROM webhook_attempts
        WHERE webhook_id = ${webhookId} ORDER BY created_at DESC, attempt DESC LIMIT ${LOG_SHOWN}`.pipe(Effect.flatMap(decodeLog))

  /**
   * Sends a delivery again (POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver):
   * pending now, for one more attempt, keeping its id (the `webhook-id` receivers saw).
   * Only a delivery of this webhook that is not pending already; whether it was.
   */
  const redeliver = (webhookId: string, deliveryId: string) =>
    sql<{ id: string }>`
      UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = clock_timestamp(), finished_at = NULL,
        attempt = attempt + 1, max_attempts = attempt + 1
      WHERE id = ${deliveryId} AND webhook_id = ${webhookId} AND state <> 'pending' AND event_id IS NOT NULL
      RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))

  /** Whether the webhook has this delivery of an event (a Send Test's is not one). */
  const hasDelivery = (webhookId: string, deliveryId: string) =>
    sql<{ state: string }>`SELECT state FROM webhook_deliveries WHERE id = ${deliveryId} AND webhook_id = ${webhookId} AND event_id IS NOT NULL`.pipe(
      Effect.map((rows) => rows[0]?.state ?? null)
    )

  /**
   * Replay (POST /api/webhooks/{id}/replay): the events of the log after `after` that the
   * webhook receives (`matches`, checked by the caller), sent again each with the
   * `webhook-id` it had: a finished delivery is pending again for one more attempt, a
   * pending one is left to its schedule, an event it never had gets its first delivery.
   * Answers how many were queued.
   */
  const replay = (input: {
    readonly workspaceId: string
    readonly webhookId: string
    readonly events: ReadonlyArray<{ readonly eventId: string; readonly event: string; readonly data: string; readonly createdAt: Date }>
  }) =>
    Effect.gen(function* () {
      if (input.events.length === 0) return 0
      const ids = input.events.map((e) => e.eventId)
      const again = yield* sql<{ id: string }>`
        UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = clock_timestamp(), finished_at = NULL,
          attempt = attempt + 1, max_attempts = attempt + 1
        WHERE webhook_id = ${input.webhookId} AND event_id IN ${sql.in(ids)} AND state <> 'pending'
        RETURNING id`
      const fresh = yield* insert(
        input.events.map((e) => ({
          workspaceId: input.workspaceId,
          webhookId: input.webhookId,
          eventId: e.eventId,
          event: e.event,
          data: e.data,
          eventCreatedAt: e.createdAt,
          maxAttempts: MAX_ATTEMPTS
        }))
      )
      return again.length + fresh.length
    })

  /** Removes up to `limit` logged attempts older than `seconds` (the retention job, with the log's 30 days). */
  const pruneAttempts = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM webhook_attempts WHERE id IN (
          SELECT id FROM webhook_attempts WHERE created_at < now() - make_interval(secs => ${seconds})
          ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  /** Removes up to `limit` deliveries finished more than `seconds` ago (a pending one is never removed). */
  const pruneDeliveries = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM webhook_deliveries WHERE id IN (
          SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND finished_at < now() - make_interval(secs => ${seconds})
          ORDER BY finished_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return {
    insert,
    insertClaimed,
    claim,
    closeInterrupted,
    recordAttempts,
    recordAttempt,
    finish,
    log,
    redeliver,
    hasDelivery,
    replay,
    pruneAttempts,
    pruneDeliveries
  }
})

export type DeliveriesRepo = Effect.Effect.Success<typeof makeDeliveriesRepo>
