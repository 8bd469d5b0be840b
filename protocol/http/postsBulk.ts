import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../../domain/idempotency.js"
import { IMPORT_MAX_ROWS, ROWS_PER_REQUEST } from "../../domain/posts/importFile.js"
import { optionalParam } from "./common.js"
import { Forbidden, IdempotencyKeyReused, IdempotencyKeyRunning, InvalidDate, InvalidRequest, TooManyRequests } from "./errors.js"
import { Authentication } from "./security.js"

/** One row's answer of POST /posts/import. */
export const ImportRowAnswer = Schema.Struct({
  row: Schema.Number.annotations({ description: "1 for the first post of the file (the line after a CSV header)" }),
  status: Schema.Literal("saved", "refused", "valid").annotations({ description: "valid: the row would be saved (dryRun=true)" }),
  group: Schema.optional(Schema.String.annotations({ description: "saved: the group id of the post the row made" })),
  postIds: Schema.optional(Schema.Array(Schema.String).annotations({ description: "saved: one id per channel" })),
  error: Schema.optional(Schema.String.annotations({ description: "refused: the message POST /posts would answer for this row" })),
  msg: Schema.optional(Schema.String),
  fix: Schema.optional(Schema.String),
  code: Schema.optional(Schema.String),
  errors: Schema.optional(Schema.Array(Schema.Struct({ channelId: Schema.String, channelName: Schema.String, message: Schema.String })))
}).annotations({ identifier: "ImportRowAnswer" })

export const ImportAnswer = Schema.Struct({
  dryRun: Schema.Boolean,
  saved: Schema.Number,
  refused: Schema.Number,
  rows: Schema.Array(ImportRowAnswer)
}).annotations({ identifier: "ImportAnswer" })

/** One line of GET /posts/export (format=jsonl; the CSV has the same columns). */
export const ExportLine = Schema.Struct({
  date: Schema.String.annotations({ description: "ISO 8601 UTC" }),
  group: Schema.String,
  postId: Schema.String,
  channels: Schema.String.annotations({ description: "The channel id (the import's column name)" }),
  channelName: Schema.String,
  network: Schema.String,
  status: Schema.String,
  content: Schema.String.annotations({ description: "The first item's text" }),
  releaseUrl: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  tags: Schema.String.annotations({ description: "Tag names separated by ;" })
}).annotations({ identifier: "ExportLine" })
// made from the fields (no identifier): the document has no $defs for a $ref to point into
const { $schema: _ignored, ...exportLineJsonSchema } = JSONSchema.make(Schema.Struct(ExportLine.fields))
/** The JSON lines answer of GET /posts/export, which HttpApi cannot declare beside the CSV (one content type a status). */
export { exportLineJsonSchema }

const ImportFileDescription = `Header line date,channels,content,media,settings,tags, then one post a line (at most ${IMPORT_MAX_ROWS}); RFC 4180 quoting`

/** The file as the body (CSV or JSON lines) or as the multipart field `file`. */
const ImportPayload = Schema.Union(
  HttpApiSchema.Text({ contentType: "text/csv" }).annotations({ description: ImportFileDescription }),
  HttpApiSchema.Uint8Array({ contentType: "application/x-ndjson" }).annotations({
    description: "One JSON object a line: {date, channels, content, media, settings, tags}"
  }),
  HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema.annotations({ description: "A .csv or .jsonl file" }) }))
)

export const PostsBulkApi = HttpApiGroup.make("postsBulk")
  .add(
    HttpApiEndpoint.post("importPosts", "/posts/import")
      .setPayload(ImportPayload)
      .setUrlParams(Schema.Struct({ dryRun: optionalParam(Schema.String.annotations({ description: "true: check every row, save nothing" })) }))
      .setHeaders(
        Schema.Struct({
          "idempotency-key": Schema.optional(
            Schema.String.annotations({
              description: "Covers the whole file: row n is saved under `<key>:row-<n>`, so sending the file again saves no row twice",
              jsonSchema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH - 9 }
            })
          )
        })
      )
      .addSuccess(ImportAnswer)
      .addError(InvalidRequest)
      .addError(IdempotencyKeyReused)
      .addError(IdempotencyKeyRunning)
      .addError(TooManyRequests)
      .annotate(OpenApi.Summary, "Import posts from a CSV or JSON lines file")
      .annotate(
        OpenApi.Description,
        "Every row is read into the POST /posts body it stands for (type schedule, its channels separated by ;, media URLs or library paths " +
          "separated by ;, settings as JSON, tags separated by ;) and checked with the rules of POST /posts before anything is saved; each row " +
          `answers saved, valid (dryRun=true) or refused with the 400 body POST /posts would send. Counts ${ROWS_PER_REQUEST} rows as one ` +
          "request of POST /posts' 90 an hour; over it 429 and nothing is saved."
      )
  )
  .add(
    HttpApiEndpoint.get("exportPosts", "/posts/export")
      .setUrlParams(
        Schema.Struct({
          startDate: optionalParam(Schema.String.annotations({ description: "ISO 8601; default 30 days ago" })),
          endDate: optionalParam(Schema.String.annotations({ description: "ISO 8601; default 30 days from now" })),
          format: optionalParam(Schema.String.annotations({ description: "csv (default) or jsonl" }))
        })
      )
      .addSuccess(
        HttpApiSchema.Text({ contentType: "text/csv" }).annotations({ description: "CSV with a header line; format=jsonl: JSON lines (ExportLine)" })
      )
      .addError(InvalidRequest)
      .addError(InvalidDate)
      .annotate(OpenApi.Summary, "Export the posts of a range as CSV or JSON lines")
      .annotate(
        OpenApi.Description,
        "One line per channel post, oldest first: date, group, post id, channel, status, content, release URL, error, tags. Streamed; " +
          "the range is GET /posts' (default 30 days back to 30 ahead)."
      )
  )
  .annotate(OpenApi.Title, "Posts")
  .addError(Forbidden)
  .middleware(Authentication)
