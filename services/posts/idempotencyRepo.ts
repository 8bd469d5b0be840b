import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { IDEMPOTENCY_TTL_MS, type StoredAnswer } from "../../domain/idempotency.js"
import { removedCount } from "../platform/pruning.js"

const StoredAnswerRow = Schema.Struct({ requestHash: Schema.String, statusCode: Schema.Number, response: Schema.Unknown })
const decodeStoredAnswers = Schema.decodeUnknown(Schema.Array(StoredAnswerRow))
const decodeKeyedAnswers = Schema.decodeUnknown(Schema.Array(Schema.extend(StoredAnswerRow, Schema.Struct({ key: Schema.String }))))

/** The cut-off of the 24-hour window (domain/idempotency.ts). */
const keptSince = (now: Date) => new Date(now.getTime() - IDEMPOTENCY_TTL_MS)

/** Idempotency-Key records of POST /posts (kept json, so a replay answers the same bytes). SQL only. */
export const makeIdempotencyRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  /** The answer kept for the key within its 24 hours. */
  const find = (workspaceId: string, key: string, now: Date) =>
    sql`
      SELECT request_hash, status_code, response FROM idempotency_keys
      WHERE workspace_id = ${workspaceId} AND key = ${key} AND created_at > ${keptSince(now)}`.pipe(
      Effect.flatMap(decodeStoredAnswers),
      Effect.map((rows): Option.Option<StoredAnswer> => Option.fromNullable(rows[0])),
      Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })
    )

  /** The answers kept for any of `keys` within their 24 hours, by key (an import's rows: one query for the file). */
  const findMany = (workspaceId: string, keys: ReadonlyArray<string>, now: Date) =>
    keys.length === 0
      ? Effect.succeed(new Map<string, StoredAnswer>())
      : sql`
      SELECT key, request_hash, status_code, response FROM idempotency_keys
      WHERE workspace_id = ${workspaceId} AND key IN ${sql.in(keys)} AND created_at > ${keptSince(now)}`.pipe(
          Effect.flatMap(decodeKeyedAnswers),
          Effect.map((rows) => new Map<string, StoredAnswer>(rows.map(({ key, ...stored }) => [key, stored]))),
          Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })
        )

  /**
   * Keeps a successful answer, in the caller's transaction. False when a live record for
   * the key exists already (another owner stored one first during a hand-over).
   */
  const save = (input: {
    readonly workspaceId: string
    readonly key: string
    readonly requestHash: string
    readonly statusCode: number
    readonly body: unknown
    readonly now: Date
  }) =>
    sql`
      INSERT INTO idempotency_keys ${sql.insert({
        workspaceId: input.workspaceId,
        key: input.key,
        requestHash: input.requestHash,
        statusCode: input.statusCode,
        response: JSON.stringify(input.body)
      })}
      ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
        response = EXCLUDED.response, created_at = now()
      WHERE idempotency_keys.created_at <= ${keptSince(input.now)}
      RETURNING key`.pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.catchTag("SqlError", Effect.die)
    )

  /**
   * Keeps the successful answers of many keys in one statement (an import's rows), in the
   * caller's transaction. Answers the keys it could not keep: a live record of another
   * owner holds them (then the caller's transaction must not commit its rows as they are).
   */
  const saveMany = (
    workspaceId: string,
    answers: ReadonlyArray<{ readonly key: string; readonly requestHash: string; readonly statusCode: number; readonly body: unknown }>,
    now: Date
  ) =>
    answers.length === 0
      ? Effect.succeed([] as ReadonlyArray<string>)
      : sql<{ key: string }>`
      INSERT INTO idempotency_keys ${sql.insert(
        answers.map((a) => ({ workspaceId, key: a.key, requestHash: a.requestHash, statusCode: a.statusCode, response: JSON.stringify(a.body) }))
      )}
      ON CONFLICT (workspace_id, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, status_code = EXCLUDED.status_code,
        response = EXCLUDED.response, created_at = now()
      WHERE idempotency_keys.created_at <= ${keptSince(now)}
      RETURNING key`.pipe(
          Effect.map((rows) => {
            const kept = new Set(rows.map((r) => r.key))
            return answers.flatMap((a) => (kept.has(a.key) ? [] : [a.key]))
          }),
          Effect.catchTag("SqlError", Effect.die)
        )

  /**
   * Removes up to `limit` records older than `seconds` (the retention job, with the 24 hours
   * of IDEMPOTENCY_TTL_MS): past them a key is free again, whether or not its row is gone.
   */
  const pruneBatch = (seconds: number, limit: number) =>
    sql`
      WITH gone AS (
        DELETE FROM idempotency_keys WHERE (workspace_id, key) IN (
          SELECT workspace_id, key FROM idempotency_keys WHERE created_at < now() - make_interval(secs => ${seconds})
          ORDER BY created_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`.pipe(Effect.flatMap(removedCount))

  return { find, findMany, save, saveMany, pruneBatch }
})

export class IdempotencyRepo extends Context.Tag("posts/IdempotencyRepo")<IdempotencyRepo, Effect.Effect.Success<typeof makeIdempotencyRepo>>() {
  static readonly Live = Layer.effect(IdempotencyRepo, makeIdempotencyRepo)
}
