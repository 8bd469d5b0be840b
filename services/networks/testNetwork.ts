import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import type { NetworkAdapter } from "./adapter.js"

const EchoData = Schema.Struct({ text: Schema.String })

/** Where a test-network post can be looked at (it exists only in this service's database). */
const releaseUrl = (id: string) => `test-network://posts/${id}`

/**
 * The built-in test network: it publishes into its own table and nowhere else, so
 * the whole publishing path (attempts, outcomes, search) runs without network keys.
 */
export const testNetworkAdapter: NetworkAdapter = {
  identifier: "test",
  runTool: ({ channel, data, methodName }) => {
    switch (methodName) {
      case "echo":
        return Schema.decodeUnknown(EchoData)(data).pipe(
          Effect.map(({ text }) => ({ text })),
          Effect.mapError(() => Errors.badRequest("The tool echo needs data.text, a string."))
        )
      case "stats":
        return Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<{ status: string; count: number }>`
            SELECT status, count(*)::int AS count FROM posts
            WHERE channel_id = ${channel.id} AND deleted_at IS NULL GROUP BY status ORDER BY status`
          return { channelId: channel.id, posts: Object.fromEntries(rows.map((r) => [r.status, r.count])) }
        }).pipe(Effect.orDie)
      default:
        return Effect.fail(Errors.badRequest(`Unknown tool ${methodName}.`))
    }
  },
  publish: (request) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const id = crypto.randomUUID()
      yield* sql`INSERT INTO test_network_posts ${sql.insert({ id, channelId: request.channelId, itemId: request.itemId, content: request.content })}`
      return { _tag: "Published" as const, releaseId: id, releaseUrl: releaseUrl(id) }
    }).pipe(Effect.catchAll((e) => Effect.succeed({ _tag: "NoAnswer" as const, reason: String(e) }))),
  search: (request) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ id: string }>`SELECT id FROM test_network_posts WHERE item_id = ${request.itemId} LIMIT 1`
      const found = rows[0]
      return found === undefined ? Option.none() : Option.some({ releaseId: found.id, releaseUrl: releaseUrl(found.id) })
    }).pipe(Effect.mapError(() => "cannot_tell" as const))
}
