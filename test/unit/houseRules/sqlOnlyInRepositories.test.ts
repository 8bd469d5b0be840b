import ts from "typescript"
import { describe, expect, it } from "vitest"
import { at, nodesOf, type Source, sourcesUnder } from "./sources.js"

/**
 * SQL lives in repositories: a file named `…Repo.ts` holds the statements of one table
 * family, and the migrations hold the schema (docs/house-rules.md). Everything else asks
 * a repository, so a change of a table is found by reading its repository.
 */
const allowed = (path: string) => /Repo\.ts$/.test(path) || path.startsWith("services/platform/migrations/")

/** What writes SQL: sql`…`, sql.unsafe / in / insert / update / literal / and / or / csv, and pg's raw `.query(`. */
const SQL_HELPERS = new Set(["unsafe", "in", "insert", "update", "literal", "and", "or", "csv"])
const isSqlClient = (node: ts.Node) =>
  (ts.isIdentifier(node) && node.text === "sql") || (ts.isPropertyAccessExpression(node) && node.name.text === "sql")

const sqlIn = (source: Source): ReadonlyArray<string> =>
  nodesOf(source).flatMap((node) => {
    if (ts.isTaggedTemplateExpression(node) && isSqlClient(node.tag)) return [`${at(source, node)}: sql\`…\``]
    if (ts.isPropertyAccessExpression(node) && SQL_HELPERS.has(node.name.text) && isSqlClient(node.expression)) {
      return [`${at(source, node)}: ${node.getText(source.ast)}`]
    }
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === "query") {
      return [`${at(source, node)}: ${node.expression.getText(source.ast)}(…)`]
    }
    return []
  })

describe("SQL only in repositories (…Repo.ts) and migrations", () => {
  const sources = sourcesUnder("services", "domain", "protocol")

  it("finds SQL where it is (every migration writes some)", () => {
    const migrations = sources.filter((s) => /^services\/platform\/migrations\/\d{4}_/.test(s.path))
    expect(migrations.length).toBeGreaterThan(0)
    for (const migration of migrations) expect(sqlIn(migration), migration.path).not.toEqual([])
  })

  it("no other file of services, domain or protocol writes SQL", () => {
    const offending = sources
      .filter((s) => !allowed(s.path))
      .map((s) => ({ path: s.path, found: sqlIn(s) }))
      .filter((f) => f.found.length > 0)
    const lines = (found: ReadonlyArray<string>) => [...new Set(found.map((f) => f.split(":")[1]))].join(", ")
    const report = offending.map((f) => `${f.path} (lines ${lines(f.found)})`).join("\n")
    expect(
      offending.map((f) => f.path),
      `SQL outside a …Repo.ts file or services/platform/migrations/ (move it into the repository of its tables):\n${report}`
    ).toEqual([])
  })
})
