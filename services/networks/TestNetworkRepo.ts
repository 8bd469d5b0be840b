import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { withSpan } from "../platform/tracing.js"

/**
 * What the built-in test network holds (table test_network_posts): it is a simulated
 * network living in this service's database, so this repository is the only place with its
 * SQL and the adapter itself stays free of the database like every other adapter. Its
 * `stats` tool counts this service's posts of the channel, as a network counts its own.
 */
export class TestNetworkRepo extends Effect.Service<TestNetworkRepo>()("networks/TestNetworkRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Takes a post; answers its id. */
      add: (post: { readonly channelId: string; readonly itemId: string; readonly content: string }) =>
        Effect.gen(function* () {
          const id = crypto.randomUUID()
          yield* sql`INSERT INTO test_network_posts ${sql.insert({ id, channelId: post.channelId, itemId: post.itemId, content: post.content })}`
          return id
        }).pipe(withSpan("TestNetworkRepo.add")),
      /** The post published for an item, if any. */
      findByItem: (itemId: string) =>
        sql<{ id: string }>`SELECT id FROM test_network_posts WHERE item_id = ${itemId} ORDER BY created_at LIMIT 1`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]?.id)),
          withSpan("TestNetworkRepo.findByItem")
        ),
      /** The `stats` tool: the channel's posts in this service, per status. */
      postCountsByStatus: (channelId: string) =>
        sql<{ status: string; count: number }>`
          SELECT status, count(*)::int AS count FROM posts
          WHERE channel_id = ${channelId} AND deleted_at IS NULL GROUP BY status ORDER BY status`.pipe(
          Effect.map((rows) => Object.fromEntries(rows.map((r) => [r.status, r.count]))),
          withSpan("TestNetworkRepo.postCountsByStatus")
        )
    }
  })
}) {}
