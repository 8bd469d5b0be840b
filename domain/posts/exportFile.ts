/**
 * GET /posts/export: one line a channel post, as CSV (RFC 4180, with a header line) or as
 * JSON lines. The columns an import reads (date, channels, content, tags) keep their names,
 * so an exported file can be edited and imported again.
 */

export type ExportFormat = "csv" | "jsonl"

/** Rows read from the database per page: an export holds one page in memory. */
export const EXPORT_PAGE_ROWS = 500

export interface ExportLine {
  readonly date: string
  readonly group: string
  readonly postId: string
  readonly channels: string
  readonly channelName: string
  readonly network: string
  readonly status: string
  readonly content: string
  readonly releaseUrl: string | null
  readonly error: string | null
  readonly tags: string
}

const COLUMNS = ["date", "group", "postId", "channels", "channelName", "network", "status", "content", "releaseUrl", "error", "tags"] as const

/** A CSV field, quoted when it holds a comma, a quote or a line break. */
export const csvField = (value: string | null): string => {
  const text = value ?? ""
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvHeader = `${COLUMNS.join(",")}\r\n`

export const lineOf = (format: ExportFormat, line: ExportLine): string =>
  format === "csv" ? `${COLUMNS.map((c) => csvField(line[c])).join(",")}\r\n` : `${JSON.stringify(line)}\n`

export const contentTypeOf = (format: ExportFormat) => (format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson")
