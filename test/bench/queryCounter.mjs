/**
 * Preload for a service process in a benchmark (`node --import ./test/bench/queryCounter.mjs`):
 * counts the statements the process sends to Postgres (node-postgres `Client.query`, one
 * round trip each) by their first words, and prints the counts when the process exits.
 */
import { createRequire } from "node:module"
const pg = createRequire(import.meta.url)("pg")
const counts = new Map()
const query = pg.Client.prototype.query
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === "string" ? config : (config?.text ?? "")
  const head = text.replace(/\s+/g, " ").trim().slice(0, 70)
  counts.set(head, (counts.get(head) ?? 0) + 1)
  return query.call(this, config, ...rest)
}
process.once("exit", () => {
  const rows = [...counts].sort((a, b) => b[1] - a[1])
  const total = rows.reduce((n, [, c]) => n + c, 0)
  process.stderr.write(
    `queryCounter: ${total} statements\n${rows
      .slice(0, 25)
      .map(([t, c]) => `  ${c}\t${t}`)
      .join("\n")}\n`
  )
})
