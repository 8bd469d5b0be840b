import type pg from "pg"

/** A one-channel post as POST /posts leaves it, queued: its workspace, channel, text and due time. */
export interface QueuedPost {
  readonly workspace: string
  readonly channel: string
  readonly text: string
  readonly due: Date
}

/**
 * Writes the posts straight to Postgres, a thousand to a transaction (the API's 90 posts an
 * hour per workspace would take hours to fill a benchmark's minute): each a group, a
 * channel post and its one item, queued.
 */
export const writeQueuedPosts = async (db: pg.Client, posts: ReadonlyArray<QueuedPost>) => {
  for (let from = 0; from < posts.length; from += 1000) {
    const batch = posts.slice(from, from + 1000).map((p) => ({
      ...p,
      group: crypto.randomUUID(),
      post: crypto.randomUUID(),
      item: crypto.randomUUID(),
      due: p.due.toISOString()
    }))
    const col = <K extends keyof (typeof batch)[number]>(k: K) => batch.map((b) => b[k])
    await db.query("BEGIN")
    await db.query(
      `INSERT INTO post_groups (id, workspace_id, status, publish_at, creation_method, share_token)
       SELECT g, w, 'scheduled', d, 'api', g::text FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[]) AS t(g, w, d)`,
      [col("group"), col("workspace"), col("due")]
    )
    await db.query(
      `INSERT INTO posts (id, group_id, workspace_id, channel_id, ordinal, status, publish_date)
       SELECT p, g, w, c, 1, 'queued', d FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[]) AS t(p, g, w, c, d)`,
      [col("post"), col("group"), col("workspace"), col("channel"), col("due")]
    )
    await db.query(
      `INSERT INTO post_items (id, post_id, workspace_id, position, content, status, due_at)
       SELECT i, p, w, 0, x, 'queued', d FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::timestamptz[]) AS t(i, p, w, x, d)`,
      [col("item"), col("post"), col("workspace"), col("text"), col("due")]
    )
    await db.query("COMMIT")
  }
}
