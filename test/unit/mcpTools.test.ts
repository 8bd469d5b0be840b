import { Ajv2020 } from "ajv/dist/2020.js"
import addFormats from "ajv-formats"
import { describe, expect, it } from "vitest"
import { Errors } from "../../domain/errors.js"
import { toolError } from "../../protocol/mcp/errors.js"
import { mcpTools } from "../../services/gateway/mcp/tools.js"

/** The tools' contract as MCP clients read it: names, JSON Schema 2020-12 input and output schemas. */

const ajv = new Ajv2020({ strict: true, allErrors: true })
addFormats.default(ajv)

describe("MCP tool contract", () => {
  it("names are unique and valid MCP tool names", () => {
    const names = mcpTools.map((t) => t.name)
    expect(new Set(names).size).toBe(names.length)
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]{2,63}$/)
  })

  it.each(mcpTools.map((t) => [t.name, t] as const))("%s: input and output schemas are JSON Schema 2020-12 objects", (_name, tool) => {
    expect(tool.listing.inputSchema["type"]).toBe("object")
    expect(tool.listing.outputSchema["type"]).toBe("object")
    expect(JSON.stringify(tool.listing)).not.toContain("$ref")
    expect(() => ajv.compile(tool.listing.inputSchema)).not.toThrow()
    expect(() => ajv.compile(tool.listing.outputSchema)).not.toThrow()
  })

  it.each(mcpTools.map((t) => [t.name, t] as const))("%s: the output schema admits a tool error's REST body", (_name, tool) => {
    const validate = ajv.compile(tool.listing.outputSchema)
    for (const e of [Errors.postNotFound(), Errors.forbidden(), Errors.idempotencyKeyReused(), Errors.fixBeforeSaving([])]) {
      expect(validate(toolError(e).structuredContent), JSON.stringify(validate.errors)).toBe(true)
    }
    expect(validate({ surprise: true })).toBe(false)
  })
})
