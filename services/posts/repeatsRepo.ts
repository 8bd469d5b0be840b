import { SqlClient } from "@effect/sql"
import { randomBytes } from "node:crypto"
import { Context, Effect, Layer, Option, Schema } from "effect"

const CreatedRow = Schema.Struct({ id: Schema.String })
const decodeCreated = Schema.decodeUnknown(Schema.Array(CreatedRow))
const RepeatingRow = Schema.Struct({ id: Schema.String, publishAt: Schema.DateFromSelf, repeatDays: Schema.Number })
const decodeRepeating = Schema.decodeUnknown(Schema.Array(RepeatingRow))

/**
 * The next occurrence of a repeating post (domain/posts/repeat.ts decides its time). SQL
 * only; runs in the caller's transaction (the publisher's: the one that records the
 * outcome; the scheduler's sweep: its own).
 */
export const makeRepeatsRepo = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  /** The occurrence `g` still has a channel to repeat on (a series whose channels were all removed ends). */
  const hasConnectedChannel = sql`EXISTS (
    SELECT 1 FROM posts p JOIN channels c ON c.id = p.channel_id AND c.deleted_at IS NULL
    WHERE p.group_id = g.id AND p.deleted_at IS NULL)`

  /**
   * Copies the occurrence `groupId` to `publishAt`: the whole post (scheduled, same repeat,
   * tags, approval already given), one queued channel post per channel still connected,
   * with the same settings and items (the first due at `publishAt`, follow-ups after it).
   * Once per occurrence (unique `repeat_of`): the id of the new occurrence, or None when
   * it exists already, the occurrence is not repeating (any more) or none of its channels
   * is still connected.
   */
  const createNextOccurrence = (groupId: string, publishAt: Date) =>
    Effect.gen(function* () {
      const id = crypto.randomUUID()
      const created = yield* sql`
        INSERT INTO post_groups (id, workspace_id, status, approval_status, approved_by, publish_at, repeat_days,
                                 short_link, creation_method, author, share_token, repeat_of)
        SELECT ${id}, workspace_id, 'scheduled', approval_status, approved_by, ${publishAt}, repeat_days,
               short_link, creation_method, author, ${randomBytes(24).toString("base64url")}, id
        FROM post_groups g WHERE id = ${groupId} AND repeat_days IS NOT NULL AND deleted_at IS NULL AND ${hasConnectedChannel}
        ON CONFLICT (repeat_of) DO NOTHING
        RETURNING id`.pipe(Effect.flatMap(decodeCreated))
      if (created.length === 0) return Option.none<string>()
      yield* sql`
        INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, settings, publish_date)
        SELECT gen_random_uuid(), ${id}, p.workspace_id, p.channel_id, p.ordinal, 'queued', p.settings, ${publishAt}
        FROM posts p JOIN channels c ON c.id = p.channel_id AND c.deleted_at IS NULL
        WHERE p.group_id = ${groupId} AND p.deleted_at IS NULL`
      yield* sql`
        INSERT INTO post_items (id, post_id, workspace_id, position, content, media, delay_minutes, status, due_at)
        SELECT gen_random_uuid(), next.id, i.workspace_id, i.position, i.content, i.media, i.delay_minutes, 'queued',
               CASE WHEN i.position = 0 THEN ${publishAt}::timestamptz END
        FROM posts next
        JOIN posts prev ON prev.group_id = ${groupId} AND prev.channel_id = next.channel_id AND prev.deleted_at IS NULL
        JOIN post_items i ON i.post_id = prev.id
        WHERE next.group_id = ${id}`
      yield* sql`INSERT INTO post_tags (group_id, tag_id) SELECT ${id}, tag_id FROM post_tags WHERE group_id = ${groupId}`
      yield* sql`INSERT INTO post_activity (group_id, actor, action, detail) VALUES (${id}, 'System', 'created', ${`repeats ${groupId}`})`
      return Option.some(id)
    })

  /**
   * Occurrences that went live (a channel published, by the publisher or linked with PUT
   * /posts/{id}/release-id) and repeat, but have no next occurrence yet: what the
   * scheduler's sweep completes, oldest first.
   */
  const liveWithoutNext = (limit: number) =>
    sql`
      SELECT g.id, g.publish_at, g.repeat_days FROM post_groups g
      WHERE g.repeat_days IS NOT NULL AND g.deleted_at IS NULL
        AND NOT EXISTS (SELECT 1 FROM post_groups n WHERE n.repeat_of = g.id)
        AND EXISTS (SELECT 1 FROM posts p WHERE p.group_id = g.id AND p.status = 'published' AND p.deleted_at IS NULL)
        AND ${hasConnectedChannel}
      ORDER BY g.publish_at LIMIT ${limit}`.pipe(Effect.flatMap(decodeRepeating))

  return { createNextOccurrence, liveWithoutNext }
})

export class RepeatsRepo extends Context.Tag("posts/RepeatsRepo")<RepeatsRepo, Effect.Effect.Success<typeof makeRepeatsRepo>>() {
  static readonly Live = Layer.effect(RepeatsRepo, makeRepeatsRepo)
}
