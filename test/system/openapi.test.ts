import SwaggerParser from "@apidevtools/swagger-parser"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OpenAPI } from "openapi-types"
import { client, decode } from "../support/http.js"
import { OpenApiDocument } from "../support/openApiDocument.js"
import { createWorld, startServices, type RunningServices, type TestWorld } from "../support/system.js"

/** Spec: Versioning: "OpenAPI 3.1 … version 1.0.0 … published as a JSON file next to the documentation". */

let world: TestWorld
let sys: RunningServices
/** The document as served (compared and validated whole). */
let raw: unknown
/** The parts of it the tests read. */
let doc: typeof OpenApiDocument.Type

beforeAll(async () => {
  world = await createWorld("openapi")
  sys = await startServices(world, ["gateway"])
  raw = (await client(sys.url).get("/public/v1/openapi.json")).json
  doc = decode(OpenApiDocument, raw, "the OpenAPI document", { exact: false })
})
afterAll(async () => {
  await sys.stop()
  await world.drop()
})

/** The spec's Summary table: the 28 endpoints of the public API. */
const specEndpoints: ReadonlyArray<readonly [string, string]> = [
  ["get", "/is-connected"],
  ["get", "/integrations"],
  ["get", "/groups"],
  ["get", "/integration-settings/{id}"],
  ["post", "/integration-trigger/{id}"],
  ["get", "/social/{integration}"],
  ["delete", "/integrations/{id}"],
  ["post", "/upload"],
  ["post", "/upload-from-url"],
  ["get", "/media"],
  ["get", "/find-slot"],
  ["get", "/find-slot/{id}"],
  ["get", "/posts"],
  ["post", "/posts"],
  ["get", "/posts/{id}"],
  ["put", "/posts/{id}/date"],
  ["put", "/posts/{id}/status"],
  ["put", "/posts/{id}/settings"],
  ["post", "/posts/{id}/retry"],
  ["get", "/posts/{id}/missing"],
  ["put", "/posts/{id}/release-id"],
  ["delete", "/posts/{id}"],
  ["delete", "/posts/group/{group}"],
  ["get", "/analytics/{integration}"],
  ["get", "/analytics/post/{postId}"],
  ["get", "/notifications"],
  ["get", "/networks"],
  ["get", "/rules/{identifier}"]
]

/** Served today (docs/using-the-api.md, "What works today"); the rest of the 28 are later work. */
const servedNow = [
  "get /is-connected",
  "get /integrations",
  "get /groups",
  "get /integration-settings/{id}",
  "post /integration-trigger/{id}",
  "get /social/{integration}",
  "delete /integrations/{id}",
  "post /upload",
  "post /upload-from-url",
  "get /media",
  "get /find-slot",
  "get /find-slot/{id}",
  "get /posts",
  "post /posts",
  "get /posts/{id}",
  "put /posts/{id}/date",
  "put /posts/{id}/status",
  "put /posts/{id}/settings",
  "post /posts/{id}/retry",
  "get /posts/{id}/missing",
  "put /posts/{id}/release-id",
  "delete /posts/{id}",
  "delete /posts/group/{group}",
  "get /analytics/{integration}",
  "get /analytics/post/{postId}",
  "get /notifications",
  "get /networks",
  "get /rules/{identifier}"
]

/** Endpoints this service adds to the reference API (docs/api.md, "Beyond the reference API"). */
const beyondSpec = [
  "get /events",
  "get /posts/{id}/attempts",
  "post /posts/preview",
  "get /integrations/{id}/health",
  "post /posts/import",
  "get /posts/export"
]

const concrete = (path: string) => path.replace(/\{(integration|identifier)\}/g, "x").replace(/\{[^}]+\}/g, "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f")

/** A route the gateway serves answers 401 without a key; a path it does not have answers 404. */
const served = async (method: string, path: string) =>
  (await client(sys.url).request(method.toUpperCase(), `/public/v1${concrete(path)}`)).status !== 404

describe("GET /public/v1/openapi.json", () => {
  it("answers 200 JSON without a key", async () => {
    const res = await client(sys.url).get("/public/v1/openapi.json")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(typeof res.json).toBe("object")
  })

  it("validates as OpenAPI 3.1", async () => {
    expect(doc.openapi.startsWith("3.1")).toBe(true)
    await expect(SwaggerParser.validate(structuredClone(raw) as OpenAPI.Document)).resolves.toBeTruthy()
  })

  it("carries version 1.0.0", () => {
    expect(doc.info.version).toBe("1.0.0")
  })

  it.each(specEndpoints)("%s /public/v1%s: served exactly when listed as served today, and documented exactly when served", async (method, path) => {
    expect(specEndpoints).toHaveLength(28)
    const listed = servedNow.includes(`${method} ${path}`)
    expect(await served(method, path)).toBe(listed)
    expect(doc.paths[`/public/v1${path}`]?.[method] !== undefined).toBe(listed)
  })

  it("documents the spec's endpoints and, beyond them, only those docs/api.md lists", () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path.replace(/^\/public\/v1/, "")}`)
    )
    expect(documented.sort()).toEqual([...servedNow, ...beyondSpec].sort())
  })

  it("no schema matches nothing (an empty anyOf accepts no value)", () => {
    const empty: Array<string> = []
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`))
      if (typeof node !== "object" || node === null) return
      for (const [key, value] of Object.entries(node)) {
        if ((key === "anyOf" || key === "oneOf") && Array.isArray(value) && value.length === 0) empty.push(at)
        walk(value, `${at}/${key}`)
      }
    }
    walk(raw, "#")
    expect(empty).toEqual([])
  })

  it("every error case an endpoint declares is documented by name with the spec's body", () => {
    const refs = (status: string, path: string, method: string) =>
      JSON.stringify(doc.paths[path]?.[method]?.responses?.[status]?.content?.["application/json"]?.schema ?? {})
    expect(refs("400", "/public/v1/posts", "post")).toContain("#/components/schemas/RuleViolations")
    expect(refs("409", "/public/v1/posts", "post")).toContain("#/components/schemas/IdempotencyKeyReused")
    expect(refs("429", "/public/v1/posts", "post")).toContain("#/components/schemas/TooManyRequests")
    expect(refs("404", "/public/v1/posts/{id}", "get")).toContain("#/components/schemas/PostNotFound")
    expect(refs("403", "/public/v1/integrations/{id}", "delete")).toContain("#/components/schemas/Forbidden")
    expect(refs("401", "/public/v1/is-connected", "get")).toContain("#/components/schemas/InvalidApiKey")
    expect(doc.components?.schemas?.RuleViolations?.required).toEqual(expect.arrayContaining(["error", "msg"]))
    expect(doc.components?.schemas?.HttpApiDecodeError).toBeUndefined()
  })

  it("every path is under /public/v1", () => {
    for (const path of Object.keys(doc.paths)) expect(path.startsWith("/public/v1/")).toBe(true)
  })

  it("has no internal `ApiError` schema, and nothing refers to one", () => {
    expect(Object.keys(doc.components?.schemas ?? {})).not.toContain("ApiError")
    expect(JSON.stringify(raw)).not.toContain("#/components/schemas/ApiError")
  })

  it("no answer is described by the internal name `ApiError`", () => {
    const described: Array<string> = []
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (response.description === "ApiError") described.push(`${method.toUpperCase()} ${path} ${status}`)
        }
      }
    }
    expect(described).toEqual([])
  })

  it("every documented error answer (4xx, 5xx) is the spec's error body: error and msg required", async () => {
    const resolved = decode(OpenApiDocument, await SwaggerParser.dereference(structuredClone(raw) as OpenAPI.Document), "the document dereferenced", {
      exact: false
    })
    const wrong: Array<string> = []
    for (const [path, item] of Object.entries(resolved.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue
          const schema = response.content?.["application/json"]?.schema
          const alternatives = schema?.anyOf ?? schema?.oneOf ?? [schema]
          for (const alt of alternatives) {
            const required = alt?.required ?? []
            if (!required.includes("error") || !required.includes("msg")) {
              wrong.push(`${method.toUpperCase()} ${path} ${status}: ${Object.keys(alt?.properties ?? {}).join(",")}`)
            }
          }
        }
      }
    }
    expect(wrong).toEqual([])
  })

  it("documents the Authorization header as the security scheme", () => {
    const schemes = Object.values(doc.components?.securitySchemes ?? {})
    expect(schemes).toContainEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "Authorization" }))
  })

  it("documents error answers with the spec's body (error and msg)", () => {
    const responses = doc.paths["/public/v1/integration-settings/{id}"]?.get?.responses ?? {}
    for (const status of ["400", "404"]) expect(Object.keys(responses)).toContain(status)
    const dereferenced = JSON.stringify(doc.components?.schemas)
    expect(dereferenced).toContain('"msg"')
  })
})

describe("GET /public/v1/docs", () => {
  it("answers 200 HTML", async () => {
    const res = await client(sys.url).get("/public/v1/docs")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^text\/html/)
    expect(res.text.toLowerCase()).toContain("<html")
  })

  it("renders exactly the document served at /public/v1/openapi.json", async () => {
    const page = (await client(sys.url).get("/public/v1/docs")).text
    const embedded = /<script id="api-reference" type="application\/json">([\s\S]*?)<\/script>/.exec(page)?.[1]
    expect(embedded).toBeDefined()
    expect(JSON.parse(embedded ?? "null")).toEqual(raw)
  })
})
