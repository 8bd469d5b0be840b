import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { migrations } from "../../../services/platform/migrations/index.js"
import { root } from "./sources.js"

/**
 * Migrations only grow and are never edited once on main (docs/house-rules.md,
 * "Migrations"): a database records the ids it ran and never runs one again, so an
 * edit reaches only databases made after it. checksums.json holds each file's sha256
 * (comments included: a migration stays as it was written); a new migration adds its line,
 * a changed one fails here.
 */
const FOLDER = "services/platform/migrations"
const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.ts$/
/** The folder's other files: the list, the migrator and the checksums. */
const NOT_MIGRATIONS = new Set(["index.ts", "migrator.ts", "checksums.json"])

const files = readdirSync(join(root, FOLDER)).sort()
const migrationFiles = files.filter((f) => !NOT_MIGRATIONS.has(f))
const sha256 = (file: string) =>
  createHash("sha256")
    .update(readFileSync(join(root, FOLDER, file)))
    .digest("hex")
const checksums = Schema.decodeUnknownSync(Schema.Record({ key: Schema.String, value: Schema.String }))(
  JSON.parse(readFileSync(join(root, FOLDER, "checksums.json"), "utf8"))
)
const fileOf = (m: { readonly id: number; readonly name: string }) => `${String(m.id).padStart(4, "0")}_${m.name}.ts`

describe("migrations only grow and are never edited", () => {
  it("every file of the folder is NNNN_name.ts (or the list, the migrator, the checksums)", () => {
    const misnamed = migrationFiles.filter((f) => !MIGRATION_FILE.test(f))
    expect(misnamed, `not NNNN_name.ts:\n${misnamed.join("\n")}`).toEqual([])
  })

  it("the migrator's list has every file once, by its id and name, ids strictly increasing", () => {
    expect(migrations.map(fileOf)).toEqual(migrationFiles)
    const notIncreasing = migrations.flatMap((m, i) => {
      const before = migrations[i - 1]
      return before !== undefined && m.id <= before.id ? [`${fileOf(m)} after ${fileOf(before)}`] : []
    })
    expect(notIncreasing, `ids must strictly increase:\n${notIncreasing.join("\n")}`).toEqual([])
  })

  it("checksums.json names every migration file, and no other", () => {
    const missing = migrationFiles.filter((f) => checksums[f] === undefined).map((f) => `"${f}": "${sha256(f)}"`)
    expect(missing, `add to checksums.json:\n${missing.join(",\n")}`).toEqual([])
    expect(Object.keys(checksums).sort()).toEqual(migrationFiles)
  })

  it("no migration file differs from its checksum (a change is a new migration)", () => {
    const edited = migrationFiles.filter((f) => checksums[f] !== undefined && checksums[f] !== sha256(f))
    expect(
      edited,
      `edited after it was recorded (write a new migration instead; a new file adds its line to checksums.json):\n${edited.join("\n")}`
    ).toEqual([])
  })
})
