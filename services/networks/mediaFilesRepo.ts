import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"

/**
 * The one read of table media a network upload needs: where a post's file is stored. The
 * media library's own SQL is services/media/mediaRepo.ts.
 */

// media.id is a uuid column: any other id is compared by path only, never cast
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const StorageKeyRow = Schema.Struct({ storageKey: Schema.String })
const decodeKeys = Schema.decodeUnknown(Schema.Array(StorageKeyRow))

export const makeMediaFilesRepo = Effect.map(SqlClient.SqlClient, (sql) => ({
  /** The storage key of a library file, found by its id or by its address; None for a file from elsewhere. */
  storageKeyOf: (media: { readonly id: string; readonly url: string }) => {
    const byId = uuidPattern.test(media.id) ? sql`id = ${media.id} OR ` : sql``
    return sql`SELECT storage_key FROM media WHERE ${byId} path = ${media.url} LIMIT 1`.pipe(
      Effect.flatMap(decodeKeys),
      Effect.map((rows) => Option.fromNullable(rows[0]?.storageKey))
    )
  }
}))
