import { Either, Schema } from "effect"
import { Errors, type InvalidRequest } from "../errors.js"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../requests.js"

/**
 * POST /posts/import: a file of posts, one a row, read into the POST /posts body each row
 * stands for, so every row meets exactly the rules (and messages) of POST /posts.
 * CSV (RFC 4180: quoted fields may hold commas, quotes and line breaks) or JSON lines.
 */

/** At most this many rows a file (the body itself is limited to 5 MB like every body). */
export const IMPORT_MAX_ROWS = 5000
/** One POST /posts carries at most 100 channels: an import counts one request per 100 rows. */
export const ROWS_PER_REQUEST = 100

export type ImportFormat = "csv" | "jsonl"

/** A row's own fields, as the file gives them. */
export interface ImportRow {
  readonly date: string
  readonly channels: string
  readonly content: string
  readonly media: string
  readonly settings: string
  readonly tags: string
}

/** A row of the file: the body it stands for, or why it cannot stand for one. */
export type ReadRow = { readonly row: number; readonly body: unknown } | { readonly row: number; readonly refused: InvalidRequest }

const COLUMNS = ["date", "channels", "content", "media", "settings", "tags"] as const
const REQUIRED = ["date", "channels", "content"] as const

/** The requests an import counts in the 90-an-hour window of POST /posts. */
export const requestsOf = (rows: number) => Math.max(1, Math.ceil(rows / ROWS_PER_REQUEST))

/** CSV records (RFC 4180), or the 1-based line where a quote is never closed. */
export const parseCsv = (text: string): Either.Either<ReadonlyArray<ReadonlyArray<string>>, number> => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let field = ""
  let quoted = false
  let line = 1
  let quoteLine = 0
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const endRecord = () => {
    record.push(field)
    field = ""
    // a blank line is no row
    if (!(record.length === 1 && record[0] === "")) records.push(record)
    record = []
  }
  for (; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else {
        if (c === "\n") line++
        field += c
      }
    } else if (c === '"' && field === "") {
      quoted = true
      quoteLine = line
    } else if (c === ",") {
      record.push(field)
      field = ""
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++
      line++
      endRecord()
    } else field += c
  }
  if (quoted) return Either.left(quoteLine)
  if (field !== "" || record.length > 0) endRecord()
  return Either.right(records)
}

const splitList = (text: string) =>
  text
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "")

const JsonObject = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const decodeSettings = Schema.decodeUnknownEither(JsonObject)

/** The POST /posts body (full form, type schedule) a row stands for; settings that are not a JSON object refuse the row. */
export const bodyOfRow = (r: ImportRow): Either.Either<unknown, InvalidRequest> => {
  const settingsText = r.settings.trim()
  if (nestsDeeperThan(settingsText, MAX_JSON_DEPTH)) return Either.left(Errors.nestedTooDeep(MAX_JSON_DEPTH))
  const settings = settingsText === "" ? Either.right(undefined) : decodeSettings(settingsText)
  if (Either.isLeft(settings)) {
    return Either.left(
      Errors.badRequest("The settings of this row are not a JSON object.", 'Write settings as a JSON object, for example {"key": "value"}.')
    )
  }
  const channels = splitList(r.channels)
  if (channels.length === 0) return Either.left(Errors.badRequest("This row names no channel.", "Give one or more channel ids separated by ;."))
  const media = splitList(r.media).map((path) => ({ path }))
  const tags = splitList(r.tags)
  return Either.right({
    type: "schedule",
    date: r.date.trim(),
    ...(tags.length === 0 ? {} : { tags }),
    posts: channels.map((id) => ({
      integration: { id },
      value: [{ content: r.content, ...(media.length === 0 ? {} : { image: media }) }],
      ...(settings.right === undefined ? {} : { settings: settings.right })
    }))
  })
}

const tooMany = () => Errors.badRequest(`The file has more than ${IMPORT_MAX_ROWS} rows.`, `Split it into files of at most ${IMPORT_MAX_ROWS} rows.`)
const noRows = () => Errors.badRequest("The file has no rows.", "Send a header line and one post a line.")

const fieldText = (value: unknown): string =>
  value === undefined || value === null
    ? ""
    : typeof value === "string"
      ? value
      : Array.isArray(value)
        ? value.map(fieldText).join(";")
        : JSON.stringify(value)

/** The file's rows (row 1 is the first post), or the refusal of the whole file. */
export const readImportFile = (text: string, format: ImportFormat): Either.Either<ReadonlyArray<ReadRow>, InvalidRequest> => {
  // Postgres cannot store U+0000 (a multipart file did not pass the edge check of bodies)
  if (text.includes("\u0000") || (format === "jsonl" && text.includes("\\u0000"))) return Either.left(Errors.nulCharacter("The file"))
  return format === "csv" ? readCsv(text) : readJsonLines(text)
}

const readCsv = (text: string): Either.Either<ReadonlyArray<ReadRow>, InvalidRequest> => {
  const parsed = parseCsv(text)
  if (Either.isLeft(parsed)) {
    return Either.left(
      Errors.badRequest(
        `The CSV has a quote opened on line ${parsed.left} that is never closed.`,
        'Close every quoted field with ", and write a quote inside one as "".'
      )
    )
  }
  const [header, ...records] = parsed.right
  if (header === undefined) return Either.left(noRows())
  const names = header.map((h) => h.trim().toLowerCase())
  const missing = REQUIRED.filter((c) => !names.includes(c))
  if (missing.length > 0) {
    return Either.left(
      Errors.badRequest(`The CSV header has no column ${missing.join(", ")}.`, `Start the file with the header line ${COLUMNS.join(",")}.`)
    )
  }
  if (records.length === 0) return Either.left(noRows())
  if (records.length > IMPORT_MAX_ROWS) return Either.left(tooMany())
  const at = (record: ReadonlyArray<string>, column: (typeof COLUMNS)[number]) => {
    const index = names.indexOf(column)
    return index < 0 ? "" : (record[index] ?? "")
  }
  return Either.right(
    records.map((record, i): ReadRow => {
      const row = i + 1
      const body = bodyOfRow({
        date: at(record, "date"),
        channels: at(record, "channels"),
        content: at(record, "content"),
        media: at(record, "media"),
        settings: at(record, "settings"),
        tags: at(record, "tags")
      })
      return Either.isLeft(body) ? { row, refused: body.left } : { row, body: body.right }
    })
  )
}

const JsonLine = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const decodeLine = Schema.decodeUnknownEither(JsonLine)

const readJsonLines = (text: string): Either.Either<ReadonlyArray<ReadRow>, InvalidRequest> => {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "")
  if (lines.length === 0) return Either.left(noRows())
  if (lines.length > IMPORT_MAX_ROWS) return Either.left(tooMany())
  return Either.right(
    lines.map((line, i): ReadRow => {
      const row = i + 1
      if (nestsDeeperThan(line, MAX_JSON_DEPTH)) return { row, refused: Errors.nestedTooDeep(MAX_JSON_DEPTH) }
      const object = decodeLine(line)
      if (Either.isLeft(object)) return { row, refused: Errors.badRequest("This line is not a JSON object.", "Write one JSON object a line.") }
      const o = object.right
      // settings may be given as an object here, or as its JSON text like in a CSV
      const settings =
        typeof o["settings"] === "string" ? o["settings"] : o["settings"] === undefined || o["settings"] === null ? "" : JSON.stringify(o["settings"])
      const body = bodyOfRow({
        date: fieldText(o["date"]),
        channels: fieldText(o["channels"]),
        content: fieldText(o["content"]),
        media: fieldText(o["media"]),
        settings,
        tags: fieldText(o["tags"])
      })
      return Either.isLeft(body) ? { row, refused: body.left } : { row, body: body.right }
    })
  )
}
