import ts from "typescript"
import { describe, expect, it } from "vitest"
import { at, nodesOf, type Source, sourcesUnder } from "./sources.js"

/**
 * Spans are made only by services/platform/tracing.ts: its `withSpan` makes none while
 * tracing is off, where Effect's own costs about 15 µs per span on the POST /posts path
 * (a stack captured, a context copied) for output nobody reads.
 */
const TRACING = "services/platform/tracing.ts"

/** `x.withSpan` (Effect.withSpan, Layer.withSpan, …) and `Effect.fn("name")`, which makes a span per call too. */
const spansMadeIn = (source: Source): ReadonlyArray<string> =>
  nodesOf(source).flatMap((node) => {
    if (ts.isPropertyAccessExpression(node) && node.name.text === "withSpan") return [`${at(source, node)}: ${node.getText(source.ast)}`]
    if (
      ts.isCallExpression(node) &&
      node.expression.getText(source.ast) === "Effect.fn" &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      return [`${at(source, node)}: Effect.fn(${node.arguments[0].getText(source.ast)})`]
    }
    return []
  })

describe("spans are made only through services/platform/tracing.ts", () => {
  const sources = sourcesUnder("services", "domain", "protocol")

  it("finds Effect.withSpan where it is (tracing.ts itself)", () => {
    const tracing = sources.find((s) => s.path === TRACING)
    expect(tracing).toBeDefined()
    if (tracing !== undefined) expect(spansMadeIn(tracing).length).toBeGreaterThan(0)
  })

  it("no other file of services, domain or protocol calls Effect.withSpan or .withSpan( (they use tracing.ts's withSpan)", () => {
    const found = sources.filter((s) => s.path !== TRACING).flatMap(spansMadeIn)
    expect(found, `spans made outside ${TRACING}; use its withSpan:\n${found.join("\n")}`).toEqual([])
  })
})
