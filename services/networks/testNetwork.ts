import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Errors } from "../../domain/errors.js"
import type { NetworkAdapter } from "./adapter.js"

const EchoData = Schema.Struct({ text: Schema.String })

/** The built-in test network: publishes nowhere; its tools answer from real data. */
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
  }
}
