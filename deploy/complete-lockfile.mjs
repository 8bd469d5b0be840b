// The npm registry reachable here has no packages for other platforms, so `npm install`
// leaves their optional entries out of package-lock.json and `npm ci` then refuses the
// lock. This records every optional dependency that is missing as an optional entry
// (npm skips an optional package it cannot fetch or that does not fit the platform).
// Run after `npm install`: node deploy/complete-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages
let added = 0
for (const [where, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    // resolved like node does: next to the dependent, else at the top
    const nested = `${where === "" ? "" : `${where}/`}node_modules/${name}`
    const top = `node_modules/${name}`
    if (packages[nested] || packages[top]) continue
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec)) continue
    packages[top] = { version: spec, optional: true }
    added++
  }
}
const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : a > b ? 1 : 0)))
lock.packages = sorted
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`complete-lockfile: added ${added} optional entries`)
