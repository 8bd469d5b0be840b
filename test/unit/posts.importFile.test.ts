import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { csvField, csvHeader, lineOf } from "../../domain/posts/exportFile.js"
import { parseCsv, readImportFile, requestsOf } from "../../domain/posts/importFile.js"

/**
 * The file of POST /posts/import read into POST /posts bodies (domain/posts/importFile.ts),
 * and the lines of GET /posts/export (domain/posts/exportFile.ts): RFC 4180 quoting both ways.
 */

const rows = (text: string, format: "csv" | "jsonl" = "csv") => Either.getOrThrow(readImportFile(text, format))
const refusal = (text: string, format: "csv" | "jsonl" = "csv") =>
  Either.getOrThrowWith(Either.flip(readImportFile(text, format)), () => "read").error
const CH = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
const CH2 = "7f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"

describe("CSV (RFC 4180)", () => {
  it("quoted fields hold commas, doubled quotes and line breaks; CRLF and a BOM are read; blank lines are no rows", () => {
    expect(Either.getOrThrow(parseCsv('\ufeffa,b\r\n"x, y","say ""hi""\nthere"\r\n\r\nlast,\n'))).toEqual([
      ["a", "b"],
      ["x, y", 'say "hi"\nthere'],
      ["last", ""]
    ])
  })

  it("a quote never closed is the line it opened on", () => {
    expect(parseCsv('a\n"open\nstill')).toEqual(Either.left(2))
  })

  it("the export's CSV reads back to the same fields", () => {
    const exported = { date: "2030-01-01T00:00:00.000Z", group: "g", postId: "p", channels: CH, channelName: "A", network: "test" }
    const text = `${csvHeader}${lineOf("csv", { ...exported, status: "queued", content: 'Hi, "you"\nthere', releaseUrl: null, error: null, tags: "a;b" })}`
    const [header, record] = Either.getOrThrow(parseCsv(text))
    expect(record?.[header?.indexOf("content") ?? -1]).toBe('Hi, "you"\nthere')
    expect(csvField("plain")).toBe("plain")
  })
})

describe("a row is the POST /posts body it stands for", () => {
  it("channels, media and tags split on ;, settings given to every channel, type schedule", () => {
    const [row] = rows(
      `date,channels,content,media,settings,tags\n2030-01-01T10:00:00Z,${CH}; ${CH2},Hello,https://x.test/a.png;https://x.test/b.png,"{""audience"":""everyone""}",launch;q1\n`
    )
    expect(row).toEqual({
      row: 1,
      body: {
        type: "schedule",
        date: "2030-01-01T10:00:00Z",
        tags: ["launch", "q1"],
        posts: [CH, CH2].map((id) => ({
          integration: { id },
          value: [{ content: "Hello", image: [{ path: "https://x.test/a.png" }, { path: "https://x.test/b.png" }] }],
          settings: { audience: "everyone" }
        }))
      }
    })
  })

  it("JSON lines take arrays and objects for the same fields", () => {
    const [row] = rows(
      JSON.stringify({ date: "2030-01-01T10:00:00Z", channels: [CH], content: "Hi", settings: { audience: "followers" }, tags: ["a"] }),
      "jsonl"
    )
    expect(row).toMatchObject({ body: { tags: ["a"], posts: [{ integration: { id: CH }, settings: { audience: "followers" } }] } })
  })

  it("a row that cannot stand for a body is refused alone, with its fix", () => {
    const read = rows(
      `date,channels,content,settings\n2030-01-01T10:00:00Z,${CH},a,{nope\n2030-01-01T10:00:00Z,,b,\n2030-01-01T10:00:00Z,${CH},c,${"[".repeat(40)}\n`
    )
    expect(read.map((r) => ("refused" in r ? r.refused.error : "ok"))).toEqual([
      "The settings of this row are not a JSON object.",
      "This row names no channel.",
      "The request body is nested more than 32 levels deep. Send at most 32 levels of arrays and objects."
    ])
    expect(rows("not json\n{}", "jsonl").map((r) => ("refused" in r ? r.refused.error : "ok"))).toEqual([
      "This line is not a JSON object.",
      "This row names no channel."
    ])
  })

  it("a file without the needed columns, without rows, over 5000 rows or with U+0000 is refused whole", () => {
    expect(refusal("date,content\nx,y\n")).toBe("The CSV header has no column channels.")
    expect(refusal("date,channels,content\n")).toBe("The file has no rows.")
    expect(refusal(`date,channels,content\n${"d,c,t\n".repeat(5001)}`)).toBe("The file has more than 5000 rows.")
    expect(refusal("date,channels,content\nd,c,\u0000\n")).toBe("The file must not contain the character U+0000.")
    expect(rows(`date,channels,content\n${"d,c,t\n".repeat(5000)}`)).toHaveLength(5000)
  })

  it("an import counts one request per 100 rows, at least one", () => {
    expect([1, 100, 101, 5000].map(requestsOf)).toEqual([1, 1, 2, 50])
  })
})
