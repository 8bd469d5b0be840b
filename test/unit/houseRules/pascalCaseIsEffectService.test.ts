import { basename } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import { nodesOf, type Source, sourcesUnder } from "./sources.js"

/**
 * Under services/, a PascalCase file is an `Effect.Service` and an `Effect.Service` lives in
 * a PascalCase file (docs/house-rules.md, "Names"): the file list shows the services.
 */
const isPascalCase = (path: string) => /^[A-Z][A-Za-z0-9]*\.ts$/.test(basename(path))

/** `class X extends Effect.Service<X>()(…)`. */
const definesEffectService = (source: Source) =>
  nodesOf(source).some(
    (node) =>
      ts.isClassDeclaration(node) &&
      (node.heritageClauses ?? []).some((clause) => clause.types.some((type) => /^Effect\.Service\s*</.test(type.expression.getText(source.ast))))
  )

describe("a PascalCase file under services/ is an Effect.Service, and an Effect.Service is in a PascalCase file", () => {
  const sources = sourcesUnder("services")

  it("recognises an Effect.Service (services/posts/Posts.ts)", () => {
    const posts = sources.find((s) => s.path === "services/posts/Posts.ts")
    expect(posts === undefined ? false : definesEffectService(posts)).toBe(true)
  })

  it("every PascalCase file defines an Effect.Service", () => {
    const offending = sources.filter((s) => isPascalCase(s.path) && !definesEffectService(s)).map((s) => s.path)
    expect(offending, `PascalCase files without an Effect.Service (rename to camelCase, or make it one):\n${offending.join("\n")}`).toEqual([])
  })

  it("every file defining an Effect.Service is PascalCase", () => {
    const offending = sources.filter((s) => !isPascalCase(s.path) && definesEffectService(s)).map((s) => s.path)
    expect(offending, `Effect.Service classes in camelCase files (name the file for the service):\n${offending.join("\n")}`).toEqual([])
  })
})
