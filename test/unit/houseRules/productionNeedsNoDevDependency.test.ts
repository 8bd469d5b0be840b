import { readFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { join } from "node:path"
import { Schema } from "effect"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { importsOf, isBuiltForProduction, root, type Source, sourcesUnder } from "./sources.js"

/**
 * The image installs production dependencies only (deploy/Dockerfile: npm ci --omit=dev), so
 * what runs there (services, domain, protocol, compiled to dist/) imports nothing else.
 * tsx, the test runner, the linter and the compiler are for development.
 */
const Manifest = Schema.Struct({
  dependencies: Schema.Record({ key: Schema.String, value: Schema.String }),
  devDependencies: Schema.Record({ key: Schema.String, value: Schema.String })
})
const Lockfile = Schema.Struct({
  packages: Schema.Record({ key: Schema.String, value: Schema.Struct({ dev: Schema.optional(Schema.Boolean) }) })
})
const manifest = Schema.decodeUnknownSync(Manifest)(JSON.parse(readFileSync(join(root, "package.json"), "utf8")))
const lockfile = Schema.decodeUnknownSync(Lockfile)(JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")))

const DEVELOPMENT_ONLY = ["tsx", "typescript", "vitest", "@biomejs/biome"]

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
const packageOf = (specifier: string) =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/")
const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(specifier)

/** Imports that exist at run time: not `import type` (erased), not `import("…")` in a type. */
const runtimeImports = (source: Source) =>
  importsOf(source).filter(
    (i) =>
      !ts.isImportTypeNode(i.node) &&
      !(ts.isImportDeclaration(i.node) && i.node.importClause?.isTypeOnly === true) &&
      !(ts.isExportDeclaration(i.node) && i.node.isTypeOnly)
  )

describe("production needs no development dependency", () => {
  it(`${DEVELOPMENT_ONLY.join(", ")} are development dependencies, and npm ci --omit=dev leaves them out`, () => {
    for (const name of DEVELOPMENT_ONLY) {
      expect(manifest.dependencies[name], `${name} in dependencies`).toBeUndefined()
      expect(manifest.devDependencies[name], `${name} in devDependencies`).toBeDefined()
      expect(lockfile.packages[`node_modules/${name}`]?.dev, `${name} marked dev in package-lock.json`).toBe(true)
    }
  })

  it("services, domain and protocol import at run time only Node's modules and production dependencies", () => {
    const sources = sourcesUnder("services", "domain", "protocol")
    const db = sources.find((s) => s.path === "services/platform/db.ts")
    expect(db === undefined ? [] : runtimeImports(db).map((i) => i.specifier)).toContain("pg")
    const outside = sources
      .filter((s) => isBuiltForProduction(s.path))
      .flatMap((source) =>
        runtimeImports(source)
          .filter((i) => !i.specifier.startsWith(".") && !isBuiltin(i.specifier) && manifest.dependencies[packageOf(i.specifier)] === undefined)
          .map((i) => `${source.path} → ${i.specifier}`)
      )
    expect(outside, `imports of packages the image does not install:\n${outside.join("\n")}`).toEqual([])
  })
})
